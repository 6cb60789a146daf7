#include "simulator/flow_level.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>

#include "simulator/event_calendar.hpp"
#include "simulator/flow_orbits.hpp"
#include "simulator/flow_routes.hpp"
#include "simulator/job_footprint.hpp"
#include "simulator/max_min.hpp"
#include "simulator/max_min_update.hpp"
#include "simulator/resource_flows.hpp"
#include "simulator/schedule_walk.hpp"
#include "simulator/scratch_receives.hpp"

namespace ringlab::simulator {

namespace {

enum class EventKind : std::uint8_t { piece_sent, piece_arrived, step_done, reduction_done };

struct Event {  // its time is its bucket's (event_calendar.hpp)
  EventKind kind = EventKind::piece_sent;
  std::int32_t subject = 0;  // piece_sent: the flow; piece_arrived: the receiver; step_done: the rank
  std::int32_t slot = 0;     // piece_arrived: the receiver's slot
  std::int32_t sender = 0;   // piece_arrived
  std::uint32_t version = 0; // piece_sent: the flow's rate version it was computed with
};

// The pieces of one op: its element ranges (one, or two when the chunk range wraps), each cut
// into pieces of at most piece_elements, as the executor's append_pieces does.
struct PieceCursor {
  std::int64_t range_elements[2] = {0, 0};
  int nranges = 0;
  int range = 0;
  std::int64_t started = 0;  // elements of the current range already handed out
  std::int64_t piece_elements = 1;

  std::int64_t elements() const { return range_elements[0] + range_elements[1]; }
  int count() const {
    std::int64_t pieces = 0;
    for (int r = 0; r < nranges; ++r)
      if (range_elements[r] > 0) pieces += (range_elements[r] - 1) / piece_elements + 1;
    return static_cast<int>(pieces);
  }
  // Elements of the next piece, 0 when there is none.
  std::int64_t next() {
    for (; range < nranges; ++range, started = 0) {
      if (started < range_elements[range]) {
        const std::int64_t elements = std::min(piece_elements, range_elements[range] - started);
        started += elements;
        return elements;
      }
    }
    return 0;
  }
};

struct Flow {
  int source = 0;
  int destination = 0;
  int step = 0;
  FlowRoute route;
  PieceCursor pieces;
  int piece = 0;          // index of the piece in flight
  int first_slot = 0;     // the receiver's slot of piece 0
  double remaining = 0;   // bytes of the piece in flight not yet sent
  double rate = 0;        // bytes/s
  double updated_at = 0;  // when remaining was last brought up to date
  std::uint32_t version = 0;
  double start_seconds = 0;
  double bytes = 0;
  double piece_start_seconds = 0;  // when its current piece's first byte left
};

struct Slot {
  double reduce_bytes = 0;  // bytes reduced as they arrive (0: a plain receive, or one landed in scratch)
  bool in_place = false;    // reduced in place (a = a (op) b), at the in-place gamma
  double first_byte = 0;    // when its first byte arrived
  double arrival = 0;
  bool arrived = false;
};

struct WaitingReceive {  // a receive whose sender has not entered the step yet
  int receiver = 0;
  int step = 0;
  Op op;
  int first_slot = 0;
};

struct RankState {
  int step = -1;
  bool finished = false;
  bool end_scheduled = false;
  std::int64_t pending_send_pieces = 0;
  std::vector<Slot> slots;
  std::size_t next_slot = 0;  // the next slot to reduce
  double cpu_free = 0;        // when the rank's last reduction ends
  // What the executor does with the step's scratch receives once they arrived, in gamma x bytes:
  // copy_cost_ratio x a plain receive's bytes plus an out-of-place reducing receive's bytes; and
  // in in-place gamma x bytes, an in-place reducing receive's bytes.
  double scratch_work_bytes = 0;
  double scratch_in_place_bytes = 0;
  double step_start = 0;
};

class Simulation {
 public:
  // With orbits, the representatives alone (flow_orbits.hpp).
  Simulation(FlowRoutes& routes, double gamma, const FlowLevelOptions& options, const Schedule& schedule,
             std::int64_t count, DataType type, Placement placement, const RankOrbits* orbits = nullptr)
      : orbits_(orbits),
        routes_(routes),
        gamma_(gamma),
        in_place_gamma_(in_place_gamma(routes.topology(), gamma)),
        options_(options),
        schedule_(schedule),
        count_(count),
        element_bytes_(static_cast<double>(element_size(type))),
        piece_elements_(options.segment_bytes == 0
                            ? std::numeric_limits<std::int64_t>::max()
                            : std::max<std::int64_t>(1, options.segment_bytes / static_cast<std::int64_t>(element_size(type)))),
        ranks_(static_cast<std::size_t>(orbits != nullptr ? orbits->stride : schedule.nranks)),
        waiting_(ranks_.size()),
        resource_flows_(static_cast<std::size_t>(routes.num_resources())),
        resource_seen_(static_cast<std::size_t>(routes.num_resources()), 0),
        resource_local_(static_cast<std::size_t>(routes.num_resources()), -1) {
    routes_prefetched_.assign(static_cast<std::size_t>(schedule.nranks), 0);
    if (schedule.circulant) send_offsets_ = send_peers(schedule.programs.front());
    set_up_cpu_sharing();
    if (const std::optional<double> ratio = routes_.topology().copy_cost_ratio(); ratio && *ratio > 0)
      copy_cost_ratio_ = *ratio;
    if (copy_cost_ratio_ > 0 || in_place_gamma_ != gamma_)
      plans_.emplace(schedule.nranks, count, schedule.nchunks, piece_elements_, placement);
    if (const std::optional<std::int64_t> fragment = routes_.topology().receive_fragment_bytes())
      fragment_bytes_ = static_cast<double>(*fragment);
    if (options.local_max_min && orbits_ == nullptr && sharing_ == nullptr && !options.record_trace) {
      update_.emplace(resource_flows_.size());
      shared_.route = [this](int index) { return routes_.resources(flows_[static_cast<std::size_t>(index)].route); };
      shared_.rate = [this](int index) { return flows_[static_cast<std::size_t>(index)].rate; };
      shared_.capacities = routes_.capacities();
      shared_.flows_on = [this](std::int32_t resource) {
        return resource_flows_[static_cast<std::size_t>(resource)].flows();
      };
    }
  }

