// Reading back the measurements a calibration record holds (the "calibration" object `ringlab
// calibrate` writes, docs/calibration.md), so a committed calibration can be refitted offline
// (`ringlab calibrate --from-report FILE`) without measuring again. Steps:
//   1. ping_pong.pairs[]: ranks [a, b] and samples[] (bytes, iterations, one_way_median_us,
//      one_way_min_us), microseconds back to seconds;
//   2. concurrent: active_ranks and samples[] (bytes, iterations, slowest_rank_median_us,
//      aggregate_bytes_per_second);
//   3. reduce.samples[] (bytes, iterations, median_us);
//   4. parameters.cores, endpoints;
//   5. rank_cpus when present (calibrations from 2026-12-05 on): one CPU list per rank measured;
//   6. waiting_mates when present (from 2026-12-05, 07:00 UTC on): ranks [a, b] and samples[]
//      (bytes, sleeping_one_way_us, polling_one_way_us);
//   7. reduce_by_type_op when present (from 2026-12-06 22:00 UTC on): in_cache_operand_bytes,
//      out_of_cache_operand_bytes, in_cache_iterations, out_of_cache_iterations and samples[]
//      (type and op as ringlab names them, in_cache_median_us, out_of_cache_median_us). Without it
//      the refit topology has no gamma_by_type_op (its pairs priced with float32/sum's gamma);
//   8. reduce_by_form when present (from 2026-12-07 15:00 UTC on): as 7, its samples[] with form
//      ("in-place" or "out-of-place") and ranks_reducing instead of type and op. Without it the
//      refit topology has no gamma_by_form (both forms priced with gamma).
// Fits, residuals and parameters in the record are not read: they are what a refit recomputes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibration/calibrated_topology.hpp"

namespace ringlab::calibration {

struct RecordedCalibration {
  Measurements measurements;
  int cores = 1;
  int endpoints = 2;
  std::vector<std::string> rank_cpus;  // empty: not recorded
  nlohmann::json record;  // the record as read (its context: command, machine, ...)
};

// Throws std::invalid_argument "calibration record: <field path>: <what is wrong>", e.g.
// "calibration record: ping_pong.pairs[0].samples[3].one_way_median_us: expected a number > 0".
RecordedCalibration measurements_from_record(const nlohmann::json& record);

// The "calibration" object of a calibrated topology file; the message names the file.
RecordedCalibration read_calibration_file(const std::string& path);

}  // namespace ringlab::calibration
