// Parsing helpers shared by the subcommands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::cli {

// "4", "1..64", "2,4,8", "1..8,16" -> sorted unique rank counts; throws std::invalid_argument.
std::vector<int> parse_rank_list(std::string_view text);

// "1024", "4K", "1M", "2G" (binary suffixes) -> value; throws std::invalid_argument on junk or overflow.
std::int64_t parse_size(std::string_view text);
// --segment-bytes: a size as parse_size reads it (0 = whole transfers), its errors naming the flag.
std::int64_t parse_segment_bytes(std::string_view text);

// "all" -> every name in `valid`; otherwise a comma-separated list, each checked by `check`.
std::vector<std::string> parse_name_list(std::string_view text, const std::vector<std::string>& valid);

}  // namespace ringlab::cli
