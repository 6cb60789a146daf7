#include "tests/closed_forms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ringlab {

int log2_ceil(int n) { return n <= 1 ? 0 : static_cast<int>(std::ceil(std::log2(n) - 1e-12)); }
int log2_floor(int n) { return static_cast<int>(std::floor(std::log2(n) + 1e-12)); }

namespace {
// A nested_intervals schedule of `rounds` rounds a phase on N = n ranks: every rank sends N-1
// blocks a phase (interval_paired, bruck and bruck_bounded differ only in the rounds). No broadcast.
std::optional<ClosedForm> nested_intervals_form(Collective collective, int rounds, double n) {
  switch (collective) {
    case Collective::allreduce: return ClosedForm{2 * rounds, 2 * (n - 1) / n, 2.0 * rounds, 2 * (n - 1) / n, (n - 1) / n};
    case Collective::reduce_scatter: return ClosedForm{rounds, (n - 1) / n, 1.0 * rounds, (n - 1) / n, (n - 1) / n};
    case Collective::allgather: return ClosedForm{rounds, (n - 1) / n, 1.0 * rounds, (n - 1) / n, 0};
    case Collective::broadcast: break;
  }
  return std::nullopt;
}
}  // namespace

ClosedForm closed_form(std::string_view algorithm, Collective collective, int nranks, const AlgorithmOptions& options) {
  const double n = nranks;
  if (nranks == 1) return {};
  if (algorithm == "ring") {
    switch (collective) {
      case Collective::allreduce: return {2 * (nranks - 1), 2 * (n - 1) / n, 2 * (n - 1), 2 * (n - 1) / n, (n - 1) / n};
      case Collective::reduce_scatter: return {nranks - 1, (n - 1) / n, n - 1, (n - 1) / n, (n - 1) / n};
      case Collective::allgather: return {nranks - 1, (n - 1) / n, n - 1, (n - 1) / n, 0};
      case Collective::broadcast: return {2 * nranks - 2, 1, 2 * n - 2, (2 * n - 2) / n, 0};
    }
  }
  // bruck is nested_intervals with other window sizes: the same steps and bytes at every N.
  if (algorithm == "interval_paired" || algorithm == "bruck")
    if (const auto form = nested_intervals_form(collective, log2_ceil(nranks), n)) return *form;
  if (algorithm == "bruck_bounded") {
    // Doubling while the window is at most B (d steps), then B blocks a step up to N.
    const int block_limit = std::max(options.step_blocks, 1);
    const int doublings = std::min(log2_floor(block_limit) + 1, log2_ceil(nranks));
    const int doubled = std::min(1 << doublings, nranks);
    if (const auto form = nested_intervals_form(
            collective, doublings + (nranks - doubled + block_limit - 1) / block_limit, n))
      return *form;
  }
  if (algorithm == "nccl_ring") {
    // C rings of L slices one step apart: the ring's bytes, 2(N-1) + L - 1 steps.
    const int slices = options.pipeline > 0 ? options.pipeline : 1;
    const int steps = 2 * (nranks - 1) + slices - 1;
    return {steps, 2 * (n - 1) / n, 1.0 * steps, 2 * (n - 1) / n, (n - 1) / n};
  }
  if (algorithm == "nccl_tree") {
    // Chains of G, double binary tree over M = N/G nodes, S segments a tree (a chunk, n/(2S),
    // each). Height H: G + 2K - 2 (G, M >= 2: the chain, then 2 a node level through local 1),
    // G - 1 (one node), K (G = 1), K = ceil(log2 M). Sent (n/2 a tree up and to each child): a
    // chain middle sends n; a node's head or local 1 also its node links, 2.5 n once a node has a
    // parent and a child in one tree (M >= 4, or M = 3 with G >= 3); G = 1 is double_binary_tree's.
    // A step moves at most 6 chunks into or out of a rank (per tree one segment up, two down) and
    // reduces at most 4.
    const int segments = options.pipeline > 0 ? options.pipeline : 8;
    const int group_size = options.group_size > 0 ? hierarchical_group_size(nranks, options.group_size) : nranks;
    const int nodes = nranks / group_size;
    const int levels = log2_ceil(nodes);
    const int height = group_size == 1 ? levels : (nodes == 1 ? group_size - 1 : group_size + 2 * levels - 2);
    const int steps = segments - 1 + 2 * height;
    double sent = 0;
    if (group_size == 1) sent = nodes == 2 ? 1 : (nodes == 3 ? 1.5 : 2);
    else if (nodes == 1) sent = group_size == 2 ? 1 : 2;
    else if (nodes == 2 || (nodes == 3 && group_size == 2)) sent = 2;
    else sent = 2.5;
    const double chunk = 1.0 / (2 * segments);
    ClosedForm form{steps, sent, 1.0 * steps, 6 * chunk * steps, 4 * chunk * steps};
    form.exact_path = false;
    form.min_step_beta = chunk;
    return form;
  }
  if (algorithm == "double_binary_tree") {
    // S segments a tree (--pipeline, default 4), a chunk (n/2S) each. Sent: per tree n/2 to the
    // parent and to each child; two children in one tree means a leaf in the other (2n), only from
    // N = 4. A step moves at most 4 chunks into or out of a rank and reduces at most 2; the
    // segment-0 chain up to the root and down to the deepest leaf, then segments 1..S-1 into it,
    // has a transfer in every step.
    const int segments = options.pipeline > 0 ? options.pipeline : 4;
    const int steps = segments - 1 + 2 * log2_ceil(nranks);
    const double chunk = 1.0 / (2 * segments);
    ClosedForm form{steps, nranks == 2 ? 1 : (nranks == 3 ? 1.5 : 2), 1.0 * steps, 4 * chunk * steps, 2 * chunk * steps};
    form.exact_path = false;
    form.min_step_beta = chunk;
    return form;
  }
  if (algorithm == "hierarchical") {
    // The ring's reduce-scatter and all-gather in groups of G, then the inner all-reduce at
    // M = N/G ranks on n/G (a rank's block).
    const int group_size = hierarchical_group_size(nranks, options.group_size);
    const double g = group_size;
    AlgorithmOptions inner_options;
    inner_options.shards = std::min(options.shards, nranks / group_size);
    const ClosedForm inner = closed_form(options.inner, Collective::allreduce, nranks / group_size, inner_options);
    ClosedForm form{2 * (group_size - 1) + inner.steps, 2 * (g - 1) / g + inner.sent / g, 2 * (g - 1) + inner.alphas,
                    2 * (g - 1) / g + inner.beta / g, (g - 1) / g + inner.gamma / g};
    form.exact_path = inner.exact_path;
    form.min_step_beta = group_size > 1 ? std::min(1 / g, inner.min_step_beta / g) : inner.min_step_beta;
    return form;
  }
  if (algorithm == "parameter_server") {
    const double k = options.shards;
    switch (collective) {
      case Collective::allreduce: return {2, (n + k - 2) / k, 2, 2 * (n - 1) / k, (n - 1) / k};
      case Collective::reduce_scatter: return {1, (n - 1) / n, 1, (n - 1) / n, (n - 1) / n};
      case Collective::allgather: return {1, (n - 1) / n, 1, (n - 1) / n, 0};
      case Collective::broadcast: return {1, n - 1, 1, n - 1, 0};
    }
  }
  const int power = 1 << log2_floor(nranks);
  const double p = power;
  const double levels = log2_floor(nranks);
  const double fold = power == nranks ? 0 : 1;
  // swing, bine and swing_latency pair other ranks but cost what halving_doubling and recursive_doubling do.
  if (algorithm == "halving_doubling" || algorithm == "swing" || algorithm == "bine")
    return {static_cast<int>(2 * levels + 2 * fold), 2 * (p - 1) / p + fold, 2 * levels + 2 * fold,
            2 * (p - 1) / p + 2 * fold, (p - 1) / p + fold};
  if (algorithm == "swing_latency") return {static_cast<int>(levels + 2 * fold), levels + fold, levels + 2 * fold, levels + 2 * fold, levels + fold};
  if (algorithm == "recursive_doubling") {
    if (collective == Collective::broadcast) {
      const double rounds = log2_ceil(nranks);
      return {static_cast<int>(rounds), rounds, rounds, rounds, 0};
    }
    return {static_cast<int>(levels + 2 * fold), levels + fold, levels + 2 * fold, levels + 2 * fold, levels + fold};
  }
  ADD_FAILURE() << "no closed form for " << algorithm;
  return {};
}

}  // namespace ringlab
