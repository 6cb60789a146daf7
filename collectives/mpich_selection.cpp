#include "collectives/mpich_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>

namespace ringlab {

namespace {

using Tree = nlohmann::ordered_json;

Tree leaf(std::string_view algorithm) {
  Tree node = Tree::object();
  node[fmt::format("algorithm={}", algorithm)] = Tree::object();
  return node;
}

// One general algorithm per collective for a file written without a base tree: valid for every
// communicator size, op and buffer placement. `in_place` (if set) is the in-place variant, which
// the alltoall family needs; `inter` is empty where MPI defines no inter-communicator form.
struct GeneralChoice {
  std::string_view collective;
  std::string_view intra;
  std::string_view inter;
  std::string_view in_place = {};
};

constexpr GeneralChoice general_choices[] = {
    {"bcast", "MPIR_Bcast_intra_binomial", "MPIR_Bcast_inter_remote_send_local_bcast"},
    {"barrier", "MPIR_Barrier_intra_dissemination", "MPIR_Barrier_inter_bcast"},
    {"allgather", "MPIR_Allgather_intra_ring", "MPIR_Allgather_inter_local_gather_remote_bcast"},
    {"allgatherv", "MPIR_Allgatherv_intra_ring", "MPIR_Allgatherv_inter_remote_gather_local_bcast"},
    {"reduce", "MPIR_Reduce_intra_binomial", "MPIR_Reduce_inter_local_reduce_remote_send"},
    {"reduce_scatter", "MPIR_Reduce_scatter_intra_recursive_doubling",
     "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"},
    {"reduce_scatter_block", "MPIR_Reduce_scatter_block_intra_recursive_doubling",
     "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"},
    {"gather", "MPIR_Gather_intra_binomial", "MPIR_Gather_inter_linear"},
    {"scatter", "MPIR_Scatter_intra_binomial", "MPIR_Scatter_inter_linear"},
    {"gatherv", "MPIR_Gatherv_allcomm_linear", ""},
    {"scatterv", "MPIR_Scatterv_allcomm_linear", ""},
    {"scan", "MPIR_Scan_intra_recursive_doubling", ""},
    {"exscan", "MPIR_Exscan_intra_recursive_doubling", ""},
    {"alltoall", "MPIR_Alltoall_intra_pairwise", "MPIR_Alltoall_inter_pairwise_exchange",
     "MPIR_Alltoall_intra_pairwise_sendrecv_replace"},
    {"alltoallv", "MPIR_Alltoallv_intra_scattered", "MPIR_Alltoallv_inter_pairwise_exchange",
     "MPIR_Alltoallv_intra_pairwise_sendrecv_replace"},
    {"alltoallw", "MPIR_Alltoallw_intra_scattered", "MPIR_Alltoallw_inter_pairwise_exchange",
     "MPIR_Alltoallw_intra_pairwise_sendrecv_replace"},
    {"neighbor_allgather", "MPIR_Neighbor_allgather_allcomm_nb", ""},
    {"neighbor_allgatherv", "MPIR_Neighbor_allgatherv_allcomm_nb", ""},
    {"neighbor_alltoall", "MPIR_Neighbor_alltoall_allcomm_nb", ""},
    {"neighbor_alltoallv", "MPIR_Neighbor_alltoallv_allcomm_nb", ""},
    {"neighbor_alltoallw", "MPIR_Neighbor_alltoallw_allcomm_nb", ""},
    {"ibarrier", "MPIR_Ibarrier_intra_sched_recursive_doubling", "MPIR_Ibarrier_inter_sched_bcast"},
    {"iallreduce", "MPIR_Iallreduce_intra_sched_recursive_doubling",
     "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast"},
    {"iallgather", "MPIR_Iallgather_intra_sched_ring", "MPIR_Iallgather_inter_sched_local_gather_remote_bcast"},
    {"iallgatherv", "MPIR_Iallgatherv_intra_sched_ring", "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast"},
    {"ibcast", "MPIR_Ibcast_intra_sched_binomial", "MPIR_Ibcast_inter_sched_flat"},
    {"ireduce", "MPIR_Ireduce_intra_sched_binomial", "MPIR_Ireduce_inter_sched_local_reduce_remote_send"},
    {"ireduce_scatter", "MPIR_Ireduce_scatter_intra_sched_recursive_doubling",
     "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"},
    {"ireduce_scatter_block", "MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling",
     "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"},
    {"igather", "MPIR_Igather_intra_sched_binomial", "MPIR_Igather_inter_sched_long"},
    {"iscatter", "MPIR_Iscatter_intra_sched_binomial", "MPIR_Iscatter_inter_sched_linear"},
    {"igatherv", "MPIR_Igatherv_allcomm_sched_linear", ""},
    {"iscatterv", "MPIR_Iscatterv_allcomm_sched_linear", ""},
    {"iscan", "MPIR_Iscan_intra_sched_recursive_doubling", ""},
    {"iexscan", "MPIR_Iexscan_intra_sched_recursive_doubling", ""},
    {"ialltoall", "MPIR_Ialltoall_intra_sched_pairwise", "MPIR_Ialltoall_inter_sched_pairwise_exchange",
     "MPIR_Ialltoall_intra_sched_inplace"},
    {"ialltoallv", "MPIR_Ialltoallv_intra_sched_blocked", "MPIR_Ialltoallv_inter_sched_pairwise_exchange",
     "MPIR_Ialltoallv_intra_sched_inplace"},
    {"ialltoallw", "MPIR_Ialltoallw_intra_sched_blocked", "MPIR_Ialltoallw_inter_sched_pairwise_exchange",
     "MPIR_Ialltoallw_intra_sched_inplace"},
    {"ineighbor_allgather", "MPIR_Ineighbor_allgather_allcomm_sched_linear", ""},
    {"ineighbor_allgatherv", "MPIR_Ineighbor_allgatherv_allcomm_sched_linear", ""},
    {"ineighbor_alltoall", "MPIR_Ineighbor_alltoall_allcomm_sched_linear", ""},
    {"ineighbor_alltoallv", "MPIR_Ineighbor_alltoallv_allcomm_sched_linear", ""},
    {"ineighbor_alltoallw", "MPIR_Ineighbor_alltoallw_allcomm_sched_linear", ""},
};

Tree general_subtree(const GeneralChoice& choice) {
  Tree intra = leaf(choice.intra);
  if (!choice.in_place.empty()) {
    intra = Tree::object();
    intra["is_sendbuf_inplace=yes"] = leaf(choice.in_place);
    intra["is_sendbuf_inplace=no"] = leaf(choice.intra);
  }
  if (choice.inter.empty()) return intra;
  Tree node = Tree::object();
  node["comm_type=intra"] = std::move(intra);
  node["comm_type=inter"] = leaf(choice.inter);
  return node;
}

constexpr std::string_view recursive_doubling_name = "MPIR_Allreduce_intra_recursive_doubling";

// `algorithm` where MPICH can run it, recursive doubling where it cannot.
Tree guarded(std::string_view algorithm, std::string_view fallback) {
  Tree runnable = Tree::object();
  runnable["count<pow2"] = leaf(fallback);
  runnable["count=any"] = leaf(algorithm);
  Tree node = Tree::object();
  node["is_commutative=no"] = leaf(fallback);
  node["is_commutative=yes"] = std::move(runnable);
  return node;
}

Tree allreduce_leaf(const std::string& algorithm) {
  if (algorithm == "recursive_doubling") return leaf(recursive_doubling_name);
  if (algorithm == "halving_doubling") return guarded("MPIR_Allreduce_intra_reduce_scatter_allgather", recursive_doubling_name);
  if (algorithm == "ring") return guarded("MPIR_Allreduce_allcomm_nb", recursive_doubling_name);
  throw std::invalid_argument(fmt::format("MPICH has no all-reduce for ringlab's '{}': tune with --algo from {}",
                                          algorithm, fmt::join(mpich_allreduce_algorithms(), ",")));
}

std::string size_bound(std::int64_t next_min_bytes) {
  if (next_min_bytes > INT_MAX)
    throw std::invalid_argument(fmt::format(
        "a rule starts at {} B, beyond what MPICH's selection file holds (sizes below 2 GiB): tune with -e 1G or less",
        next_min_bytes));
  return fmt::format("avg_msg_size<{}", next_min_bytes);
}

Tree allreduce_tree(const SelectionTable& table) {
  std::map<int, std::vector<const SelectionRule*>> by_ranks;
  for (const SelectionRule& rule : table.rules)
    if (rule.collective == Collective::allreduce) by_ranks[rule.nranks].push_back(&rule);
  if (by_ranks.empty()) throw std::invalid_argument("the tuning table has no all-reduce rule to export");
  Tree by_size = Tree::object();
  std::size_t group = 0;
  for (auto& [nranks, rules] : by_ranks) {
    std::sort(rules.begin(), rules.end(), [](auto* a, auto* b) { return a->min_bytes < b->min_bytes; });
    Tree sizes = Tree::object();
    for (std::size_t i = 0; i < rules.size(); ++i)
      sizes[i + 1 < rules.size() ? size_bound(rules[i + 1]->min_bytes) : "avg_msg_size=any"] = allreduce_leaf(rules[i]->algorithm);
    // The largest rank count also serves every larger communicator.
    by_size[++group < by_ranks.size() ? fmt::format("comm_size<={}", nranks) : "comm_size=any"] = std::move(sizes);
  }
  Tree node = Tree::object();
  node["comm_type=intra"] = std::move(by_size);
  node["comm_type=inter"] = leaf("MPIR_Allreduce_inter_reduce_exchange_bcast");
  return node;
}

bool uses_ring(const SelectionTable& table) {
  return std::any_of(table.rules.begin(), table.rules.end(), [](const SelectionRule& rule) {
    return rule.collective == Collective::allreduce && rule.algorithm == "ring";
  });
}

// MPI_Iallreduce as ring wherever MPICH can run it (MPIR_Allreduce_allcomm_nb calls it).
Tree iallreduce_ring_tree() {
  Tree node = Tree::object();
  node["comm_type=intra"] = guarded("MPIR_Iallreduce_intra_tsp_ring", "MPIR_Iallreduce_intra_sched_recursive_doubling");
  node["comm_type=inter"] = leaf("MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast");
  return node;
}

}  // namespace

const std::vector<std::string>& mpich_allreduce_algorithms() {
  static const std::vector<std::string> names{"ring", "recursive_doubling", "halving_doubling"};
  return names;
}

bool has_mpich_allreduce(std::string_view algorithm) {
  const auto& names = mpich_allreduce_algorithms();
  return std::find(names.begin(), names.end(), algorithm) != names.end();
}

Tree to_mpich_selection(const SelectionTable& table, const Tree* base) {
  Tree document = Tree::object();
  if (base != nullptr) {
    if (!base->is_object()) throw std::invalid_argument("the MPICH base file must be a JSON object of \"collective=NAME\" keys");
    for (const auto& [key, value] : base->items())
      if (!value.is_object())
        throw std::invalid_argument(fmt::format("the MPICH base file's \"{}\" is not an object", key));
    document = *base;
  } else {
    document["collective=allreduce"] = Tree::object();
    for (const GeneralChoice& choice : general_choices)
      document[fmt::format("collective={}", choice.collective)] = general_subtree(choice);
  }
  document["collective=allreduce"] = allreduce_tree(table);
  if (uses_ring(table)) document["collective=iallreduce"] = iallreduce_ring_tree();
  return document;
}

}  // namespace ringlab
