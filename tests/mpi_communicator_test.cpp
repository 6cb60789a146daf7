// Tests of the mpi backend's point-to-point transfers and native all-reduce; run under mpiexec
// with any number of ranks (those needing a peer skip on 1).
#include "collectives/backends/mpi_communicator.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace ringlab {
namespace {

using namespace std::chrono_literals;

Clock::time_point in(Clock::duration duration) { return Clock::now() + duration; }

std::byte pattern(int src, int tag, std::size_t i) {
  return static_cast<std::byte>((src * 31 + tag * 7 + static_cast<int>(i % 251)) & 0xff);
}

// Every test runs on both transports: shared memory between ranks of a host (the default) and
// plain MPI messages.
class MpiCommunicatorTest : public ::testing::TestWithParam<MpiTransport> {};

TEST_P(MpiCommunicatorTest, Basics) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  EXPECT_EQ(comm.size(), world_size);
  EXPECT_EQ(comm.backend_name(), "mpi");
  EXPECT_EQ(comm.native_allreduce(), &comm);
  const std::string name = comm.call_name();
  EXPECT_EQ(name.rfind("MPI_Allreduce (", 0), 0U) << name;
  EXPECT_EQ(name.back(), ')') << name;
  EXPECT_EQ(name.find('\n'), std::string::npos) << name;
  EXPECT_FALSE(mpi_library_version().empty());
  comm.barrier(in(30s));
}

TEST_P(MpiCommunicatorTest, RejectsBadArguments) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  std::vector<std::byte> buffer(4);
  EXPECT_THROW(comm.post_send(buffer, comm.rank(), 0), std::invalid_argument);
  EXPECT_THROW(comm.post_recv(buffer, comm.size(), 0), std::invalid_argument);
  EXPECT_THROW(comm.post_recv(buffer, -1, 0), std::invalid_argument);
  if (comm.size() > 1) {
    const int peer = (comm.rank() + 1) % comm.size();
    EXPECT_THROW(comm.post_send(buffer, peer, -1), std::invalid_argument);
    // Never dereferenced: the size check comes before MPI sees the pointer.
    const std::span<const std::byte> huge(buffer.data(), static_cast<std::size_t>(INT_MAX) + 1);
    EXPECT_THROW(comm.post_send(huge, peer, 0), std::invalid_argument);
  }
  EXPECT_THROW(comm.set_allreduce_piece_elements(0), std::invalid_argument);
}

TEST_P(MpiCommunicatorTest, RingExchange) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int next = (comm.rank() + 1) % comm.size();
  const int prev = (comm.rank() - 1 + comm.size()) % comm.size();
  const std::size_t sizes[] = {0, 1, 1000, 1 << 20, 3 << 20};  // eager and rendezvous
  std::vector<std::vector<std::byte>> outgoing;
  std::vector<std::vector<std::byte>> incoming;
  std::vector<RequestPtr> requests;
  for (int tag = 0; tag < 10; ++tag) {
    const std::size_t bytes = sizes[tag % 5];
    incoming.emplace_back(bytes);
    outgoing.emplace_back(bytes);
    for (std::size_t i = 0; i < bytes; ++i) outgoing.back()[i] = pattern(comm.rank(), tag, i);
  }
  for (int tag = 0; tag < 10; ++tag) requests.push_back(comm.post_recv(incoming[tag], prev, tag));
  for (int tag = 0; tag < 10; ++tag) requests.push_back(comm.post_send(outgoing[tag], next, tag));
  for (auto& request : requests) request->wait(in(30s), "ring exchange");
  for (int tag = 0; tag < 10; ++tag) {
    for (std::size_t i = 0; i < incoming[tag].size(); ++i) {
      ASSERT_EQ(incoming[tag][i], pattern(prev, tag, i)) << "tag " << tag << " byte " << i;
    }
  }
  comm.barrier(in(30s));
}

// Element i on `rank`, for op: a small integer (exact in every type, also after reduction).
double input_value(int rank, std::size_t i, ReduceOp op) {
  if (op == ReduceOp::prod) return (i + rank) % 4 == 0 ? 2.0 : 1.0;  // products stay <= 256
  return static_cast<double>(static_cast<int>((i * 7 + static_cast<std::size_t>(rank) * 3) % 5) - 2);
}

