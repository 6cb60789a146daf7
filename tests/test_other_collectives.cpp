// Reduce-scatter, all-gather and broadcast schedules executed on the threads backend.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <mutex>
#include <tuple>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/expected_values.hpp"

namespace ringlab {
namespace {

using CollectiveParam = std::tuple<std::string, Collective, int>;  // algorithm, collective, N

std::vector<CollectiveParam> cases() {
  std::vector<CollectiveParam> list;
  for (const AlgorithmInfo& info : algorithms())
    for (Collective collective : info.collectives)
      if (collective != Collective::allreduce)
        for (int nranks : {1, 2, 3, 5, 8}) list.emplace_back(std::string(info.name), collective, nranks);
  return list;
}

class OtherCollectivesThreads : public ::testing::TestWithParam<CollectiveParam> {};

TEST_P(OtherCollectivesThreads, ResultMatchesDefinition) {
  const auto& [algorithm, collective, nranks] = GetParam();
  const int root = nranks - 1;
  for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{nranks + 1}, std::int64_t{100003}}) {
    std::mutex mutex;
    std::vector<std::string> failures;
    run_threads(nranks, [&](Communicator& comm) {
      PreparedCollective prepared(algorithm, collective, {root, 1}, nranks, comm.rank());
      const auto size = static_cast<std::size_t>(count);
      std::vector<std::int32_t> buffer(size);
      fill_input(buffer.data(), count, DataType::int32, ReduceOp::sum, comm.rank(), nranks);
      std::vector<std::int32_t> expected(size);
      const std::int64_t chunks = prepared.plan().nchunks;
      const ChunkRange mine = block_of(comm.rank(), nranks, chunks);
      const std::int64_t first = chunk_start(mine.begin, count, chunks);
      const std::int64_t last = chunk_start(mine.end, count, chunks);
      switch (collective) {
        case Collective::reduce_scatter:
          fill_expected_allreduce(expected.data(), count, DataType::int32, ReduceOp::sum, nranks);
          break;
        case Collective::allgather:
          // Element i comes from the rank that owns it.
          for (std::int64_t i = 0; i < count; ++i) {
            int owner = 0;
            while (chunk_start(block_of(owner, nranks, chunks).end, count, chunks) <= i) ++owner;
            expected[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(input_value(ReduceOp::sum, owner, nranks, i));
          }
          break;
        default:
          fill_input(expected.data(), count, DataType::int32, ReduceOp::sum, root, nranks);
          break;
      }
      prepared.run(comm, buffer.data(), buffer.data(), count, DataType::int32, ReduceOp::sum, {});
      const std::int64_t begin = collective == Collective::reduce_scatter ? first : 0;
      const std::int64_t end = collective == Collective::reduce_scatter ? last : count;
      for (std::int64_t i = begin; i < end; ++i)
        if (buffer[static_cast<std::size_t>(i)] != expected[static_cast<std::size_t>(i)]) {
          const std::lock_guard lock(mutex);
          failures.push_back(fmt::format("count {} rank {} element {}: got {}, expected {}", count, comm.rank(), i,
                                         buffer[static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)]));
          break;
        }
    });
    for (const std::string& failure : failures) ADD_FAILURE() << failure;
  }
}

INSTANTIATE_TEST_SUITE_P(OtherCollectivesThreads, OtherCollectivesThreads, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<CollectiveParam>& param_info) {
                           return fmt::format("{}_{}_N{}", std::get<0>(param_info.param), name_of(std::get<1>(param_info.param)),
                                              std::get<2>(param_info.param));
                         });

}  // namespace
}  // namespace ringlab
