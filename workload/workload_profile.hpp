// Per-layer compute times of a workload: the forward and backward seconds of one sample on one
// rank, linear in the batch. Three sources: measured on this machine with the CPU layers
// (replay_profile_measure.hpp), read from a ringlab.profile/1 file (e.g. timed on a GPU), or derived
// from the layers' multiply-adds and a stated device throughput (an assumption, not a measurement):
// forward = 2 x MACs / throughput, backward = 2 x forward.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "workload/workload.hpp"

namespace ringlab::training {

inline constexpr const char* profile_schema = "ringlab.profile/1";

struct LayerTime {
  std::string name;
  double forward_seconds_per_sample = 0;
  double backward_seconds_per_sample = 0;
};

struct ComputeProfile {
  std::string workload;
  std::string source;  // in words: how the times were obtained
  std::vector<LayerTime> layers;  // one per workload layer, in the workload's order
};

// Throws std::invalid_argument when tflops is not positive and finite.
ComputeProfile profile_from_throughput(const Workload& workload, double tflops);

// The ringlab.profile/1 document (docs/training.md): schema, workload, source, layers[] with name,
// forward_seconds_per_sample, backward_seconds_per_sample.
nlohmann::json to_json(const ComputeProfile& profile);
// Checks the document against the workload; errors name `where` (the file) and the field, e.g.
// "p.json: layers[3].forward_seconds_per_sample is -1; give seconds >= 0".
ComputeProfile profile_from_json(const nlohmann::json& document, const Workload& workload, const std::string& where);
// Reads and checks a file; a missing or unparsable file is named in the message.
ComputeProfile read_profile_file(const std::string& path, const Workload& workload);

}  // namespace ringlab::training