  // When a piece's reduction ends, the previous one having ended at cpu_free. Reduced whole once
  // it arrived; with receive fragments, fragment by fragment as they land, so no sooner than its
  // whole reduction after its first byte arrived, nor than one fragment's after its last.
  double reduction_end(double cpu_free, const Slot& piece, double gamma) const {
    const double work = gamma * piece.reduce_bytes;
    if (fragment_bytes_ <= 0 || piece.reduce_bytes <= 0) return std::max(cpu_free, piece.arrival) + work;
    return std::max(std::max(cpu_free, piece.first_byte) + work,
                    piece.arrival + gamma * std::min(fragment_bytes_, piece.reduce_bytes));
  }

  // Ranks that share CPUs (Topology::cpu_sharing): which resources are links at a rank's endpoint.
  void set_up_cpu_sharing() {
    const std::optional<CpuSharing>& sharing = routes_.topology().cpu_sharing();
    if (!sharing) return;
    const Topology& topology = routes_.topology();
    sharing_ = &*sharing;
    const int cpus = *std::max_element(sharing->cpu_of_rank.begin(), sharing->cpu_of_rank.end()) + 1;
    busy_on_cpu_.assign(static_cast<std::size_t>(cpus), 0);
    ranks_on_cpu_.assign(static_cast<std::size_t>(cpus), 0);
    for (std::size_t rank = 0; rank < ranks_.size(); ++rank)  // the ranks the schedule runs
      ++ranks_on_cpu_[static_cast<std::size_t>(sharing->cpu_of_rank[rank])];
    flows_of_rank_.assign(ranks_.size(), 0);
    rank_busy_.assign(ranks_.size(), 0);
    ranks_of_resource_.assign(static_cast<std::size_t>(topology.num_directed_links()), {-1, -1});
    links_of_cpu_.assign(static_cast<std::size_t>(cpus), {});
    for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
      const DirectedLink& link = topology.directed_link(id);
      std::array<int, 2>& ranks = ranks_of_resource_[static_cast<std::size_t>(id)];
      ranks = {topology.rank_of(link.from), topology.rank_of(link.to)};
      for (int rank : ranks)
        if (rank >= 0 && rank < schedule_.nranks)
          links_of_cpu_[static_cast<std::size_t>(sharing->cpu_of_rank[static_cast<std::size_t>(rank)])].push_back(id);
    }
  }

  // What a rank's written bandwidth is multiplied by (and its gamma divided by) now: the share
  // of a core it gets with the busy and waiting ranks of its CPU, over the written share.
  double core_factor(int rank) const {
    const auto cpu = static_cast<std::size_t>(sharing_->cpu_of_rank[static_cast<std::size_t>(rank)]);
    const int busy = std::max(1, busy_on_cpu_[cpu]);
    const double share = 1 / (busy + sharing_->waiting_rank_cost * (ranks_on_cpu_[cpu] - busy));
    return share / sharing_->written_share;
  }

  double capacity(std::int32_t resource) const {
    const double written = routes_.capacity(resource);
    if (sharing_ == nullptr || routes_.is_switch(resource)) return written;
    double factor = std::numeric_limits<double>::infinity();
    for (int rank : ranks_of_resource_[static_cast<std::size_t>(resource)])
      if (rank >= 0 && rank < schedule_.nranks) factor = std::min(factor, core_factor(rank));
    return std::isfinite(factor) ? written * factor : written;
  }

  // A rank is busy while it has a flow or a reduction to finish (or `starts_reducing`); when it
  // becomes busy or waits again, the links of every rank on its CPU change capacity.
  void update_busy(int rank, double now, bool starts_reducing = false) {
    if (sharing_ == nullptr) return;
    const bool busy = starts_reducing || flows_of_rank_[static_cast<std::size_t>(rank)] > 0 ||
                      ranks_[static_cast<std::size_t>(rank)].cpu_free > now;
    auto& was_busy = rank_busy_[static_cast<std::size_t>(rank)];
    if (busy == static_cast<bool>(was_busy)) return;
    was_busy = busy;
    const auto cpu = static_cast<std::size_t>(sharing_->cpu_of_rank[static_cast<std::size_t>(rank)]);
    busy_on_cpu_[cpu] += busy ? 1 : -1;
    for (DirectedLinkId link : links_of_cpu_[cpu])
      if (!resource_flows_[static_cast<std::size_t>(link)].empty()) dirty_.push_back(link);
  }

