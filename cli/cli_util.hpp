// Parsing helpers shared by the subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/selection_table.hpp"

namespace ringlab::cli {

// "4", "1..64", "2,4,8", "1..8,16" -> sorted unique rank counts; throws std::invalid_argument.
std::vector<int> parse_rank_list(std::string_view text);
// --node-rings: rings separated by '/', each local ranks separated by ','; throws naming a bad one.
inline constexpr int max_node_ring_ranks = 1 << 10;
std::vector<std::vector<int>> parse_node_rings(std::string_view text);

// "1024", "4K", "1M", "2G" (binary suffixes) -> value; throws std::invalid_argument on junk or overflow.
std::int64_t parse_size(std::string_view text);
// --segment-bytes: a size as parse_size reads it (0 = whole transfers), its errors naming the flag.
std::int64_t parse_segment_bytes(std::string_view text);
// A comma-separated list of segment sizes (`tune --segment-bytes 256K,1M`), each as above; an
// empty item is refused.
std::vector<std::int64_t> parse_segment_list(std::string_view text);

// A comma-separated list of names, each in `valid` or `named_only`, repeats dropped; an item "all"
// stands for every name in `valid` (not `named_only`: names such as bench's "auto" that run only
// when named). Throws std::invalid_argument naming an unknown name and the valid ones.
std::vector<std::string> parse_name_list(std::string_view text, const std::vector<std::string>& valid,
                                         const std::vector<std::string>& named_only = {});

// "ringlab: warning: <message>" on standard error, control characters escaped (io/printable.hpp):
// what a command says about its input without refusing it.
void print_warning(const std::string& message);

// Output files (io/output_file.hpp). An output option's path: "" means the option was not given,
// so an empty path on the command line is refused by the option itself (`output_path`).
CLI::Validator output_path();
// Checks a given output path when the command starts, before any work (no-op for "").
void check_output_option(const std::string& path, bool force, std::string_view option);
// At most one of a command's outputs may be "-" (standard output), and no two may name one file
// (compared after resolving `.`, `..` and links); true if one is "-".
bool to_standard_output(std::initializer_list<std::pair<std::string_view, const std::string*>> outputs);

// --algo auto and --tuning FILE come together (bench, train, replay): refuses one without the
// other, and reads the table when `algorithms` names "auto".
std::optional<SelectionTable> tuning_for_auto(const std::vector<std::string>& algorithms, const std::string& tuning_path);

}  // namespace ringlab::cli
