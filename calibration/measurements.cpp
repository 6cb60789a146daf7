#include "calibration/measurements.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <thread>

#include "calibration/linear_fit.hpp"
#include "collectives/reduce.hpp"

namespace ringlab::calibration {

namespace {

constexpr int ping_tag = 1;
constexpr int pong_tag = 2;
constexpr int iterations_tag = 3;
constexpr int stream_tag = 4;
constexpr int gather_tag = 5;
constexpr int release_tag = 6;
// Timed round trips per size at least: on a loaded machine a round trip now and then waits a
// scheduler slice (longer than a 1 MiB round trip), and with 5 the median was such a wait
// whenever 3 of them were; with 25 it takes 13 (issue 27). Where --min-time asks for more
// (at the default 0.2 s, every round trip under 8 ms) nothing changes.
constexpr double min_round_trips = 25;

// Untimed round trips before each size: more for small messages, whose first trips pay for page
// faults and cold caches that would otherwise dominate a microsecond.
int warmup_round_trips(std::int64_t bytes) { return bytes <= 65536 ? 20 : 2; }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Clock::time_point deadline_after(double timeout_seconds) { return Clock::now() + timeout_from_seconds(timeout_seconds); }

// How a rank that takes no part in a measurement waits: sleeping (polls every 100 us, leaving the
// cores to the ranks that measure) or polling and yielding the CPU between polls, as the
// executor's ranks wait for a peer.
enum class Waiting { sleeping, polling };

void wait_idle(Request& request, double timeout_seconds, std::string_view what, Waiting waiting = Waiting::sleeping) {
  const auto deadline = deadline_after(timeout_seconds);
  while (!request.test()) {
    if (Clock::now() > deadline) request.wait(deadline, what);  // throws TimeoutError naming the wait
    if (waiting == Waiting::sleeping)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    else
      sched_yield();
  }
}

std::span<const std::byte> bytes_of(const std::vector<double>& values) {
  return std::as_bytes(std::span(values));
}

// Every rank sends `payload` (the same length everywhere) to rank 0, which returns them indexed by
// rank and then releases every rank. Rank 0 waits sleeping; the others as `waiting` says (sleeping
// unless a measurement asks them to poll). Other ranks get an empty result.
std::vector<std::vector<double>> gather_on_rank0(Communicator& comm, const std::vector<double>& payload,
                                                 double timeout_seconds, Waiting waiting = Waiting::sleeping) {
  std::byte token{1};
  if (comm.rank() != 0) {
    RequestPtr release = comm.post_recv({&token, 1}, 0, release_tag);
    RequestPtr send = comm.post_send(bytes_of(payload), 0, gather_tag);
    wait_idle(*send, timeout_seconds, "calibration: sending results to rank 0", waiting);
    wait_idle(*release, timeout_seconds, "calibration: waiting for rank 0 to release the ranks", waiting);
    return {};
  }
  std::vector<std::vector<double>> all(static_cast<std::size_t>(comm.size()), std::vector<double>(payload.size()));
  all[0] = payload;
  for (int peer = 1; peer < comm.size(); ++peer) {
    RequestPtr receive =
        comm.post_recv(std::as_writable_bytes(std::span(all[static_cast<std::size_t>(peer)])), peer, gather_tag);
    wait_idle(*receive, timeout_seconds, "calibration: collecting results on rank 0");
  }
  std::vector<RequestPtr> releases;
  for (int peer = 1; peer < comm.size(); ++peer) releases.push_back(comm.post_send({&token, 1}, peer, release_tag));
  for (RequestPtr& release : releases) wait_idle(*release, timeout_seconds, "calibration: releasing the ranks");
  return all;
}

struct PairBuffers {
  std::vector<std::byte> send;
  std::vector<std::byte> receive;
  explicit PairBuffers(std::int64_t bytes)
      : send(static_cast<std::size_t>(bytes), std::byte{7}), receive(static_cast<std::size_t>(bytes), std::byte{0}) {}
};

// One round trip timed by `first`: ping to second, pong back.
double round_trip_first(Communicator& comm, PairBuffers& buffers, std::int64_t bytes, int second,
                        double timeout_seconds) {
  const auto size = static_cast<std::size_t>(bytes);
  const auto start = Clock::now();
  RequestPtr pong = comm.post_recv(std::span(buffers.receive).first(size), second, pong_tag);
  RequestPtr ping = comm.post_send(std::span<const std::byte>(buffers.send).first(size), second, ping_tag);
  const auto deadline = deadline_after(timeout_seconds);
  ping->wait(deadline, "calibration ping-pong: ping");
  pong->wait(deadline, "calibration ping-pong: pong");
  return seconds_since(start);
}

void round_trip_second(Communicator& comm, PairBuffers& buffers, std::int64_t bytes, int first,
                       double timeout_seconds) {
  const auto size = static_cast<std::size_t>(bytes);
  const auto deadline = deadline_after(timeout_seconds);
  RequestPtr ping = comm.post_recv(std::span(buffers.receive).first(size), first, ping_tag);
  ping->wait(deadline, "calibration ping-pong: ping");
  RequestPtr pong = comm.post_send(std::span<const std::byte>(buffers.send).first(size), first, pong_tag);
  pong->wait(deadline, "calibration ping-pong: pong");
}

// The timing side: warm up, pick the iteration count from the warm-up's time, tell `second`, time.
PingPongSample ping_pong_first(Communicator& comm, PairBuffers& buffers, std::int64_t bytes, int second,
                               const MeasureOptions& options) {
  double probe = 0;
  for (int i = 0; i < warmup_round_trips(bytes); ++i)
    probe = round_trip_first(comm, buffers, bytes, second, options.timeout_seconds);
  const double wanted = std::ceil(options.min_seconds_per_size / std::max(probe, 1e-9));
  std::int64_t iterations = static_cast<std::int64_t>(std::clamp(wanted, min_round_trips, 10000.0));
  RequestPtr tell = comm.post_send(std::as_bytes(std::span(&iterations, 1)), second, iterations_tag);
  tell->wait(deadline_after(options.timeout_seconds), "calibration ping-pong: sending the iteration count");
  std::vector<double> one_way;
  for (std::int64_t i = 0; i < iterations; ++i)
    one_way.push_back(round_trip_first(comm, buffers, bytes, second, options.timeout_seconds) / 2);
  return {bytes, static_cast<int>(iterations), median(one_way), *std::min_element(one_way.begin(), one_way.end())};
}

void ping_pong_second(Communicator& comm, PairBuffers& buffers, std::int64_t bytes, int first,
                      const MeasureOptions& options) {
  for (int i = 0; i < warmup_round_trips(bytes); ++i) round_trip_second(comm, buffers, bytes, first, options.timeout_seconds);
  std::int64_t iterations = 0;
  RequestPtr told = comm.post_recv(std::as_writable_bytes(std::span(&iterations, 1)), first, iterations_tag);
  told->wait(deadline_after(options.timeout_seconds), "calibration ping-pong: receiving the iteration count");
  for (std::int64_t i = 0; i < iterations; ++i) round_trip_second(comm, buffers, bytes, first, options.timeout_seconds);
}

// Streaming rounds per size, the same on every rank without a message: about 256 MiB per rank,
// 3 .. 500.
std::int64_t concurrent_iterations(std::int64_t bytes) {
  return std::clamp<std::int64_t>((std::int64_t{256} << 20) / std::max<std::int64_t>(bytes, 1), 3, 500);
}

}  // namespace

std::vector<std::pair<int, int>> pairs_to_measure(int nranks) {
  std::vector<std::pair<int, int>> pairs;
  if (nranks <= 8) {
    for (int a = 0; a < nranks; ++a)
      for (int b = a + 1; b < nranks; ++b) pairs.emplace_back(a, b);
    return pairs;
  }
  const int half = nranks / 2;
  const std::set<std::pair<int, int>> sample = {{0, 1}, {0, half}, {0, nranks - 1}, {half - 1, half},
                                                {nranks / 4, 3 * nranks / 4}, {nranks - 2, nranks - 1}};
  return {sample.begin(), sample.end()};
}

std::vector<PairMeasurement> measure_ping_pong(Communicator& comm, const MeasureOptions& options) {
  const std::int64_t largest = options.sizes.empty() ? 0 : *std::max_element(options.sizes.begin(), options.sizes.end());
  PairBuffers buffers(largest);
  std::vector<PairMeasurement> measurements;
  for (const auto& [first, second] : pairs_to_measure(comm.size())) {
    std::vector<double> payload(options.sizes.size() * 3, 0.0);  // iterations, median, min per size
    for (std::size_t i = 0; i < options.sizes.size(); ++i) {
      if (options.fault && (comm.rank() == first || comm.rank() == second))
        options.fault->at_round(comm, "calibration ping-pong", i, static_cast<std::size_t>(options.sizes[i]));
      if (comm.rank() == first) {
        const PingPongSample sample = ping_pong_first(comm, buffers, options.sizes[i], second, options);
        payload[3 * i] = sample.iterations;
        payload[3 * i + 1] = sample.one_way_median_seconds;
        payload[3 * i + 2] = sample.one_way_min_seconds;
      } else if (comm.rank() == second) {
        ping_pong_second(comm, buffers, options.sizes[i], first, options);
      }
    }
    const auto all = gather_on_rank0(comm, payload, options.timeout_seconds);
    if (comm.rank() != 0) continue;
    PairMeasurement measurement{first, second, {}};
    const std::vector<double>& from_first = all[static_cast<std::size_t>(first)];
    for (std::size_t i = 0; i < options.sizes.size(); ++i)
      measurement.samples.push_back({options.sizes[i], static_cast<int>(from_first[3 * i]), from_first[3 * i + 1],
                                     from_first[3 * i + 2]});
    measurements.push_back(std::move(measurement));
  }
  return measurements;
}

WaitingMatesMeasurement measure_waiting_mates(Communicator& comm, const MeasureOptions& options,
                                              const std::vector<std::int64_t>& sizes) {
  WaitingMatesMeasurement measurement;
  if (comm.size() < 3 || sizes.empty()) return measurement;
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::optional<PairBuffers> buffers;
  if (comm.rank() <= 1) buffers.emplace(largest);
  std::vector<double> medians;  // on rank 0: per size, sleeping then polling
  for (Waiting waiting : {Waiting::sleeping, Waiting::polling}) {
    for (std::int64_t bytes : sizes) {
      if (comm.rank() == 0)
        medians.push_back(ping_pong_first(comm, *buffers, bytes, 1, options).one_way_median_seconds);
      else if (comm.rank() == 1)
        ping_pong_second(comm, *buffers, bytes, 0, options);
    }
    // Ranks 2.. wait here, as asked, until ranks 0 and 1 are done with every size.
    gather_on_rank0(comm, {0.0}, options.timeout_seconds, waiting);
  }
  if (comm.rank() != 0) return measurement;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    measurement.samples.push_back({sizes[i], medians[i], medians[sizes.size() + i]});
  return measurement;
}

ConcurrentMeasurement measure_concurrent(Communicator& comm, int cores, const std::vector<std::int64_t>& sizes,
                                         double timeout_seconds) {
  const int active = std::min(comm.size(), std::max(2, cores));
  const std::int64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  std::vector<double> payload(sizes.size(), 0.0);  // median seconds per size on this rank
  if (comm.rank() < active) {
    PairBuffers buffers(largest);
    const int right = (comm.rank() + 1) % active;
    const int left = (comm.rank() + active - 1) % active;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto size = static_cast<std::size_t>(sizes[i]);
      // The same count on every rank without a message: from the size alone.
      const std::int64_t iterations = concurrent_iterations(sizes[i]);
      std::vector<double> times;
      for (std::int64_t k = -1; k < iterations; ++k) {  // k = -1: warm-up
        const auto start = Clock::now();
        RequestPtr receive = comm.post_recv(std::span(buffers.receive).first(size), left, stream_tag);
        RequestPtr send = comm.post_send(std::span<const std::byte>(buffers.send).first(size), right, stream_tag);
        const auto deadline = deadline_after(timeout_seconds);
        send->wait(deadline, "calibration concurrent streaming: send");
        receive->wait(deadline, "calibration concurrent streaming: receive");
        if (k >= 0) times.push_back(seconds_since(start));
      }
      payload[i] = median(times);
    }
  }
  const auto all = gather_on_rank0(comm, payload, timeout_seconds);
  ConcurrentMeasurement measurement{active, {}};
  if (comm.rank() != 0) return measurement;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    double slowest = 0;
    for (int rank = 0; rank < active; ++rank) slowest = std::max(slowest, all[static_cast<std::size_t>(rank)][i]);
    const std::int64_t iterations = concurrent_iterations(sizes[i]);
    measurement.samples.push_back({sizes[i], static_cast<int>(iterations), slowest,
                                   slowest > 0 ? static_cast<double>(active) * static_cast<double>(sizes[i]) / slowest : 0});
  }
  return measurement;
}