  void count_flow(int rank, int delta, double now) {
    if (sharing_ == nullptr) return;
    flows_of_rank_[static_cast<std::size_t>(rank)] += delta;
    update_busy(rank, now);
  }

  // The gamma a reduction `rank` starts now costs, in place or out of place.
  double gamma_of(int rank, bool in_place = false) const {
    const double gamma = in_place ? in_place_gamma_ : gamma_;
    return sharing_ == nullptr ? gamma : gamma / core_factor(rank);
  }

  FlowPrediction run() {
    FlowPrediction result;
    result.prediction.steps = schedule_.num_steps();
    for (std::size_t rank = 0; rank < ranks_.size(); ++rank) enter_step(static_cast<int>(rank), 0, 0.0);
    rebalance(0.0);
    sample_loads(0.0);
    std::int64_t total_rank_steps = 0;  // counted only for progress reports
    if (options_.progress)
      for (std::size_t rank = 0; rank < ranks_.size(); ++rank)
        total_rank_steps += static_cast<std::int64_t>(program_of(schedule_, static_cast<int>(rank)).steps.size());
    std::int64_t next_progress = progress_events;
    while (!events_.empty()) {
      const double now = events_.earliest();
      while (!events_.empty() && events_.earliest() == now)
        result.events += events_.handle_earliest([this](const Event& event, double time) { handle(event, time); });
      rebalance(now);
      sample_loads(now);
      if (options_.progress && result.events >= next_progress) {
        next_progress = result.events + progress_events;
        options_.progress(static_cast<double>(finished_rank_steps_) / static_cast<double>(std::max<std::int64_t>(1, total_rank_steps)));
      }
    }
    check_finished();
    sample_loads(std::numeric_limits<double>::quiet_NaN());  // nothing left: the last samples fall to 0
    result.prediction.rank_finish_seconds.reserve(static_cast<std::size_t>(schedule_.nranks));
    for (int rank = 0; rank < schedule_.nranks; ++rank)
      result.prediction.rank_finish_seconds.push_back(ranks_[representative(rank)].step_start);
    result.prediction.seconds = ranks_.empty() ? 0.0
                                               : *std::max_element(result.prediction.rank_finish_seconds.begin(),
                                                                   result.prediction.rank_finish_seconds.end());
    collect_loads(result);
    result.trace = std::move(trace_);
    result.trace_truncated = trace_truncated_;
    result.load_samples = std::move(load_samples_);
    result.transfers = transfers_;
    if (update_) {
      result.local_solves = update_->local_solves();
      result.declined_local = update_->declined();
    }
    return result;
  }

 private:
  // The rank whose state stands for `rank`'s: itself, or its orbit's representative.
  std::size_t representative(int rank) const {
    return static_cast<std::size_t>(orbits_ != nullptr ? rank % orbits_->stride : rank);
  }
  // The resource whose state stands for `resource`'s, and how many flows of an orbit one crossing is.
  std::int32_t resource_class(std::int32_t resource) const {
    return orbits_ != nullptr ? orbits_->canonical[static_cast<std::size_t>(resource)] : resource;
  }
  double crossing_weight(std::int32_t resource) const {
    return orbits_ != nullptr ? orbits_->weight[static_cast<std::size_t>(resource)] : 1.0;
  }

  void schedule(double time, const Event& event) { events_.add(time, event); }

  PieceCursor pieces_of(const Op& op) const {
    PieceCursor cursor;
    cursor.piece_elements = piece_elements_;
    const ChunkRange chunks = op.chunks;
    const std::int64_t nchunks = schedule_.nchunks;
    if (chunks.end <= nchunks) {
      cursor.range_elements[0] = chunk_start(chunks.end, count_, nchunks) - chunk_start(chunks.begin, count_, nchunks);
      cursor.nranges = 1;
    } else {
      cursor.range_elements[0] = count_ - chunk_start(chunks.begin, count_, nchunks);
      cursor.range_elements[1] = chunk_start(chunks.end - nchunks, count_, nchunks);
      cursor.nranges = 2;
    }
    return cursor;
  }

  // --trace: a sample for every resource rebalance touched whose summed flow rate changed since
  // its last sample; `now` NaN at the end, when every resource still above 0 falls to 0.
  void sample_loads(double now) {
    if (!options_.record_trace) return;
    if (sampled_rate_.empty()) sampled_rate_.assign(resource_flows_.size(), 0.0);
    const bool at_end = std::isnan(now);
    if (at_end) {
      now = last_sample_seconds_;
      touched_.clear();
      for (std::size_t resource = 0; resource < sampled_rate_.size(); ++resource)
        if (sampled_rate_[resource] != 0) touched_.push_back(static_cast<std::int32_t>(resource));
    }
    last_sample_seconds_ = now;
    for (const std::int32_t touched : touched_) {
      const auto resource = static_cast<std::size_t>(touched);
      double rate = 0;
      if (!at_end)
        for (int index : resource_flows_[resource].flows()) rate += flows_[static_cast<std::size_t>(index)].rate;
      if (!std::isfinite(rate) || rate == sampled_rate_[resource]) continue;
      if (load_samples_.size() >= options_.max_trace_spans) {
        trace_truncated_ = true;
        return;
      }
      sampled_rate_[resource] = rate;
      const auto id = static_cast<std::int32_t>(resource);
      LoadSample sample;
      sample.is_switch = routes_.is_switch(id);
      sample.from = sample.is_switch ? routes_.switch_node(id) : routes_.topology().directed_link(id).from;
      sample.to = sample.is_switch ? sample.from : routes_.topology().directed_link(id).to;
      sample.seconds = now;
      sample.bytes_per_second = rate;
      load_samples_.push_back(sample);
    }
    touched_.clear();
  }

