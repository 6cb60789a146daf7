// judge_placement and its header line (report/rank_placement.hpp): whether a run's ranks are
// oversubscribed (more ranks than usable cores on a host) or bound (no two ranks of a host on one CPU).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "report/rank_placement.hpp"
#include "bench/src/bench_report.hpp"

namespace {

using ringlab::report::judge_placement;
using ringlab::report::placement_verdict_line;
using ringlab::report::PlacementVerdict;
using ringlab::report::RankCpus;

RankCpus rank_on(const std::string& host, std::vector<int> cpus) {
  return {ringlab::report::cpu_list(cpus), static_cast<int>(cpus.size()), host, cpus};
}

TEST(PlacementVerdict, TwoRanksBoundToOneCoreEachAreNotOversubscribed) {
  const PlacementVerdict verdict = judge_placement({rank_on("a", {0}), rank_on("a", {1})});
  EXPECT_TRUE(verdict.known);
  EXPECT_TRUE(verdict.bound);
  EXPECT_TRUE(verdict.one_core_each);
  EXPECT_FALSE(verdict.oversubscribed);
  EXPECT_EQ(verdict.ranks_per_host, 2);
  EXPECT_EQ(verdict.usable_cores, 2);
  EXPECT_EQ(placement_verdict_line(verdict, 2), "placement: 2 ranks, one core each (bound): performance figures valid");
}

TEST(PlacementVerdict, UnboundRanksWithACoreEachAreNeitherBoundNorOversubscribed) {
  const PlacementVerdict verdict = judge_placement({rank_on("a", {0, 1}), rank_on("a", {0, 1})});
  EXPECT_FALSE(verdict.bound);
  EXPECT_FALSE(verdict.oversubscribed);
  EXPECT_EQ(verdict.usable_cores, 2);
  EXPECT_THAT(placement_verdict_line(verdict, 2),
              ::testing::StartsWith("placement: 2 ranks on 2 usable cores of host a, not bound"));
}

TEST(PlacementVerdict, MoreRanksThanUsableCoresIsOversubscribedBoundOrNot) {
  // mpiexec -n 4 on 2 cores, unbound: every rank may use both.
  const PlacementVerdict unbound =
      judge_placement({rank_on("vm", {0, 1}), rank_on("vm", {0, 1}), rank_on("vm", {0, 1}), rank_on("vm", {0, 1})});
  EXPECT_TRUE(unbound.oversubscribed);
  EXPECT_FALSE(unbound.bound);
  EXPECT_EQ(unbound.ranks_per_host, 4);
  EXPECT_EQ(unbound.usable_cores, 2);
  EXPECT_EQ(placement_verdict_line(unbound, 4), "oversubscribed: 4 ranks on 2 usable cores of host vm: correctness "
                                                "and latency ordering only, not bandwidth");
  // mpiexec -n 4 -bind-to core on 2 cores: ranks 0 and 2 share CPU 0, so not bound either.
  const PlacementVerdict pinned =
      judge_placement({rank_on("vm", {0}), rank_on("vm", {1}), rank_on("vm", {0}), rank_on("vm", {1})});
  EXPECT_TRUE(pinned.oversubscribed);
  EXPECT_FALSE(pinned.bound);
}

TEST(PlacementVerdict, OverlappingMasksAreNotBoundEvenWithCoresToSpare) {
  // Three ranks on four cores, but ranks 0 and 1 may both run on CPU 1.
  const PlacementVerdict verdict = judge_placement({rank_on("a", {0, 1}), rank_on("a", {1, 2}), rank_on("a", {3})});
  EXPECT_FALSE(verdict.oversubscribed);
  EXPECT_FALSE(verdict.bound);
  EXPECT_EQ(verdict.usable_cores, 4);
  // Disjoint masks of two cores each are bound, but not one core each.
  const PlacementVerdict wide = judge_placement({rank_on("a", {0, 1}), rank_on("a", {2, 3})});
  EXPECT_TRUE(wide.bound);
  EXPECT_FALSE(wide.one_core_each);
  EXPECT_THAT(placement_verdict_line(wide, 2), ::testing::HasSubstr("their own cores each (bound)"));
}

TEST(PlacementVerdict, HostsAreJudgedApartByHostname) {
  // Two hosts, CPU 0 on each: the same CPU number on different hosts is not shared.
  const PlacementVerdict two_hosts = judge_placement({rank_on("a", {0}), rank_on("b", {0})});
  EXPECT_TRUE(two_hosts.bound);
  EXPECT_FALSE(two_hosts.oversubscribed);
  EXPECT_EQ(two_hosts.ranks_per_host, 1);
  EXPECT_EQ(two_hosts.usable_cores, 1);
  // Host b has three ranks on two cores: the job is oversubscribed and the verdict names b.
  const PlacementVerdict one_full =
      judge_placement({rank_on("a", {0}), rank_on("a", {1}), rank_on("b", {0, 1}), rank_on("b", {0, 1}),
                       rank_on("b", {0, 1})});
  EXPECT_TRUE(one_full.oversubscribed);
  EXPECT_FALSE(one_full.bound);
  EXPECT_EQ(one_full.host, "b");
  EXPECT_EQ(one_full.ranks_per_host, 3);
  EXPECT_EQ(one_full.usable_cores, 2);
}

TEST(PlacementVerdict, ThreadsOfOneProcessShareItsCpus) {
  // The threads backend: every rank reports the process's mask.
  const std::vector<RankCpus> three(3, rank_on("h", {0, 1}));
  EXPECT_TRUE(judge_placement(three).oversubscribed);
  const std::vector<RankCpus> two(2, rank_on("h", {0, 1}));
  EXPECT_FALSE(judge_placement(two).oversubscribed);
  EXPECT_FALSE(judge_placement(two).bound);
}

TEST(PlacementVerdict, UnknownCpusClaimNothing) {
  EXPECT_FALSE(judge_placement({}).known);
  const PlacementVerdict verdict = judge_placement({rank_on("a", {0}), rank_on("a", {})});
  EXPECT_FALSE(verdict.known);
  EXPECT_FALSE(verdict.bound);
  EXPECT_FALSE(verdict.oversubscribed);
  EXPECT_THAT(placement_verdict_line(verdict, 2), ::testing::HasSubstr("not known"));
}

TEST(PlacementVerdict, ReportConfigAndHeaderCarryTheVerdict) {
  ringlab::bench::BenchOptions options;
  options.algorithms = {"ring"};
  ringlab::bench::RunDescription run{"ringlab bench", "mpi", "shm", 4, {}, {}, std::nullopt, {}, {}, {}};
  EXPECT_FALSE(ringlab::bench::make_report(run, options, {}, true).at("config").contains("oversubscribed"));
  run.verdict = judge_placement(std::vector<RankCpus>(4, rank_on("vm", {0, 1})));
  const nlohmann::json config = ringlab::bench::make_report(run, options, {}, true).at("config");
  EXPECT_EQ(config.at("oversubscribed"), true);
  EXPECT_EQ(config.at("bound"), false);
  EXPECT_EQ(config.at("ranks_per_host"), 4);
  EXPECT_EQ(config.at("usable_cores"), 2);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  ringlab::bench::print_header(out, run, options);
  std::rewind(out);
  std::string header(4096, '\0');
  header.resize(std::fread(header.data(), 1, header.size(), out));
  std::fclose(out);
  EXPECT_THAT(header, ::testing::HasSubstr("\n# oversubscribed: 4 ranks on 2 usable cores of host vm: correctness"));
}

}  // namespace
