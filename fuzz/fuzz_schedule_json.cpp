// Fuzz target: the ringlab.schedule/1 reader and the verifier, as `ringlab verify --schedule` uses
// them. Steps: parse the input as JSON (not JSON: nothing to do); schedule_from_json, where
// std::invalid_argument is the answer to bad input; check_structure; on a well-formed schedule,
// verify() and critical_path() (when their state fits the harness's 256 MiB; verify() itself
// refuses above 0.5 GiB or 2^30 operations, verifier_cost) must run without throwing, and
// to_json -> schedule_from_json must give the same document back (else reader and writer
// disagree: a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "collectives/schedule_io.hpp"
#include "collectives/verify.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json document = nlohmann::json::parse(data, data + size, nullptr, false);
  if (document.is_discarded()) return 0;
  ringlab::Schedule schedule;
  try {
    schedule = ringlab::schedule_from_json(document);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (!ringlab::check_structure(schedule).empty()) return 0;
  constexpr double harness_state_limit_bytes = 256.0 * (1 << 20);
  const double state_bytes = static_cast<double>(schedule.nranks) * static_cast<double>(schedule.nchunks) * 8.0 *
                             (std::ceil(schedule.nranks / 64.0) + 2.0);
  if (state_bytes > harness_state_limit_bytes) return 0;
  const ringlab::VerifyResult result = ringlab::verify(schedule);
  if (result.ok() != (result.error_count == 0)) std::abort();
  const ringlab::CriticalPath path = ringlab::critical_path(schedule, {1e-6, 1e-9, 1e-10}, 1 << 20);
  if (!(path.seconds >= 0)) std::abort();
  const nlohmann::json written = ringlab::to_json(schedule);
  if (ringlab::to_json(ringlab::schedule_from_json(written)) != written) std::abort();
  return 0;
}
