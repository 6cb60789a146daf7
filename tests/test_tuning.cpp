// `ringlab tune`'s selection table (collectives/selection_table.hpp) and search
// (simulator/tuning.hpp): lookups by range, merging, the JSON shape and its refusals, and that
// the search keeps the fastest candidate the model prices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "collectives/mpich_selection.hpp"
#include "collectives/selection_table.hpp"
#include "simulator/predictor.hpp"
#include "simulator/tuning.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

SelectionRule tuning_rule(int nranks, std::int64_t min_bytes, const std::string& algorithm, double margin = 0.5) {
  SelectionRule rule;
  rule.nranks = nranks;
  rule.min_bytes = min_bytes;
  rule.algorithm = algorithm;
  rule.segment_bytes = 1 << 20;
  rule.margin = margin;
  return rule;
}

SelectionTable two_range_table() {
  SelectionTable table;
  table.rules = {tuning_rule(4, 8, "recursive_doubling"), tuning_rule(4, 65536, "ring"), tuning_rule(8, 8, "swing")};
  return table;
}

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Tuning, RuleRangesRunToTheNextRule) {
  const SelectionTable table = two_range_table();
  EXPECT_EQ(select_rule(table, Collective::allreduce, 4, 1).algorithm, "recursive_doubling");  // below the first
  EXPECT_EQ(select_rule(table, Collective::allreduce, 4, 65535).algorithm, "recursive_doubling");
  EXPECT_EQ(select_rule(table, Collective::allreduce, 4, 65536).algorithm, "ring");
  EXPECT_EQ(select_rule(table, Collective::allreduce, 4, std::int64_t{1} << 40).algorithm, "ring");  // above the last
  EXPECT_EQ(select_rule(table, Collective::allreduce, 8, 65536).algorithm, "swing");
}

TEST(Tuning, AMissingRankCountNamesTheOnesThere) {
  EXPECT_THAT([] { select_rule(two_range_table(), Collective::allreduce, 6, 8); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("no allreduce rule for 6 ranks (it has 4, 8)")));
  EXPECT_THAT([] { select_rule(two_range_table(), Collective::allreduce, 6, 8); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("ringlab tune --ranks 6")));
}

TEST(Tuning, MergeJoinsAdjacentEqualChoicesAndKeepsTheLeastMargin) {
  const std::vector<SelectionRule> merged =
      merge_rules({tuning_rule(2, 64, "ring", 0.3), tuning_rule(2, 8, "ring", 0.1), tuning_rule(2, 128, "swing"),
                   tuning_rule(2, 256, "ring", 0.05), tuning_rule(4, 8, "ring")});
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].min_bytes, 8);
  EXPECT_DOUBLE_EQ(merged[0].margin, 0.1);
  EXPECT_EQ(merged[1].algorithm, "swing");
  EXPECT_EQ(merged[2].min_bytes, 256);
  EXPECT_EQ(merged[3].nranks, 4);  // another rank count is never merged into the one before
}

TEST(Tuning, JsonRoundTrip) {
  SelectionTable table = two_range_table();
  table.source = {{"topology", "switch:8"}};
  const SelectionTable back = selection_table_from_json(to_json(table), "t");
  ASSERT_EQ(back.rules.size(), 3u);
  EXPECT_EQ(back.rules[1].algorithm, "ring");
  EXPECT_EQ(back.rules[1].min_bytes, 65536);
  EXPECT_EQ(back.rules[1].segment_bytes, 1 << 20);
  EXPECT_EQ(back.source.at("topology"), "switch:8");
  EXPECT_EQ(describe(back), describe(table));
}