  void record(TraceSpan span) {
    if (!options_.record_trace) return;
    if (trace_.size() >= options_.max_trace_spans) {
      trace_truncated_ = true;
      return;
    }
    trace_.push_back(span);
  }

  // Rank `rank` enters step `step` at time `now` (and any empty steps after it at once).
  void enter_step(int rank, int step, double now) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    const int steps = static_cast<int>(program_of(schedule_, rank).steps.size());
    for (; step < steps; ++step) {
      state.step = step;
      state.step_start = now;
      state.slots.clear();
      state.next_slot = 0;
      state.cpu_free = now;
      state.scratch_work_bytes = 0;
      state.scratch_in_place_bytes = 0;
      state.pending_send_pieces = 0;
      receives_.clear();
      resolved_.clear();
      for (const Op& written : step_ops(schedule_, rank, step))
        resolved_.push_back(schedule_.circulant ? schedule_.resolve(written, rank) : written);
      // The executor's plan: which receive pieces it lands in scratch and which it reduces in
      // place, in slot order.
      const StepPlan* plan = plans_ ? &plans_->next_step(rank, resolved_) : nullptr;
      for (const Op& op : resolved_) {
        PieceCursor cursor = pieces_of(op);
        const int pieces = cursor.count();
        if (pieces == 0) continue;  // the executor posts nothing for an empty range
        if (op.kind == OpKind::send) {
          state.pending_send_pieces += pieces;
          continue;
        }
        receives_.push_back({rank, step, op, static_cast<int>(state.slots.size())});
        for (std::int64_t elements = cursor.next(); elements > 0; elements = cursor.next()) {
          const double bytes = static_cast<double>(elements) * element_bytes_;
          const bool reduces = op.kind == OpKind::recv_reduce;
          const PlannedPiece* planned = plan != nullptr ? &plan->receives[state.slots.size()] : nullptr;
          const bool in_place = in_place_gamma_ != gamma_ && reduces && planned->reads_output;
          if (copy_cost_ratio_ > 0 && planned->to_scratch) {  // copied in by the transport, combined later
            (in_place ? state.scratch_in_place_bytes : state.scratch_work_bytes) += reduces ? bytes : copy_cost_ratio_ * bytes;
            state.slots.push_back({0.0, false, 0.0, 0.0, false});
          } else {
            state.slots.push_back({reduces ? bytes : 0.0, in_place, 0.0, 0.0, false});
          }
        }
      }
      if (state.pending_send_pieces == 0 && state.slots.empty()) {
        record({rank, step, -1, 0.0, now, now});
        ++finished_rank_steps_;
        continue;
      }
      for (const WaitingReceive& receive : receives_) {
        const int sender = receive.op.peer;
        if (ranks_[representative(sender)].step == step)
          start_flow(sender, rank, step, receive.op, receive.first_slot, now);
        else
          waiting_[representative(sender)].push_back(receive);
      }
      // The receives that waited for this rank to enter the step start now; the others keep waiting.
      std::vector<WaitingReceive>& mine = waiting_[static_cast<std::size_t>(rank)];
      std::size_t kept = 0;
      for (std::size_t i = 0; i < mine.size(); ++i) {
        if (mine[i].step == step)
          start_flow(mine[i].op.peer, mine[i].receiver, step, mine[i].op, mine[i].first_slot, now);
        else
          mine[kept++] = mine[i];
      }
      mine.resize(kept);
      return;
    }
    state.step = steps;
    state.finished = true;
    state.step_start = now;  // the rank's finish
  }

  // Every route `source` sends on in the schedule, with one search from it: the router keeps a
  // bounded number of searches, and asking for a source's routes step by step searched again each
  // step once ranks outnumbered them (interval_paired on torus2d:64x64: 97 % of its time).
  void prefetch_routes_from(int source) {
    routes_prefetched_[static_cast<std::size_t>(source)] = 1;
    if (!schedule_.circulant) {
      for (int destination : send_peers(schedule_.programs[static_cast<std::size_t>(source)]))
        routes_.between(source, destination);
      return;
    }
    for (int offset : send_offsets_) routes_.between(source, (source + offset) % schedule_.nranks);
  }

  // The peers a program sends to, each once (offsets in a circulant template).
  static std::vector<int> send_peers(const RankProgram& program) {
    std::vector<int> peers;
    for (const Step& step : program.steps)
      for (const Op& op : step)
        if (op.kind == OpKind::send) peers.push_back(op.peer);
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    return peers;
  }

