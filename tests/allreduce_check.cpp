#include "tests/allreduce_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "collectives/capabilities.hpp"
#include "collectives/execute.hpp"
#include "collectives/expected_values.hpp"

namespace ringlab::testing {

namespace {
constexpr std::size_t guard_bytes = 64;
constexpr std::byte guard_value{0xA5};

std::int64_t damaged_guard(std::span<const std::byte> buffer, std::size_t payload) {
  return std::count_if(buffer.begin() + static_cast<std::ptrdiff_t>(payload), buffer.end(),
                       [](std::byte b) { return b != guard_value; });
}
}  // namespace

namespace {
std::vector<Implementation> every_implementation(int nranks, bool with_native) {
  std::vector<Implementation> list = {
      {"parameter_server", {0, 1}, "parameter_server", ""},
      {"parameter_server", {nranks - 1, nranks}, "parameter_server_sharded", ""},
      {"ring", {}, "ring", ""},
      {"interval_paired", {}, "interval_paired", ""},
      {"halving_doubling", {}, "halving_doubling", ""},
      {"recursive_doubling", {}, "recursive_doubling", ""},
      {"swing", {}, "swing", ""},
      {"swing_latency", {}, "swing_latency", ""},
      {"bine", {}, "bine", "swing"},
      {"bruck", {}, "bruck", "interval_paired"},
      {"bruck_bounded", {0, 1, 0, "ring", 0, 0, 2}, "bruck_bounded_b2", "bruck"},
      {"double_binary_tree", {}, "double_binary_tree", ""},
      // Groups of 2 and interval_paired across them, whose wrapping ranges become two ops each.
      {"hierarchical", {0, 1, 2, "interval_paired"}, "hierarchical", "interval_paired"},
      // Nodes of 2, 3 channels, 2 slices: per-channel orders and slices one step apart.
      {"nccl_ring", {0, 1, 2, "ring", 3, 2}, "nccl_ring", ""},
      {"nccl_tree", {0, 1, 2, "ring", 0, 3}, "nccl_tree", ""},
  };
  // One node of N, 3 channels over two rings (descending, then evens before odds).
  AlgorithmOptions rings{0, 1, 0, "ring", 3, 2};
  rings.node_rings.resize(2);
  for (int rank = 0; rank < nranks; ++rank) rings.node_rings[0].push_back((nranks - rank) % nranks);
  for (int rank = 0; rank < nranks; rank += 2) rings.node_rings[1].push_back(rank);
  for (int rank = 1; rank < nranks; rank += 2) rings.node_rings[1].push_back(rank);
  list.push_back({"nccl_ring", rings, "nccl_ring_node_rings", ""});
  if (with_native) list.push_back({std::string(mpi_native), {}, "mpi_native", ""});
  return list;
}

bool repeats_its_twin(const Implementation& implementation, int nranks) {
  if (implementation.twin.empty()) return false;
  const Schedule mine = make_schedule(implementation.name, Collective::allreduce, nranks, implementation.options);
  const Schedule twin = make_schedule(implementation.twin, Collective::allreduce, nranks);
  for (int rank = 0; rank < nranks; ++rank)
    if (mine.program(rank).steps != twin.program(rank).steps) return false;
  return mine.nchunks == twin.nchunks;
}
}  // namespace

std::vector<Implementation> implementations(int nranks, bool with_native) {
  std::vector<Implementation> list = every_implementation(nranks, with_native);
  std::erase_if(list, [&](const Implementation& implementation) { return repeats_its_twin(implementation, nranks); });
  return list;
}

std::vector<std::string> implementation_labels() {
  std::vector<std::string> names;
  for (const Implementation& implementation : every_implementation(4, false)) names.push_back(implementation.label);
  return names;
}

Implementation implementation_for(const std::string& label, int nranks) {
  for (const Implementation& candidate : implementations(nranks, true))
    if (candidate.label == label) return candidate;
  return {};
}

std::int64_t large_test_count() {
  // tests/CMakeLists.txt sets RINGLAB_TEST_LARGE_COUNT per test to keep CI short.
  if (const char* value = std::getenv("RINGLAB_TEST_LARGE_COUNT")) return std::max<std::int64_t>(1, std::atoll(value));
  return (std::int64_t{1} << 20) + 3;
}

std::vector<std::int64_t> test_counts(int nranks) {
  std::vector<std::int64_t> counts = {0, 1, nranks - 1, nranks, nranks + 1, 1009, large_test_count()};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<std::pair<DataType, ReduceOp>> test_type_ops() {
  std::vector<std::pair<DataType, ReduceOp>> pairs;
  const char* listed = std::getenv("RINGLAB_TEST_TYPE_OPS");
  if (listed == nullptr || *listed == '\0') {
    for (DataType type : all_data_types)
      for (ReduceOp op : all_reduce_ops) pairs.emplace_back(type, op);
    return pairs;
  }
  std::string_view rest(listed);
  while (!rest.empty()) {
    const std::string_view entry = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), entry.size() + 1));
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos)
      throw std::invalid_argument(fmt::format("RINGLAB_TEST_TYPE_OPS: '{}' is not TYPE:OP (e.g. float32:sum)", entry));
    pairs.emplace_back(parse_data_type(entry.substr(0, colon)), parse_reduce_op(entry.substr(colon + 1)));
  }
  return pairs;
}

