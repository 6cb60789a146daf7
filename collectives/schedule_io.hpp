// Schedule export and import: the ringlab.schedule/1 JSON shape (docs/schedule-format.md) and a
// human-readable listing.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "collectives/schedule.hpp"

namespace ringlab {

inline constexpr const char* schedule_schema = "ringlab.schedule/1";

nlohmann::json to_json(const Schedule& schedule);
// Parses and checks the shape; throws std::invalid_argument naming the JSON path that is wrong.
// The result is explicit (one program per rank); run check_structure()/verify() on it. Refuses,
// before building it, more than 2^20 ranks, 2^24 chunks, 2^20 steps in a rank or 2^24 ops in all.
Schedule schedule_from_json(const nlohmann::json& document);
// As above, prefixed with the file name; refuses files over 512 MiB unread.
Schedule read_schedule_file(const std::string& path);

// One block per step, one line per rank: "rank 0: send [3,4) -> 1, recv_reduce [2,3) <- 3".
void print_schedule(std::ostream& out, const Schedule& schedule);

}  // namespace ringlab
