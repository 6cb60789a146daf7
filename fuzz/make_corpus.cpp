// Writes the fuzz seed corpus (corpus/<target>/) with the project's own writers: topology presets
// through write_topology_json, every algorithm's schedule through to_json, synthetic images
// through write_cifar_file / write_mini_imagenet_file, plus near-valid variants of each (one
// field or byte wrong) so the fuzzer starts next to the readers' error paths. The calibration
// record and bench report seeds are the fixtures of tests/values/ (nccl-tests output: tests/data/nccl-tests/) (a valid file and one variant per
// out-of-range field); the float option seeds are option texts.
// Usage: fuzz_make_corpus OUTDIR   (scripts/fuzz.sh --make-corpus runs it on fuzz/corpus)
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "training_harness/cifar_io.hpp"
#include "training_harness/miniimagenet_io.hpp"
#include "topology/presets.hpp"
#include "collectives/schedule_io.hpp"
#include "topology/topology_io.hpp"

namespace fs = std::filesystem;
namespace training = ringlab::training;

namespace {

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", file.string()));
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void topology_seeds(const fs::path& folder) {
  const char* presets[] = {"switch:4", "ring:3,bw=1e9", "torus2d:2x3", "fully-connected:3", "pcie-tree",
                           "nvswitch:2,nodes:2", "host-shm:2,cores=2"};
  int index = 0;
  for (const char* preset : presets) {
    std::ostringstream text;
    ringlab::write_topology_json(text, ringlab::make_preset_topology(preset));
    write_text(folder / fmt::format("preset-{}.json", index++), text.str());
  }
  nlohmann::json document = ringlab::to_json(ringlab::make_preset_topology("switch:2"));
  document["gamma_seconds_per_byte"] = 1e-10;
  document["footprint_curves"] = {{"link_bandwidth",
                                   {{{"footprint_bytes", 1e6}, {"value", 2e10}}, {{"footprint_bytes", 1e9}, {"value", 1e10}}}}};
  write_text(folder / "curves.json", document.dump());
  document["links"][0]["bandwidth"] = 0;
  write_text(folder / "near-zero-bandwidth.json", document.dump());
  document = ringlab::to_json(ringlab::make_preset_topology("pcie-tree,switches=2,gpus_per_switch=2"));
  document["footprint_curves"] = {{"link_bandwidth_factor",
                                   {{{"footprint_bytes", 1e6}, {"value", 1.2}}, {{"footprint_bytes", 1e9}, {"value", 0.8}}}}};
  write_text(folder / "factor-curve.json", document.dump());
  document = ringlab::to_json(ringlab::make_preset_topology("host-shm:4,cores=2"));
  document["cpu_sharing"] = {{"cpu_of_rank", {0, 1, 0, 1}}, {"written_share", 0.5}, {"waiting_rank_cost", 0.3}};
  write_text(folder / "cpu-sharing.json", document.dump());
  ringlab::Topology typed = ringlab::make_preset_topology("host-shm:2,cores=2");
  typed.set_gamma_seconds_per_byte(1e-10);
  typed.set_gamma_by_type_op({{"float32", "sum", 2e-11, 1e-10}, {"bfloat16", "max", 1.6e-10, 3e-10}});
  std::ostringstream typed_text;
  ringlab::write_topology_json(typed_text, typed);
  write_text(folder / "gamma-by-type-op.json", typed_text.str());
  document = ringlab::to_json(typed);
  document["gamma_by_type_op"][1]["in_cache_seconds_per_byte"] = 0;
  write_text(folder / "near-zero-type-op-gamma.json", document.dump());
  document = ringlab::to_json(ringlab::make_preset_topology("ring:3"));
  document["links"][1]["b"] = 7;
  write_text(folder / "near-missing-node.json", document.dump());
}

void schedule_seeds(const fs::path& folder) {
  for (const std::string& algorithm : ringlab::algorithm_names())
    for (int nranks : {2, 3, 4}) {
      const ringlab::Schedule schedule = ringlab::make_schedule(algorithm, ringlab::Collective::allreduce, nranks, {});
      write_text(folder / fmt::format("{}-{}.json", algorithm, nranks), ringlab::to_json(schedule).dump());
    }
  nlohmann::json document = ringlab::to_json(ringlab::make_schedule("ring", ringlab::Collective::reduce_scatter, 4, {}));
  write_text(folder / "ring-reduce-scatter-4.json", document.dump());
  document["ranks"][1]["steps"][0][0]["peer"] = 1;
  write_text(folder / "near-self-peer.json", document.dump());
}

void bench_option_seeds(const fs::path& folder) {
  const char* lines[] = {"-b\n8\n-e\n64M\n-f\n2", "-b\n1K\n-e\n1M\n-i\n4K\n-d\nbfloat16", "-e\n4096G",
                         "--algo\nring,interval_paired\n--root\n1\n--shards\n2", "-b\n1M\n-e\n8", "-d\nint64\n-b\n9\n-e\n9"};
  int index = 0;
  for (const char* text : lines) write_text(folder / fmt::format("options-{}.txt", index++), text);
}

// Copies tests/<directory>/<prefix>* (RINGLAB_SOURCE_DIR) into `folder`.
void fixture_seeds(const fs::path& folder, std::string_view prefix, const fs::path& directory = "values") {
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(RINGLAB_SOURCE_DIR) / "tests" / directory))
    if (entry.path().filename().string().starts_with(prefix))
      write_text(folder / entry.path().filename(), read_bytes(entry.path()));
}

