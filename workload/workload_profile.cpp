#include "workload/workload_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/json_input.hpp"

namespace ringlab::training {

ComputeProfile profile_from_throughput(const Workload& workload, double tflops) {
  if (!(tflops > 0) || !std::isfinite(tflops))
    throw std::invalid_argument(fmt::format("--device-tflops {} must be a positive number of TFLOP/s", tflops));
  ComputeProfile profile{workload.name,
                         fmt::format("assumed: {:g} TFLOP/s sustained, forward = 2 x MACs / throughput, "
                                     "backward = 2 x forward (not a measurement)",
                                     tflops),
                         {}};
  for (const WorkloadLayer& layer : workload.layers) {
    const double forward = 2.0 * layer.forward_macs_per_sample / (tflops * 1e12);
    profile.layers.push_back({layer.name, forward, 2.0 * forward});
  }
  return profile;
}

nlohmann::json to_json(const ComputeProfile& profile) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerTime& layer : profile.layers)
    layers.push_back({{"name", layer.name},
                      {"forward_seconds_per_sample", layer.forward_seconds_per_sample},
                      {"backward_seconds_per_sample", layer.backward_seconds_per_sample}});
  return {{"schema", profile_schema}, {"workload", profile.workload}, {"source", profile.source}, {"layers", layers}};
}

namespace {

const nlohmann::json& field(const nlohmann::json& object, const char* key, const std::string& where,
                            const std::string& path) {
  if (!object.is_object() || !object.contains(key))
    throw std::invalid_argument(fmt::format("{}: {} is missing; see docs/training.md for the ringlab.profile/1 format",
                                            where, path));
  return object.at(key);
}

std::string string_field(const nlohmann::json& object, const char* key, const std::string& where,
                         const std::string& path) {
  const nlohmann::json& value = field(object, key, where, path);
  if (!value.is_string()) throw std::invalid_argument(fmt::format("{}: {} must be a string", where, path));
  return value.get<std::string>();
}

double seconds_field(const nlohmann::json& object, const char* key, const std::string& where,
                     const std::string& path) {
  const nlohmann::json& value = field(object, key, where, path);
  if (!value.is_number()) throw std::invalid_argument(fmt::format("{}: {} must be a number of seconds", where, path));
  // One sample through one layer: an hour is far beyond any device (a 1e300 s layer made every
  // prediction inf).
  constexpr double max_seconds = 3600;
  const double seconds = value.get<double>();
  if (!(seconds >= 0) || !(seconds <= max_seconds))
    throw std::invalid_argument(fmt::format("{}: {} is {}; give seconds in [0, {}]", where, path, seconds, max_seconds));
  return seconds;
}

}  // namespace

ComputeProfile profile_from_json(const nlohmann::json& document, const Workload& workload, const std::string& where) {
  const std::string schema = string_field(document, "schema", where, "schema");
  if (schema != profile_schema)
    throw std::invalid_argument(fmt::format("{}: schema is '{}', expected '{}'", where, schema, profile_schema));
  ComputeProfile profile;
  profile.workload = string_field(document, "workload", where, "workload");
  if (profile.workload != workload.name)
    throw std::invalid_argument(fmt::format("{}: workload is '{}' but the run replays '{}'; give a profile of '{}'",
                                            where, profile.workload, workload.name, workload.name));
  profile.source = string_field(document, "source", where, "source");
  const nlohmann::json& layers = field(document, "layers", where, "layers");
  if (!layers.is_array() || layers.size() != workload.layers.size())
    throw std::invalid_argument(fmt::format("{}: layers must be an array of {} entries, one per layer of {}", where,
                                            workload.layers.size(), workload.name));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string path = fmt::format("layers[{}]", i);
    LayerTime time;
    time.name = string_field(layers[i], "name", where, path + ".name");
    if (time.name != workload.layers[i].name)
      throw std::invalid_argument(fmt::format("{}: {}.name is '{}', expected '{}' (layers in the workload's order)",
                                              where, path, time.name, workload.layers[i].name));
    time.forward_seconds_per_sample =
        seconds_field(layers[i], "forward_seconds_per_sample", where, path + ".forward_seconds_per_sample");
    time.backward_seconds_per_sample =
        seconds_field(layers[i], "backward_seconds_per_sample", where, path + ".backward_seconds_per_sample");
    profile.layers.push_back(time);
  }
  return profile;
}

ComputeProfile read_profile_file(const std::string& path, const Workload& workload) {
  const nlohmann::json document = io::read_json_input(path, "profile");
  return profile_from_json(document, workload, path);
}

}  // namespace ringlab::training