void store(DataType type, std::vector<std::byte>& buffer, std::size_t i, double value) {
  std::byte* p = buffer.data() + i * element_size(type);
  const auto put = [p](auto v) { std::memcpy(p, &v, sizeof v); };
  switch (type) {
    case DataType::float32: return put(static_cast<float>(value));
    case DataType::float64: return put(value);
    case DataType::float16: return put(to_float16(static_cast<float>(value)).bits);
    case DataType::bfloat16: return put(to_bfloat16(static_cast<float>(value)).bits);
    case DataType::int32: return put(static_cast<std::int32_t>(value));
    case DataType::int64: return put(static_cast<std::int64_t>(value));
  }
}

double load(DataType type, const std::vector<std::byte>& buffer, std::size_t i) {
  const std::byte* p = buffer.data() + i * element_size(type);
  const auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (type) {
    case DataType::float32: return get(float{});
    case DataType::float64: return get(double{});
    case DataType::float16: return to_float(float16{get(std::uint16_t{})});
    case DataType::bfloat16: return to_float(bfloat16{get(std::uint16_t{})});
    case DataType::int32: return get(std::int32_t{});
    case DataType::int64: return static_cast<double>(get(std::int64_t{}));
  }
  return 0;
}

double expected_value(int nranks, std::size_t i, DataType type, ReduceOp op) {
  double result = input_value(0, i, op);
  for (int rank = 1; rank < nranks; ++rank) {
    const double v = input_value(rank, i, op);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: result += v; break;
      case ReduceOp::prod: result *= v; break;
      case ReduceOp::min: result = std::min(result, v); break;
      case ReduceOp::max: result = std::max(result, v); break;
    }
  }
  if (op != ReduceOp::avg) return result;
  if (type == DataType::int32 || type == DataType::int64) return std::trunc(result / nranks);
  return result / nranks;
}

// Exact except for avg, where the division rounds in the element type.
double tolerance(DataType type, ReduceOp op, double expected) {
  if (op != ReduceOp::avg) return 0;
  const double relative = type == DataType::float16 || type == DataType::bfloat16 ? 1e-2
                          : type == DataType::float32                             ? 1e-6
                                                                                  : 1e-12;
  return relative * std::max(1.0, std::abs(expected));
}

void check_allreduce(MpiCommunicator& comm, std::size_t count, bool in_place,
                     std::span<const DataType> types = all_data_types) {
  for (const DataType type : types) {
    for (const ReduceOp op : all_reduce_ops) {
      SCOPED_TRACE(std::string(name_of(type)) + " " + std::string(name_of(op)) + (in_place ? " in place" : ""));
      std::vector<std::byte> send(count * element_size(type));
      std::vector<std::byte> recv(send.size(), std::byte{0xee});
      for (std::size_t i = 0; i < count; ++i) store(type, send, i, input_value(comm.rank(), i, op));
      if (in_place) {
        comm.allreduce(send.data(), send.data(), count, type, op, Clock::now() + std::chrono::minutes(1));
        recv = send;
      } else {
        comm.allreduce(send.data(), recv.data(), count, type, op, Clock::now() + std::chrono::minutes(1));
      }
      int mismatches = 0;
      for (std::size_t i = 0; i < count && mismatches < 5; ++i) {
        const double expected = expected_value(comm.size(), i, type, op);
        const double got = load(type, recv, i);
        if (std::abs(got - expected) > tolerance(type, op, expected)) {
          ++mismatches;
          ADD_FAILURE() << "element " << i << ": expected " << expected << ", got " << got;
        }
      }
    }
  }
}

TEST_P(MpiCommunicatorTest, NativeAllreduceEveryTypeAndOp) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  check_allreduce(comm, 1000, false);
  check_allreduce(comm, 1000, true);
}

TEST_P(MpiCommunicatorTest, NativeAllreduceInPieces) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  comm.set_allreduce_piece_elements(300);  // 300 + 300 + 300 + 100
  // One built-in and one user-defined MPI_Op type: each call is slow on oversubscribed cores.
  const DataType types[] = {DataType::int64, DataType::float16};
  check_allreduce(comm, 1000, false, types);
  check_allreduce(comm, 1000, true, types);
}