std::int64_t out_of_cache_operand_bytes() {
  const long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::int64_t mib = std::int64_t{1} << 20;
  return std::clamp<std::int64_t>(2 * std::max<long>(cache, 0), 16 * mib, 64 * mib);
}

std::vector<std::int64_t> reduce_sizes() {
  const std::int64_t kib = std::int64_t{1} << 10;
  const std::int64_t mib = std::int64_t{1} << 20;
  const std::int64_t base = out_of_cache_operand_bytes();
  std::vector<std::int64_t> sizes = {in_cache_operand_bytes, 256 * kib, 1 * mib, 4 * mib};  // in cache (footprint 3 s)
  std::erase_if(sizes, [&](std::int64_t bytes) { return bytes >= base; });
  // Where the operands leave the cache, every power of two: with only 4 MiB and s measured, the
  // gamma curve interpolated across the cache's edge and priced reductions there too cheap
  // (docs/calibration.md).
  for (std::int64_t bytes = 8 * mib; bytes < base; bytes *= 2) sizes.push_back(bytes);
  for (std::int64_t factor : {1, 2, 4}) sizes.push_back(factor * base);  // out of cache
  return sizes;
}

namespace {
int reduce_iterations(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{64} << 20) / std::max<std::int64_t>(bytes, 1), 5, 200));
}
}  // namespace

