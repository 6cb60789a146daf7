// A lower bound on the time of any all-reduce of S bytes a rank over every endpoint of a topology,
// whatever the algorithm, as the simulator's models price transfers (a piece arrives its route's
// latency after its last byte left; docs/algorithm-map.md):
//   bound(S) = max(D, max over cuts (S / C(cut) + a(cut)))
// - a cut splits the ranks into A and B; every rank of B ends with values that depend on all of
//   A's S bytes, so at least S bytes cross from A to B, at most C(cut) bytes/s (the maximum flow
//   from A's ranks to B's over the directed links), and the last of them then takes at least
//   a(cut), the least latency of a link into a rank (out of it, for a rank's own cut out). The
//   cuts: each rank alone, in and out (C: the sum of its links' bandwidth), and the halves by index, ranks [0, N/2) and the rest, both
//   ways (the presets number ranks by locality, so that is their bisection);
// - D: the result at rank r depends on the input of every rank s, so some chain of transfers
//   runs from s to r: at least the least-latency path between them. D is the largest such path
//   from ranks 0, N/2 and N-1 (a lower bound on the latency diameter).
// Links are the only limit (limited switches and gamma are left out, which only lowers the
// bound), and ranks may relay. The closed form prices no contention, so it can fall below the
// cut terms; the flow-level model cannot.
#pragma once

#include <vector>

#include "topology/topology.hpp"

namespace ringlab::simulator {

struct Cut {
  double bytes_per_second = 0;  // C(cut)
  double latency_seconds = 0;   // a(cut)
  friend bool operator==(const Cut&, const Cut&) = default;
};

struct AllreduceLowerBound {
  std::vector<Cut> cuts;  // distinct cuts
  double latency_seconds = 0;  // D
  Cut bisection_a_to_b;   // the halves' cut, A = ranks [0, N/2)
  Cut bisection_b_to_a;

  double seconds(double bytes) const;
};

// Throws std::invalid_argument for a topology with fewer than 2 endpoints.
AllreduceLowerBound allreduce_lower_bound(const Topology& topology);

// The maximum flow in bytes/s from the endpoints of `sources` to those of `sinks` (ranks),
// over the directed links at their bandwidth, every node relaying.
double max_flow_bytes_per_second(const Topology& topology, const std::vector<int>& sources, const std::vector<int>& sinks);

}  // namespace ringlab::simulator