// Rank 0 sends `sent` bytes, rank 1 receives into `posted` bytes: the receiver must report the
// mismatch; the sender's send either completes or fails, but must not hang.
void check_size_mismatch(MpiCommunicator& comm, std::size_t sent, std::size_t posted, int tag) {
  SCOPED_TRACE("sent " + std::to_string(sent) + " bytes, posted " + std::to_string(posted));
  if (comm.rank() == 0) {
    std::vector<std::byte> buffer(sent, std::byte{1});
    RequestPtr send = comm.post_send(buffer, 1, tag);
    try {
      send->wait(in(20s), "mismatched send");
    } catch (const CommunicationError&) {
      // acceptable: some transports report the truncation to the sender too
    }
  } else if (comm.rank() == 1) {
    std::vector<std::byte> buffer(posted);
    RequestPtr recv = comm.post_recv(buffer, 0, tag);
    try {
      recv->wait(in(20s), "mismatched receive");
      ADD_FAILURE() << "expected CommunicationError";
    } catch (const CommunicationError& e) {
      const std::string message = e.what();
      const std::string expected_start = "mpi backend: rank 1 posted a receive of " + std::to_string(posted) +
                                         " bytes (tag " + std::to_string(tag) + ") from rank 0, but rank 0 sent";
      EXPECT_EQ(message.rfind(expected_start, 0), 0U) << message;
      if (sent < posted) {
        EXPECT_NE(message.find(std::to_string(sent) + " bytes"), std::string::npos) << message;
      }
    }
    EXPECT_THROW(recv->test(), CommunicationError);  // the failure sticks
  }
  comm.barrier(in(30s));
}

TEST_P(MpiCommunicatorTest, SizeMismatchRaisesOnReceiver) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  check_size_mismatch(comm, 128, 64, 3);               // eager, truncated
  check_size_mismatch(comm, 64, 128, 4);               // eager, short
  check_size_mismatch(comm, 4 << 20, 1 << 20, 5);      // rendezvous, truncated
  check_size_mismatch(comm, 1 << 20, 4 << 20, 6);      // rendezvous, short
  // The communicator still works afterwards.
  std::vector<std::byte> buffer(16, std::byte{7});
  if (comm.rank() == 0) comm.post_send(buffer, 1, 7)->wait(in(30s), "send after mismatch");
  if (comm.rank() == 1) comm.post_recv(buffer, 0, 7)->wait(in(30s), "receive after mismatch");
  comm.barrier(in(30s));
}

TEST_P(MpiCommunicatorTest, UnmatchedReceiveTimesOutAndCancels) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  if (comm.rank() == 0) {
    std::vector<std::byte> buffer(64);
    RequestPtr recv = comm.post_recv(buffer, 1, 100);
    EXPECT_FALSE(recv->test());
    const auto start = Clock::now();
    try {
      recv->wait(start + 200ms, "lonely receive");
      ADD_FAILURE() << "expected TimeoutError";
    } catch (const TimeoutError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("rank 0: lonely receive timed out"), std::string::npos) << message;
      EXPECT_NE(message.find("from rank 1 (tag 100)"), std::string::npos) << message;
    }
    const auto elapsed = Clock::now() - start;
    EXPECT_GE(elapsed, 200ms);
    EXPECT_LT(elapsed, 5s);
    recv.reset();  // cancelled: the buffer may go
  }
  comm.barrier(in(30s));
  // The cancelled receive must not swallow a later message with the same tag.
  std::vector<std::byte> buffer(64, std::byte{9});
  if (comm.rank() == 1) comm.post_send(buffer, 0, 100)->wait(in(30s), "send after cancel");
  if (comm.rank() == 0) {
    std::vector<std::byte> received(64);
    comm.post_recv(received, 1, 100)->wait(in(30s), "receive after cancel");
    EXPECT_EQ(received, buffer);
  }
  comm.barrier(in(30s));
}

// Ranks posted in a different order than the messages were sent: the message nobody waits for
// yet must not block the one a receive waits on (it is buffered), and both arrive intact.
TEST_P(MpiCommunicatorTest, MessagesOvertakeAcrossTags) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const std::size_t first_bytes = 3 << 20;  // larger than all shared-memory slots of a pair
  const std::size_t second_bytes = 1000;
  if (comm.rank() == 0) {
    std::vector<std::byte> first(first_bytes);
    std::vector<std::byte> second(second_bytes);
    for (std::size_t i = 0; i < first_bytes; ++i) first[i] = pattern(0, 21, i);
    for (std::size_t i = 0; i < second_bytes; ++i) second[i] = pattern(0, 22, i);
    RequestPtr send_first = comm.post_send(first, 1, 21);
    RequestPtr send_second = comm.post_send(second, 1, 22);
    send_first->wait(in(30s), "first send");
    send_second->wait(in(30s), "second send");
  } else if (comm.rank() == 1) {
    std::vector<std::byte> second(second_bytes);
    comm.post_recv(second, 0, 22)->wait(in(30s), "second receive");
    std::vector<std::byte> first(first_bytes);
    comm.post_recv(first, 0, 21)->wait(in(30s), "first receive");
    for (std::size_t i = 0; i < second_bytes; ++i) ASSERT_EQ(second[i], pattern(0, 22, i)) << "byte " << i;
    for (std::size_t i = 0; i < first_bytes; ++i) ASSERT_EQ(first[i], pattern(0, 21, i)) << "byte " << i;
  }
  comm.barrier(in(30s));
}