  void start_flow(int source, int destination, int step, const Op& receive, int first_slot, double now) {
    int index = 0;
    if (!free_flows_.empty()) {
      index = free_flows_.back();
      free_flows_.pop_back();
    } else {
      index = static_cast<int>(flows_.size());
      flows_.emplace_back();
      flow_positions_.emplace_back();
      flow_seen_.push_back(0);
      flow_local_.push_back(0);
    }
    Flow& flow = flows_[static_cast<std::size_t>(index)];
    const std::uint32_t version = flow.version + 1;
    flow = Flow{};
    flow.version = version;
    flow.source = source;
    flow.destination = destination;
    flow.step = step;
    if (!routes_prefetched_[static_cast<std::size_t>(source)]) prefetch_routes_from(source);
    flow.route = routes_.between(source, destination);
    flow.pieces = pieces_of(receive);
    flow.first_slot = first_slot;
    flow.start_seconds = now;
    flow.piece_start_seconds = now;
    flow.updated_at = now;
    flow.bytes = static_cast<double>(flow.pieces.elements()) * element_bytes_;
    flow.remaining = static_cast<double>(flow.pieces.next()) * element_bytes_;
    ++transfers_;
    count_flow(source, 1, now);
    count_flow(destination, 1, now);
    const std::span<const std::int32_t> route = routes_.resources(flow.route);
    std::vector<std::int32_t>& positions = flow_positions_[static_cast<std::size_t>(index)];
    positions.resize(route.size());
    for (std::size_t crossing = 0; crossing < route.size(); ++crossing) {
      const std::int32_t crossed = route[crossing];
      const std::int32_t resource = resource_class(crossed);
      ResourceFlows& on_resource = resource_flows_[static_cast<std::size_t>(resource)];
      if (on_resource.empty()) on_resource.busy_since = now;
      positions[crossing] = on_resource.add(index, static_cast<std::int32_t>(crossing));
      on_resource.bytes += orbits_ != nullptr ? flow.bytes * crossing_weight(crossed) : flow.bytes;
      dirty_.push_back(resource);
    }
    if (update_ && !route.empty()) update_->add_flow(index, route);
    if (routes_.resources(flow.route).empty()) {  // no link to share: sent at once
      flow.rate = std::numeric_limits<double>::infinity();
      schedule(now, {EventKind::piece_sent, index, 0, 0, flow.version});
    }
  }

  // Takes the entry at `position` off a resource's flows in O(1): the last entry moves there and
  // its flow's position is updated (std::find here was 64 % of halving_doubling on ring:4096,
  // whose links carry a thousand flows each).
  void remove_crossing(ResourceFlows& on_resource, std::int32_t position) {
    const ResourceFlows::Entry moved = on_resource.remove(position);
    if (moved.flow >= 0)
      flow_positions_[static_cast<std::size_t>(moved.flow)][static_cast<std::size_t>(moved.crossing)] = position;
  }

  void end_flow(int index, double now) {
    const Flow& flow = flows_[static_cast<std::size_t>(index)];
    const std::span<const std::int32_t> route = routes_.resources(flow.route);
    const std::vector<std::int32_t>& positions = flow_positions_[static_cast<std::size_t>(index)];
    for (std::size_t crossing = 0; crossing < route.size(); ++crossing) {
      const std::int32_t resource = resource_class(route[crossing]);
      ResourceFlows& on_resource = resource_flows_[static_cast<std::size_t>(resource)];
      remove_crossing(on_resource, positions[crossing]);
      if (on_resource.empty()) on_resource.busy_seconds += now - on_resource.busy_since;
      dirty_.push_back(resource);
    }
    if (update_ && !route.empty()) update_->remove_flow(index, route, flow.rate, shared_);
    record({flow.source, flow.step, flow.destination, flow.bytes, flow.start_seconds, now + flow.route.latency_seconds});
    count_flow(flow.source, -1, now);
    count_flow(flow.destination, -1, now);
    free_flows_.push_back(index);
  }

  void handle(const Event& event, double now) {
    switch (event.kind) {
      case EventKind::piece_sent: {
        Flow& flow = flows_[static_cast<std::size_t>(event.subject)];
        if (flow.version != event.version) return;  // its rate changed since; a newer event stands
        ranks_[static_cast<std::size_t>(flow.destination)]
            .slots[static_cast<std::size_t>(flow.first_slot + flow.piece)]
            .first_byte = flow.piece_start_seconds + flow.route.latency_seconds;
        flow.piece_start_seconds = now;
        schedule(now + flow.route.latency_seconds, {EventKind::piece_arrived, flow.destination,
                  flow.first_slot + flow.piece, flow.source, 0});
        ++flow.piece;
        flow.updated_at = now;
        flow.remaining = static_cast<double>(flow.pieces.next()) * element_bytes_;
        if (flow.remaining > 0)
          schedule(now + flow.remaining / flow.rate, {EventKind::piece_sent, event.subject, 0, 0, flow.version});
        else
          end_flow(event.subject, now);
        return;
      }
      case EventKind::piece_arrived: {
        RankState& sender = ranks_[representative(event.sender)];
        if (--sender.pending_send_pieces < 0) unmatched(event.subject, event.sender);
        try_finish(static_cast<int>(representative(event.sender)), now);
        RankState& receiver = ranks_[static_cast<std::size_t>(event.subject)];
        Slot& slot = receiver.slots[static_cast<std::size_t>(event.slot)];
        slot.arrived = true;
        slot.arrival = now;
        if (sharing_ != nullptr && slot.reduce_bytes > 0) update_busy(event.subject, now, true);  // counted in its gamma
        for (; receiver.next_slot < receiver.slots.size() && receiver.slots[receiver.next_slot].arrived; ++receiver.next_slot) {
          const Slot& next = receiver.slots[receiver.next_slot];
          receiver.cpu_free = reduction_end(receiver.cpu_free, next, gamma_of(event.subject, next.in_place));
        }
        if (sharing_ != nullptr) {
          update_busy(event.subject, now);
          if (receiver.cpu_free > now) schedule(receiver.cpu_free, {EventKind::reduction_done, event.subject, 0, 0, 0});
        }
        try_finish(event.subject, now);
        return;
      }
      case EventKind::step_done:
        finish_step(event.subject, now);
        return;
      case EventKind::reduction_done:
        update_busy(event.subject, now);
        return;
    }
  }