void calibration_record_seeds(const fs::path& folder) { fixture_seeds(folder, "calibration_"); }
void bench_report_seeds(const fs::path& folder) { fixture_seeds(folder, "bench_"); }
// nccl-tests' text output: the good tables and one per refusal (tests/data/nccl-tests/).
void nccl_tests_seeds(const fs::path& folder) { fixture_seeds(folder, "", fs::path("data") / "nccl-tests"); }

// First byte: the range (fuzz_float_option.cpp); the rest: the option's text.
void float_option_seeds(const fs::path& folder) {
  const char* texts[] = {"0.2", "2e-3", "25e9", "-0", "1e308", "nan", "inf", "1e999", ".5", "5.", "1e", "0x10"};
  int index = 0;
  for (const char* text : texts)
    write_text(folder / fmt::format("text-{}.txt", index), std::string(1, static_cast<char>(index % 5)) + text), ++index;
}

void cifar_seeds(const fs::path& folder) {
  const std::vector<std::uint64_t> indices = {0, 1};
  training::write_cifar_file(folder / "two-records.bin", training::make_synthetic(indices, 32, 10, 7));
  const std::string bytes = read_bytes(folder / "two-records.bin");
  write_text(folder / "near-truncated.bin", bytes.substr(0, training::cifar_record_bytes + 100));
  std::string bad_label = bytes;
  bad_label[training::cifar_record_bytes] = 10;
  write_text(folder / "near-bad-label.bin", bad_label);
}

// The mini-ImageNet target reads its first byte as the geometry index (0: 84x84x3/100,
// 1: 4x4x3/10, 2: 1x1x1/2), then the file.
void mini_seed(const fs::path& folder, const std::string& name, char geometry, const training::ImageSet& set) {
  const fs::path file = folder / (name + ".tmp");
  training::write_mini_imagenet_file(file, set);
  write_text(folder / (name + ".bin"), std::string(1, geometry) + read_bytes(file));
  fs::remove(file);
}

void mini_imagenet_seeds(const fs::path& folder) {
  const std::vector<std::uint64_t> one = {0};
  const std::vector<std::uint64_t> three = {0, 1, 2};
  mini_seed(folder, "84x84-one-record", 0, training::make_synthetic(one, 84, 100, 7));
  mini_seed(folder, "4x4-three-records", 1, training::make_synthetic(three, 4, 10, 7));
  training::ImageSet tiny;
  tiny.image_size = 1;
  tiny.channels = 1;
  tiny.classes = 2;
  const std::uint8_t pixel[] = {200};
  tiny.append(0, 1, pixel);
  tiny.append(1, 0, pixel);
  mini_seed(folder, "1x1-two-records", 2, tiny);
  std::string bytes = read_bytes(folder / "4x4-three-records.bin");
  bytes[1 + 8] = 4;  // the header claims 4 records
  write_text(folder / "near-record-count.bin", bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_corpus OUTDIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  const std::pair<const char*, void (*)(const fs::path&)> targets[] = {
      {"fuzz_topology_json", topology_seeds},       {"fuzz_schedule_json", schedule_seeds},
      {"fuzz_bench_options", bench_option_seeds},   {"fuzz_cifar_reader", cifar_seeds},
      {"fuzz_miniimagenet_reader", mini_imagenet_seeds}, {"fuzz_calibration_record", calibration_record_seeds},
      {"fuzz_bench_report", bench_report_seeds},         {"fuzz_float_option", float_option_seeds},
      {"fuzz_nccl_tests_output", nccl_tests_seeds}};
  for (const auto& [name, make] : targets) {
    fs::create_directories(out / name);
    make(out / name);
    std::cout << name << ": " << std::distance(fs::directory_iterator(out / name), fs::directory_iterator()) << " seeds\n";
  }
  return 0;
}