// post_recv_reduce combines as data arrives, into the target, from a separate left operand or
// in place; only offered where the transport reads incoming data in place.
TEST_P(MpiCommunicatorTest, ReceiveAndReduce) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int next = (comm.rank() + 1) % comm.size();
  const int prev = (comm.rank() - 1 + comm.size()) % comm.size();
  EXPECT_EQ(comm.can_reduce_on_receive(prev), comm.uses_shared_memory());
  if (!comm.can_reduce_on_receive(prev)) {
    std::vector<std::byte> target(8);
    EXPECT_THROW(comm.post_recv_reduce(target, target.data(), prev, 30, DataType::float32, ReduceOp::sum),
                 std::logic_error);
    comm.barrier(in(30s));
    return;
  }
  const std::size_t count = (1 << 20) + 3;  // several slots, and a ragged end
  std::vector<float> outgoing(count);
  std::vector<float> base(count);
  for (std::size_t i = 0; i < count; ++i) {
    outgoing[i] = static_cast<float>(static_cast<int>(i % 13) + comm.rank());
    base[i] = static_cast<float>(i % 7);
  }
  std::vector<float> target(count, -1.0f);
  std::vector<float> in_place = base;
  RequestPtr out_of_place_recv = comm.post_recv_reduce(std::as_writable_bytes(std::span(target)),
                                                       reinterpret_cast<const std::byte*>(base.data()), prev, 30,
                                                       DataType::float32, ReduceOp::sum);
  RequestPtr in_place_recv = comm.post_recv_reduce(std::as_writable_bytes(std::span(in_place)),
                                                   reinterpret_cast<const std::byte*>(in_place.data()), prev, 31,
                                                   DataType::float32, ReduceOp::max);
  RequestPtr send_sum = comm.post_send(std::as_bytes(std::span(outgoing)), next, 30);
  RequestPtr send_max = comm.post_send(std::as_bytes(std::span(outgoing)), next, 31);
  for (RequestPtr* request : {&out_of_place_recv, &in_place_recv, &send_sum, &send_max})
    (*request)->wait(in(30s), "reduce exchange");
  for (std::size_t i = 0; i < count; ++i) {
    const auto incoming = static_cast<float>(static_cast<int>(i % 13) + prev);
    ASSERT_EQ(target[i], base[i] + incoming) << "element " << i;
    ASSERT_EQ(in_place[i], std::max(base[i], incoming)) << "element " << i;
  }
  comm.barrier(in(30s));
}

TEST_P(MpiCommunicatorTest, DescribesItsTransport) {
  MpiCommunicator comm(MPI_COMM_WORLD, GetParam());
  const std::string description = comm.transport_description();
  if (GetParam() == MpiTransport::messages) {
    EXPECT_FALSE(comm.uses_shared_memory());
    EXPECT_EQ(description, "MPI point-to-point (asked for)");
  } else if (comm.size() == 1) {
    EXPECT_EQ(description, "MPI point-to-point (no other rank on this host)");
  } else if (const char* disable = std::getenv("RINGLAB_SHM_DISABLE"); disable != nullptr && std::string(disable) != "0") {
    EXPECT_EQ(description, "MPI point-to-point (disabled by RINGLAB_SHM_DISABLE)");
  } else if (comm.uses_shared_memory()) {
    EXPECT_EQ(description.rfind("shared memory between the ", 0), 0U) << description;
  } else {
    // A host without a usable /dev/shm: the reason must be given.
    EXPECT_EQ(description.rfind("MPI point-to-point (", 0), 0U) << description;
    std::fprintf(stderr, "note: rank %d runs without shared memory: %s\n", comm.rank(), description.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, MpiCommunicatorTest,
                         ::testing::Values(MpiTransport::automatic, MpiTransport::messages),
                         [](const ::testing::TestParamInfo<MpiTransport>& param_info) {
                           return param_info.param == MpiTransport::automatic ? "shared_memory" : "messages";
                         });

}  // namespace
}  // namespace ringlab