  [[noreturn]] void unmatched(int receiver, int sender) const {
    throw std::invalid_argument(fmt::format(
        "cannot simulate {}: in step {} rank {} receives more from rank {} than rank {} sends to it; the schedule's "
        "sends and receives do not match (check it with 'ringlab verify')",
        schedule_.algorithm, ranks_[static_cast<std::size_t>(receiver)].step, receiver, sender, sender));
  }

  void try_finish(int rank, double now) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.finished || state.end_scheduled || state.pending_send_pieces != 0 || state.next_slot != state.slots.size())
      return;
    // The scratch receives are combined on top: the rank's own transfers do not move meanwhile.
    const double end = std::max(state.cpu_free, now) + gamma_of(rank) * state.scratch_work_bytes +
                       gamma_of(rank, true) * state.scratch_in_place_bytes;
    if (end > now) {
      state.end_scheduled = true;
      schedule(end, {EventKind::step_done, rank, 0, 0, 0});
      return;
    }
    finish_step(rank, now);
  }

  void finish_step(int rank, double now) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.end_scheduled = false;
    record({rank, state.step, -1, 0.0, state.step_start, now});
    ++finished_rank_steps_;
    enter_step(rank, state.step + 1, now);
  }

  // New rates for the flows that share a resource with one that started or ended: each connected
  // group of flows and resources is solved apart. The search writes the group's max-min problem
  // as it goes, flows and resources numbered in the order found, by flow and by resource (a
  // resource's flows are listed when the search reaches it), so each crossing is read twice.
  void rebalance(double now) {
    if (update_ && !dirty_.empty() && update_->solve(dirty_, shared_, local_flows_, rates_)) {
      set_rates(local_flows_, now);
      dirty_.clear();
      return;
    }
    const std::uint32_t first_epoch = epoch_ + 1;  // resources seen since belong to a solved group
    for (std::int32_t start : dirty_) {
      if (resource_seen_[static_cast<std::size_t>(start)] >= first_epoch) continue;
      // A resource left with no flow has nothing to solve (a trace still samples its fall to 0).
      if (resource_flows_[static_cast<std::size_t>(start)].empty() && !options_.record_trace) continue;
      ++epoch_;
      component_resources_.clear();
      component_flows_.clear();
      problem_.clear();
      visit_resource(start);
      for (std::size_t next = 0; next < component_resources_.size(); ++next) {
        problem_.resource_start.push_back(static_cast<std::int32_t>(problem_.resource_flows.size()));
        for (int index : resource_flows_[static_cast<std::size_t>(component_resources_[next])].flows()) {
          std::uint32_t& seen = flow_seen_[static_cast<std::size_t>(index)];
          std::int32_t& local = flow_local_[static_cast<std::size_t>(index)];
          if (seen == epoch_) {
            problem_.resource_flows.push_back(local);
            continue;
          }
          seen = epoch_;
          local = static_cast<std::int32_t>(component_flows_.size());
          problem_.resource_flows.push_back(local);
          component_flows_.push_back(index);
          for (std::int32_t resource : routes_.resources(flows_[static_cast<std::size_t>(index)].route)) {
            problem_.resources.push_back(visit_resource(resource_class(resource)));
            if (orbits_ != nullptr) problem_.weights.push_back(crossing_weight(resource));
          }
          problem_.flow_start.push_back(static_cast<std::int32_t>(problem_.resources.size()));
        }
      }
      problem_.resource_start.push_back(static_cast<std::int32_t>(problem_.resource_flows.size()));
      solve_component(now);
      if (options_.record_trace) touched_.insert(touched_.end(), component_resources_.begin(), component_resources_.end());
    }
    dirty_.clear();
  }

  // The resource's number in the group being searched, numbering it when first found.
  std::int32_t visit_resource(std::int32_t resource) {
    const auto at = static_cast<std::size_t>(resource);
    if (resource_seen_[at] == epoch_) return resource_local_[at];
    resource_seen_[at] = epoch_;
    resource_local_[at] = static_cast<std::int32_t>(component_resources_.size());
    component_resources_.push_back(resource);
    problem_.capacities.push_back(capacity(resource));
    return resource_local_[at];
  }

  void solve_component(double now) {
    if (component_flows_.empty()) return;
    rates_.clear();
    if (component_flows_.size() == 1 && orbits_ == nullptr) {
      double rate = std::numeric_limits<double>::infinity();
      for (double capacity_left : problem_.capacities) rate = std::min(rate, capacity_left);
      rates_.push_back(rate);
    } else {
      max_min_rates(problem_, workspace_, rates_);
    }
    if (update_) record_solve();
    set_rates(component_flows_, now);
  }

  // What a group's full solve found, for the next local solve.
  void record_solve() {
    const bool alone = component_flows_.size() == 1;  // solve_component's shortcut (no orbits here)
    for (std::size_t local = 0; local < component_resources_.size(); ++local)
      update_->record_load(component_resources_[local],
                           alone ? rates_[0] : problem_.capacities[local] - workspace_.capacity_left[local]);
    for (std::size_t i = 0; i < component_flows_.size(); ++i) {
      std::size_t local = 0;
      if (alone)
        local = static_cast<std::size_t>(std::min_element(problem_.capacities.begin(), problem_.capacities.end()) -
                                         problem_.capacities.begin());
      else
        local = static_cast<std::size_t>(workspace_.bottleneck[i]);
      update_->record_flow(component_flows_[i], rates_[i], component_resources_[local]);
    }
  }

  // Brings the flows' bytes sent up to date and gives them their new rates.
  void set_rates(const std::vector<int>& flows, double now) {
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const int index = flows[i];
      Flow& flow = flows_[static_cast<std::size_t>(index)];
      if (flow.rate > 0) flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.updated_at));
      flow.updated_at = now;
      if (rates_[i] == flow.rate) continue;  // its pending event still holds
      flow.rate = rates_[i];
      ++flow.version;
      schedule(now + flow.remaining / flow.rate, {EventKind::piece_sent, index, 0, 0, flow.version});
    }
  }

  void check_finished() const {
    for (std::size_t rank = 0; rank < ranks_.size(); ++rank) {
      const RankState& state = ranks_[rank];
      if (state.finished) continue;
      std::string waiting_for;
      for (std::size_t sender = 0; sender < waiting_.size() && waiting_for.empty(); ++sender)
        for (const WaitingReceive& receive : waiting_[sender])
          if (receive.receiver == static_cast<int>(rank)) {
            waiting_for = fmt::format("rank {} (now in step {}) to send to it in step {}", sender,
                                      ranks_[sender].step, receive.step);
            break;
          }
      if (waiting_for.empty()) waiting_for = "a send that no rank receives";  // its peer left the step
      throw std::invalid_argument(fmt::format(
          "cannot simulate {}: rank {} is stuck in step {} waiting for {}; the schedule's sends and receives do not "
          "match (check it with 'ringlab verify')",
          schedule_.algorithm, rank, state.step, waiting_for));
    }
  }

  void collect_loads(FlowPrediction& result) const {
    const Topology& topology = routes_.topology();
    for (std::size_t resource = 0; resource < resource_flows_.size(); ++resource) {
      const auto id = static_cast<std::int32_t>(resource);
      const auto of_class = static_cast<std::size_t>(resource_class(id));  // an orbit's resources carry alike
      const ResourceFlows& carried = resource_flows_[of_class];
      if (carried.bytes <= 0) continue;
      ResourceLoad load;
      load.is_switch = routes_.is_switch(id);
      if (load.is_switch) {
        load.from = load.to = routes_.switch_node(id);
      } else {
        load.from = topology.directed_link(id).from;
        load.to = topology.directed_link(id).to;
      }
      load.capacity = routes_.capacity(id);
      load.bytes = carried.bytes;
      load.busy_seconds = carried.busy_seconds;
      const double seconds = result.prediction.seconds;
      load.utilisation = seconds > 0 ? load.bytes / (load.capacity * seconds) : 0.0;
      result.loads.push_back(load);
    }
  }

  const RankOrbits* orbits_ = nullptr;  // null: every rank simulated
  const CpuSharing* sharing_ = nullptr;  // null: links and gamma as written
  std::vector<int> busy_on_cpu_;  // ranks with a flow or a reduction to finish
  std::vector<int> ranks_on_cpu_;
  std::vector<int> flows_of_rank_;
  std::vector<unsigned char> rank_busy_;  // a flow or a reduction to finish
  std::vector<std::array<int, 2>> ranks_of_resource_;  // the ranks at each link's ends, -1 for a switch
  std::vector<std::vector<DirectedLinkId>> links_of_cpu_;  // links at the endpoints of the CPU's ranks

  FlowRoutes& routes_;
  double gamma_;
  double in_place_gamma_;  // in_place_gamma(): gamma_ unless the topology prices the forms apart
  const FlowLevelOptions& options_;
  const Schedule& schedule_;
  std::int64_t count_;
  double element_bytes_;
  std::int64_t piece_elements_;

  std::vector<RankState> ranks_;
  std::vector<std::vector<WaitingReceive>> waiting_;  // by sender
  std::vector<WaitingReceive> receives_;              // scratch of enter_step
  // The executor's step plans, where the topology has a copy cost (copy_cost_ratio: its scratch
  // copies priced) or prices the operand forms apart.
  std::optional<ScratchReceives> plans_;
  double copy_cost_ratio_ = 0;
  double fragment_bytes_ = 0;  // Topology::receive_fragment_bytes; 0: pieces reduced whole
  std::vector<Op> resolved_;                      // scratch of enter_step: the step's ops, peers resolved
  std::vector<Flow> flows_;
  std::vector<unsigned char> routes_prefetched_;  // by source rank
  std::vector<int> send_offsets_;                 // a circulant template's send peers
  std::vector<int> free_flows_;
  std::vector<ResourceFlows> resource_flows_;  // the flows on each resource now, its busy time and bytes
  std::vector<std::vector<std::int32_t>> flow_positions_;      // by flow, per crossing: its entry in the resource's flows
  EventCalendar<Event> events_;

  std::vector<std::int32_t> dirty_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> resource_seen_;
  std::vector<std::int32_t> resource_local_;
  std::vector<std::int32_t> component_resources_;
  std::vector<int> component_flows_;
  std::vector<std::uint32_t> flow_seen_;  // by flow: the last group search that found it
  std::vector<std::int32_t> flow_local_;  // by flow: its number in that search's group
  SharingProblem problem_;
  SharingWorkspace workspace_;
  std::vector<double> rates_;
  std::optional<MaxMinUpdate> update_;  // null: every changed group solved whole
  SharedFlows shared_;
  std::vector<int> local_flows_;

  std::vector<TraceSpan> trace_;
  bool trace_truncated_ = false;
  std::vector<double> sampled_rate_;  // per resource, the rate of its last load sample
  std::vector<LoadSample> load_samples_;
  std::vector<std::int32_t> touched_;  // resources rebalance solved since the last sample
  double last_sample_seconds_ = 0;
  std::int64_t transfers_ = 0;
  std::int64_t finished_rank_steps_ = 0;  // steps the simulated ranks have finished, for options_.progress
};

}  // namespace