namespace {

// A host view of a buffer: the buffer itself for host memory; for device memory a host copy,
// written back with store() and refreshed with load() (the backend's DeviceData::copy both ways).
class HostView {
 public:
  HostView(Communicator& comm, CommBuffer& buffer, std::size_t bytes)
      : comm_(comm), buffer_(buffer), bytes_(bytes), copy_(buffer.on_device() ? bytes : 0) {}
  std::span<std::byte> bytes() { return buffer_.on_device() ? std::span(copy_) : buffer_.bytes().first(bytes_); }
  void store() {
    if (buffer_.on_device()) data_work(comm_).copy(buffer_.bytes().data(), copy_.data(), bytes_);
  }
  void load() {
    if (buffer_.on_device()) data_work(comm_).copy(copy_.data(), buffer_.bytes().data(), bytes_);
  }

 private:
  Communicator& comm_;
  CommBuffer& buffer_;
  std::size_t bytes_;
  std::vector<std::byte> copy_;
};

}  // namespace

CaseResult run_allreduce_case(Communicator& comm, const Implementation& implementation, DataType type, ReduceOp op,
                              std::int64_t count, bool in_place, std::size_t segment_bytes, bool backend_buffers) {
  const std::size_t bytes = checked_byte_count(count, type);
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  auto allocate = [&] {
    return backend_buffers ? collective_buffer(comm, bytes + guard_bytes, deadline)
                           : make_heap_buffer(bytes + guard_bytes, "test");
  };
  const std::unique_ptr<CommBuffer> input_buffer = allocate();
  const std::unique_ptr<CommBuffer> output_buffer = allocate();
  HostView input(comm, *input_buffer, bytes + guard_bytes);
  HostView output(comm, *output_buffer, bytes + guard_bytes);
  for (HostView* view : {&input, &output}) {
    std::fill(view->bytes().begin(), view->bytes().end(), guard_value);
    view->store();
  }
  std::vector<std::byte> expected(bytes + 1);
  fill_input(input.bytes().data(), count, type, op, comm.rank(), comm.size());
  input.store();
  fill_expected_allreduce(expected.data(), count, type, op, comm.size());
  PreparedCollective prepared(implementation.name, Collective::allreduce, implementation.options, comm.size(),
                              comm.rank());
  ExecuteOptions options;
  options.segment_bytes = segment_bytes;
  options.timeout = std::chrono::seconds(120);
  std::byte* result = (in_place ? input_buffer : output_buffer)->bytes().data();
  prepared.run(comm, input_buffer->bytes().data(), result, count, type, op, options);
  data_work(comm).synchronize();
  input.load();
  output.load();
  CaseResult outcome;
  outcome.wrong = count_mismatches((in_place ? input : output).bytes().data(), expected.data(), count, type);
  outcome.guard_damaged = damaged_guard(input.bytes(), bytes) + damaged_guard(output.bytes(), bytes);
  if (!in_place) {
    // Out-of-place must leave the input untouched.
    std::vector<std::byte> original(bytes + 1);
    fill_input(original.data(), count, type, op, comm.rank(), comm.size());
    if (bytes > 0 && std::memcmp(original.data(), input.bytes().data(), bytes) != 0) outcome.wrong += 1;
  }
  return outcome;
}

}  // namespace ringlab::testing