std::vector<ReduceSample> measure_reduce(Communicator& comm, const std::vector<std::int64_t>& sizes,
                                         double timeout_seconds) {
  std::vector<double> payload(2 * sizes.size(), 0.0);  // per size: reduce, then copy
  if (comm.rank() == 0) {
    const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
    const auto floats = static_cast<std::size_t>(largest / 4);
    std::vector<float> a(floats, 1.0f), b(floats, 2.0f), out(floats, 0.0f);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto count = static_cast<std::size_t>(sizes[i] / 4);
      std::vector<double> times, copy_times;
      for (int k = -1; k < reduce_iterations(sizes[i]); ++k) {  // k = -1: warm-up
        const auto start = Clock::now();
        reduce_to(out.data(), a.data(), b.data(), count, DataType::float32, ReduceOp::sum);
        if (k >= 0) times.push_back(seconds_since(start));
        const auto copy_start = Clock::now();
        std::memcpy(out.data(), a.data(), count * sizeof(float));
        if (k >= 0) copy_times.push_back(seconds_since(copy_start));
      }
      payload[2 * i] = median(times);
      payload[2 * i + 1] = median(copy_times);
    }
  }
  gather_on_rank0(comm, payload, timeout_seconds);
  std::vector<ReduceSample> samples;
  if (comm.rank() != 0) return samples;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    samples.push_back({sizes[i] / 4 * 4, reduce_iterations(sizes[i]), payload[2 * i], payload[2 * i + 1]});
  return samples;
}