// What rank_orbits reads of a schedule and count (the topology is the model's), and its answer.
struct OrbitsMemo {  // of a circulant schedule
  int nranks = 0;
  std::int64_t nchunks = 0;
  bool whole_chunks = false;  // count a multiple of nchunks
  std::vector<Step> steps;    // the circulant template's
  std::optional<RankOrbits> orbits;

  bool holds_for(const Schedule& schedule, std::int64_t count) const {
    return schedule.circulant && schedule.nranks == nranks && schedule.nchunks == nchunks &&
           (count % schedule.nchunks == 0) == whole_chunks && schedule.programs.front().steps == steps;
  }
};

FlowLevelModel::FlowLevelModel(const Topology& topology, double gamma_seconds_per_byte, FlowLevelOptions options)
    : topology_(topology),
      gamma_seconds_per_byte_(gamma_seconds_per_byte),
      options_(options),
      routes_(std::make_unique<FlowRoutes>(topology)) {
  if (!(gamma_seconds_per_byte >= 0) || !std::isfinite(gamma_seconds_per_byte))
    throw std::invalid_argument(
        fmt::format("gamma must be a finite number of seconds per byte >= 0, not {}", gamma_seconds_per_byte));
  if (options.segment_bytes < 0)
    throw std::invalid_argument(fmt::format("segment size {} B is negative; pass 0 for whole transfers", options.segment_bytes));
}

