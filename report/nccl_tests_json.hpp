// `ringlab bench -J FILE` (--nccl-json): the JSON document nccl-tests (2.17 and later) writes with
// -J, so tools made for it (nccl-tests' own tools/analyze_perf_json.py among them) read a ringlab run.
// Field names and value forms follow nccl-tests' JSON version 3 (docs/bench.md#output-formats):
// booleans as the strings "true"/"false", root as the text of its column ("    -1"), nwrong null
// when results were not checked. Each result's experiment_name is the ringlab algorithm; the
// "ringlab" member (ignored by nccl-tests' readers) adds what nccl-tests has no place for.
// A pure function of a ringlab.bench/1 report.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::report {

inline constexpr int nccl_tests_json_version = 3;

// What the report does not hold: when the file was finished (nccl-tests' end_time).
struct NcclTestsJsonContext {
  std::string end_time;  // "YYYY-MM-DD HH:MM:SS" (nccl_tests_time)
  bool gpus = false;     // the backend runs its ranks on GPUs (ngpus 1); the caller asks the backend registry
};

// "2026-12-02T14:40:00Z" (a report's "created") -> "2026-12-02 14:40:00", nccl-tests' time form (UTC here).
std::string nccl_tests_time(std::string_view iso_utc);

// NCCL's version code of "2.21.5" (NCCL_VERSION: 22105; before 2.9, 2800 for 2.8.0); 0 when none or unreadable.
int nccl_version_code(const std::optional<std::string>& version);

// The command line split at spaces, as nccl-tests' args list (the report keeps it as one string).
std::vector<std::string> command_arguments(std::string_view command);

nlohmann::json make_nccl_tests_json(const nlohmann::json& report, const NcclTestsJsonContext& context);

}  // namespace ringlab::report