FormReduceMeasurement measure_reduce_by_form(Communicator& comm, int cores, double timeout_seconds) {
  const int most = std::min(comm.size(), std::max(1, cores));
  FormReduceMeasurement measurement{in_cache_operand_bytes, out_of_cache_operand_bytes(), form_in_cache_calls,
                                    form_out_of_cache_calls, {}};
  for (const int ranks : most > 1 ? std::vector<int>{1, most} : std::vector<int>{1})
    for (const Placement form : {Placement::out_of_place, Placement::in_place}) {
      // The ranks that reduce leave the barrier together: rank 0 releases them while they poll.
      gather_on_rank0(comm, {0.0}, timeout_seconds, Waiting::polling);
      std::vector<double> medians(2, 0.0);
      if (comm.rank() < ranks)
        medians = time_reduce_form(form, measurement.in_cache_bytes, measurement.out_of_cache_bytes);
      const auto all = gather_on_rank0(comm, medians, timeout_seconds);
      if (comm.rank() != 0) continue;
      FormReduceSample sample{form, ranks, 0, 0};
      for (int rank = 0; rank < ranks; ++rank) {
        sample.in_cache_median_seconds = std::max(sample.in_cache_median_seconds, all[static_cast<std::size_t>(rank)][0]);
        sample.out_of_cache_median_seconds =
            std::max(sample.out_of_cache_median_seconds, all[static_cast<std::size_t>(rank)][1]);
      }
      measurement.samples.push_back(sample);
    }
  if (comm.rank() != 0) measurement.samples.clear();
  return measurement;
}

TypeOpReduceMeasurement measure_reduce_by_type_op(Communicator& comm, double timeout_seconds) {
  TypeOpReduceMeasurement measurement;
  if (comm.rank() == 0) measurement = time_reduce_by_type_op(in_cache_operand_bytes, out_of_cache_operand_bytes());
  gather_on_rank0(comm, std::vector<double>(1, 0.0), timeout_seconds);  // the others sleep until rank 0 is done
  return measurement;
}

}  // namespace ringlab::calibration