FlowLevelModel::~FlowLevelModel() = default;
FlowLevelModel::FlowLevelModel(FlowLevelModel&&) noexcept = default;

FlowLevelModel& FlowLevelModel::at_footprint(double footprint_bytes) {
  if (footprint_model_ && cached_footprint_bytes_ == footprint_bytes) return *footprint_model_;
  footprint_model_.reset();
  footprint_topology_ = std::make_unique<Topology>(topology_.at_footprint(footprint_bytes));
  footprint_model_ = std::make_unique<FlowLevelModel>(
      *footprint_topology_, gamma_at_footprint(topology_, gamma_seconds_per_byte_, footprint_bytes), options_);
  cached_footprint_bytes_ = footprint_bytes;
  return *footprint_model_;
}

namespace {
// The rank orbits a model may simulate by: none with a trace, with orbits turned off, or on a
// topology with footprint curves (its model at the call's footprint decides).
std::optional<RankOrbits> usable_orbits(const FlowLevelOptions& options, const Topology& topology,
                                        const FlowRoutes& routes, const Schedule& schedule, std::int64_t count) {
  if (options.record_trace || !options.use_rank_orbits || !topology.footprint_curves().empty()) return std::nullopt;
  return rank_orbits(routes, schedule, count);
}
}  // namespace

const RankOrbits* FlowLevelModel::orbits_for(const Schedule& schedule, std::int64_t count) {
  if (!schedule.circulant || schedule.nchunks < 1) return nullptr;  // rank_orbits refuses these at once
  auto memo = std::find_if(orbits_memos_.begin(), orbits_memos_.end(),
                           [&](const OrbitsMemo& kept) { return kept.holds_for(schedule, count); });
  if (memo == orbits_memos_.end()) {
    if (orbits_memos_.size() >= 64) orbits_memos_.clear();
    orbits_memos_.push_back({schedule.nranks, schedule.nchunks, count % schedule.nchunks == 0,
                             schedule.programs.front().steps,
                             usable_orbits(options_, topology_, *routes_, schedule, count)});
    memo = orbits_memos_.end() - 1;
  }
  return memo->orbits ? &*memo->orbits : nullptr;
}

int FlowLevelModel::ranks_per_simulated_rank(const Schedule& schedule, std::int64_t count) {
  const RankOrbits* orbits = orbits_for(schedule, count);
  return orbits != nullptr ? orbits->size : 1;
}

FlowPrediction FlowLevelModel::predict(const Schedule& schedule, std::int64_t count, DataType type,
                                       Placement placement) {
  check_schedule(schedule, topology_, count);
  if (!topology_.footprint_curves().empty())
    return at_footprint(job_footprint_bytes(schedule, count, type, placement)).predict(schedule, count, type, placement);
  routes_->release_cache();
  return Simulation(*routes_, gamma_seconds_per_byte_, options_, schedule, count, type, placement,
                    orbits_for(schedule, count))
      .run();
}

}  // namespace ringlab::simulator