TEST(Tuning, BadTablesAreRefusedNamingThePath) {
  const nlohmann::json good = to_json(two_range_table());
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& text) {
    nlohmann::json document = good;
    edit(document);
    EXPECT_THAT([&] { selection_table_from_json(document, "t.json"); },
                ThrowsMessage<std::invalid_argument>(HasSubstr(text)));
  };
  refused([](nlohmann::json& d) { d["schema"] = "ringlab.bench/1"; }, "t.json.schema");
  refused([](nlohmann::json& d) { d["rules"][0]["algorithm"] = "bogus"; }, "t.json.rules[0].algorithm");
  refused([](nlohmann::json& d) { d["rules"][1]["min_bytes"] = -1; }, "t.json.rules[1].min_bytes");
  refused([](nlohmann::json& d) { std::swap(d["rules"][0], d["rules"][1]); }, "sorted");
  refused([](nlohmann::json& d) { d["rules"] = nlohmann::json::array(); }, "non-empty");
  refused([](nlohmann::json& d) { d["rules"][2]["nranks"] = 0; }, "t.json.rules[2].nranks");
}

// Every rule's choice is the fastest candidate the model prices at its first size, its runner-up
// the fastest other algorithm, and its margin the runner-up's time over the chosen one's.
std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

TEST(Tuning, MpichSelectionKeepsRangesInOrderWithAnyLast) {
  SelectionTable table;
  table.rules = {tuning_rule(2, 8, "recursive_doubling"), tuning_rule(2, 1024, "halving_doubling"),
                 tuning_rule(2, 1 << 20, "ring"), tuning_rule(4, 8, "halving_doubling")};
  const nlohmann::ordered_json file = to_mpich_selection(table);
  const nlohmann::ordered_json& intra = file.at("collective=allreduce").at("comm_type=intra");
  EXPECT_THAT(keys_of(intra), ::testing::ElementsAre("comm_size<=2", "comm_size=any"));
  const nlohmann::ordered_json& two = intra.at("comm_size<=2");
  // Ordered by size, not by the keys' text ("<1048576" sorts before "<1024" as a string).
  EXPECT_THAT(keys_of(two), ::testing::ElementsAre("avg_msg_size<1024", "avg_msg_size<1048576", "avg_msg_size=any"));
  EXPECT_TRUE(two.at("avg_msg_size<1024").contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"));
  const nlohmann::ordered_json& rabenseifner = two.at("avg_msg_size<1048576");
  EXPECT_TRUE(rabenseifner.at("is_commutative=no").contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"));
  EXPECT_TRUE(rabenseifner.at("is_commutative=yes").at("count<pow2").contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"));
  EXPECT_TRUE(rabenseifner.at("is_commutative=yes").at("count=any").contains("algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather"));
  EXPECT_TRUE(two.at("avg_msg_size=any").at("is_commutative=yes").at("count=any").contains("algorithm=MPIR_Allreduce_allcomm_nb"));
  // Ring runs as MPI_Iallreduce's ring; every other collective has a rule.
  EXPECT_TRUE(file.at("collective=iallreduce").at("comm_type=intra").at("is_commutative=yes").at("count=any").contains(
      "algorithm=MPIR_Iallreduce_intra_tsp_ring"));
  EXPECT_TRUE(file.contains("collective=bcast"));
  EXPECT_TRUE(file.contains("collective=ineighbor_alltoallw"));
  EXPECT_EQ(file.size(), 44u);
}

TEST(Tuning, MpichSelectionRefusesWhatMpichCannotRun) {
  SelectionTable swing;
  swing.rules = {tuning_rule(4, 8, "swing")};
  EXPECT_THAT([&] { to_mpich_selection(swing); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("MPICH has no all-reduce for ringlab's 'swing'")));
  SelectionTable huge;
  huge.rules = {tuning_rule(2, 8, "ring"), tuning_rule(2, std::int64_t{4} << 30, "recursive_doubling")};
  EXPECT_THAT([&] { to_mpich_selection(huge); }, ThrowsMessage<std::invalid_argument>(HasSubstr("below 2 GiB")));
  EXPECT_THAT([&] { to_mpich_selection(SelectionTable{}); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("no all-reduce rule")));
}

TEST(Tuning, MpichSelectionKeepsTheBaseTreeForOtherCollectives) {
  SelectionTable table;
  table.rules = {tuning_rule(2, 8, "recursive_doubling")};
  const nlohmann::ordered_json base = nlohmann::ordered_json::parse(
      R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_smp": {}}, "collective=allreduce": {"any": {}},
          "collective=barrier": {"algorithm=MPIR_Barrier_intra_smp": {}}})");
  const nlohmann::ordered_json file = to_mpich_selection(table, &base);
  EXPECT_THAT(keys_of(file), ::testing::ElementsAre("collective=bcast", "collective=allreduce", "collective=barrier"));
  EXPECT_TRUE(file.at("collective=bcast").contains("algorithm=MPIR_Bcast_intra_smp"));
  EXPECT_TRUE(file.at("collective=allreduce").at("comm_type=intra").at("comm_size=any").at("avg_msg_size=any").contains(
      "algorithm=MPIR_Allreduce_intra_recursive_doubling"));
  const nlohmann::ordered_json not_a_tree = nlohmann::ordered_json::parse(R"({"collective=bcast": 3})");
  EXPECT_THAT([&] { to_mpich_selection(table, &not_a_tree); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("\"collective=bcast\" is not an object")));
}

TEST(Tuning, TheSearchKeepsTheFastestCandidate) {
  const Topology topology = make_preset_topology("switch:8");
  simulator::TuneRequest request;
  request.model = "closed-form";
  request.gamma_seconds_per_byte = 1e-10;
  request.rank_counts = {4, 8};
  request.sizes = {8, 1024, 65536, 1 << 20, 16 << 20};
  request.algorithms = {"ring", "recursive_doubling", "halving_doubling", "interval_paired"};
  request.segment_candidates = {1 << 20};
  std::size_t calls = 0;
  const SelectionTable table =
      simulator::tune_allreduce(topology, request, [&](std::size_t done, std::size_t total) {
        ++calls;
        EXPECT_EQ(done, calls);
        EXPECT_EQ(total, 10u);
      });
  EXPECT_EQ(calls, 10u);
  const simulator::Predictor model = simulator::make_model("closed-form", topology, request.gamma_seconds_per_byte);
  for (const int nranks : request.rank_counts) {
    for (const std::int64_t bytes : request.sizes) {
      std::vector<std::pair<double, std::string>> times;
      for (const std::string& name : request.algorithms) {
        const Schedule schedule = make_schedule(name, Collective::allreduce, nranks);
        double both = 0;
        for (const Placement placement : {Placement::out_of_place, Placement::in_place})
          both += model.seconds(schedule, bytes / 4, DataType::float32, ReduceOp::sum, 0, placement);
        times.emplace_back(both, name);
      }
      std::sort(times.begin(), times.end());
      const SelectionRule& rule = select_rule(table, Collective::allreduce, nranks, bytes);
      EXPECT_EQ(rule.algorithm, times[0].second) << nranks << " ranks, " << bytes << " B";
      if (rule.min_bytes == bytes) {  // the first size of its range: prediction and runner-up from this size
        EXPECT_DOUBLE_EQ(rule.predicted_seconds * 2, times[0].first) << nranks << " ranks, " << bytes << " B";
        EXPECT_EQ(rule.runner_up, times[1].second);
      }
      EXPECT_LE(rule.margin, times[1].first / times[0].first - 1 + 1e-12);
    }
  }
  // Latency wins small, bandwidth large: the choice changes over these sizes.
  EXPECT_NE(select_rule(table, Collective::allreduce, 8, 8).algorithm,
            select_rule(table, Collective::allreduce, 8, 16 << 20).algorithm);
}

TEST(Tuning, TheSearchRefusesRankCountsTheTopologyCannotHold) {
  const Topology topology = make_preset_topology("switch:4");
  simulator::TuneRequest request;
  request.model = "closed-form";
  request.rank_counts = {8};
  request.sizes = {8};
  request.algorithms = {"ring"};
  request.segment_candidates = {0};
  EXPECT_THAT([&] { simulator::tune_allreduce(topology, request); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("8 ranks do not fit topology")));
}

}  // namespace
}  // namespace ringlab
