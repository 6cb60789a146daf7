// The `mpi` backend: one rank per MPI process. Point-to-point transfers between ranks of one
// host go through shared-memory channels (ShmTransport over MpiNodeSharedMemory), as NCCL does
// inside a node; transfers to other hosts, or all of them when RINGLAB_SHM_DISABLE=1 is set or
// MpiTransport::messages is asked for, are MPI_Isend/MPI_Irecv of MPI_BYTE on a private
// duplicate of MPI_COMM_WORLD. MPI_Allreduce is the native all-reduce baseline. Waits poll and
// yield the CPU in between, so that oversubscribed jobs (more ranks than cores) still progress.
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <climits>
#include <memory>
#include <optional>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "collectives/backends/blocking_call_watchdog.hpp"
#include "collectives/capabilities.hpp"
#include "collectives/communicator.hpp"
#include "collectives/backends/mpi_shared_memory.hpp"
#include "collectives/backends/shm_transport.hpp"

namespace ringlab {

// The MPI library's version string (MPI_Get_library_version), without trailing whitespace.
std::string mpi_library_version();
// Its first line with whitespace collapsed, e.g. "MPICH Version: 4.0.2".
std::string mpi_library_name();

// This process's rank as the launcher tells it (MPICH's Hydra, Open MPI, PMIx) before MPI
// starts; -1 when unknown.
int launcher_rank();

// Initialises MPI (MPI_THREAD_FUNNELED) unless it already is, and finalises it on destruction
// if this object initialised it.
class MpiEnvironment {
 public:
  // How long the destructor lets MPI_Finalize run before it ends the process (status 1).
  static constexpr std::chrono::seconds finalize_time_limit{60};

  MpiEnvironment();
  MpiEnvironment(int& argc, char**& argv);
  // Ends the process (status 1, naming the wait and `init_timeout`) when MPI_Init_thread has not
  // returned after `init_timeout`: a rank that never started, or stopped during MPI start-up.
  explicit MpiEnvironment(std::chrono::milliseconds init_timeout);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

 private:
  void init(int* argc, char*** argv, std::optional<std::chrono::milliseconds> timeout);
  bool owns_ = false;
};

// A duplicate of a communicator, with MPI_ERRORS_RETURN, freed on destruction. The duplication
// (collective) gives up after `timeout` (TimeoutError naming the wait).
class MpiCommHandle {
 public:
  explicit MpiCommHandle(MPI_Comm base, std::chrono::milliseconds timeout = std::chrono::seconds(300));
  ~MpiCommHandle();
  MpiCommHandle(const MpiCommHandle&) = delete;
  MpiCommHandle& operator=(const MpiCommHandle&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and restores the previous handler on destruction.
// Needed because MPICH reports errors of MPI_Test (e.g. MPI_ERR_TRUNCATE when a peer sent more
// than was posted) through MPI_COMM_WORLD's handler, not the request's communicator's.
class MpiWorldErrorsReturn {
 public:
  MpiWorldErrorsReturn();
  ~MpiWorldErrorsReturn();
  MpiWorldErrorsReturn(const MpiWorldErrorsReturn&) = delete;
  MpiWorldErrorsReturn& operator=(const MpiWorldErrorsReturn&) = delete;

 private:
  MPI_Errhandler previous_ = MPI_ERRHANDLER_NULL;
};

// The user-defined MPI_Ops that reduce float16 and bfloat16 (carried as MPI_UINT16_T) with
// reduce_into(), one per (type, sum/prod/min/max); freed on destruction.
class MpiHalfPrecisionOps {
 public:
  MpiHalfPrecisionOps();
  ~MpiHalfPrecisionOps();
  MpiHalfPrecisionOps(const MpiHalfPrecisionOps&) = delete;
  MpiHalfPrecisionOps& operator=(const MpiHalfPrecisionOps&) = delete;
  // type is float16 or bfloat16; avg maps to the sum op.
  MPI_Op get(DataType type, ReduceOp op) const;

 private:
  void free_all() noexcept;
  std::array<MPI_Op, 8> ops_;
};

// automatic: shared memory between ranks of a host unless the environment variable
// RINGLAB_SHM_DISABLE is set to a non-zero value; messages: MPI point-to-point only.
enum class MpiTransport { automatic, messages };

// How an MpiCommunicator is set up.
struct MpiSetupOptions {
  MpiTransport transport = MpiTransport::automatic;
  // Each collective of the set-up (duplicating the communicator, the shared-memory bring-up) gives
  // up this long after it starts, with a TimeoutError naming the wait (the job's --timeout).
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  // Test only: called with the rank on every rank once the communicator is duplicated, before the
  // shared-memory bring-up (where the fault hook's step=setup stalls a rank).
  std::function<void(int rank)> before_shared_memory;
};

// Prints "ringlab: rank R: <reason>" to stderr and calls MPI_Abort on MPI_COMM_WORLD; does not
// return. For a failure before any MpiCommunicator exists (its set-up); rank -1 prints "?".
[[noreturn]] void abort_mpi_job(int rank, std::string_view reason);

// Offers the combining receive (to peers reached through shared memory), registered buffers and
// MPI_Allreduce as its native all-reduce.
class MpiCommunicator final : public Communicator,
                              public ReceiveReduce,
                              public BufferAllocation,
                              public NativeAllreduce {
 public:
  // Requires an initialised MPI (see MpiEnvironment). Collective over `base`.
  explicit MpiCommunicator(MPI_Comm base = MPI_COMM_WORLD, MpiTransport transport = MpiTransport::automatic);
  MpiCommunicator(MPI_Comm base, const MpiSetupOptions& setup);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view backend_name() const override { return "mpi"; }

  // Messages are limited to INT_MAX bytes (MPI counts are int): std::invalid_argument beyond.
  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override;
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override;
  void barrier(Clock::time_point deadline) override;

  ReceiveReduce* receive_reduce() override { return this; }
  BufferAllocation* buffer_allocation() override { return this; }
  NativeAllreduce* native_allreduce() override { return this; }

  bool can_reduce_on_receive(int peer) const override { return shm_ && shm_->reaches(peer); }
  RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag, DataType type,
                              ReduceOp op) override;
  // Registered shared memory (mpi_registered_buffer.hpp) when ranks share a host, heap otherwise.
  std::unique_ptr<CommBuffer> allocate_buffer(std::size_t bytes, Clock::time_point deadline) override;
  // Sends out of registered buffers shorter than this are copied through slots (for tests and tuning).
  void set_direct_min_bytes(std::size_t bytes) {
    if (shm_) shm_->set_direct_min_bytes(bytes);
  }

  // "shared memory between the K ranks of each host (S slots of B KiB per pair), MPI between
  // hosts" or "MPI point-to-point (reason)".
  std::string transport_description() const override { return transport_description_; }
  // The shared-memory slot size when every peer shares the host, else 0.
  std::int64_t receive_fragment_bytes() const override;
  bool uses_shared_memory() const { return shm_ != nullptr; }

  // MPI_Allreduce (MPI_IN_PLACE when send == recv), in pieces when count exceeds the piece size.
  // Past `deadline` a watchdog thread prints the wait and ends the process (BlockingCallWatchdog).
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                 Clock::time_point deadline) override;
  std::string call_name() const override;

  // Prints the reason to stderr and calls MPI_Abort on MPI_COMM_WORLD; does not return.
  void abort(std::string_view reason) override;

  // Largest number of elements per MPI_Allreduce call (default INT_MAX / 2); lowered by tests.
  void set_allreduce_piece_elements(std::size_t elements);

 private:
  void check_transfer(std::size_t bytes, int peer, int tag, std::string_view operation) const;

  // Destroyed in reverse order: the ops, then the communicator, then the world's handler.
  MpiWorldErrorsReturn world_errors_;
  MpiCommHandle comm_;
  MpiHalfPrecisionOps half_ops_;
  int rank_ = 0;
  int size_ = 0;
  int tag_ub_ = 32767;
  std::size_t piece_elements_ = INT_MAX / 2;
  // The transport is destroyed before the memory its channels live in.
  std::unique_ptr<MpiNodeSharedMemory> shm_memory_;
  std::unique_ptr<ShmTransport> shm_;
  std::string transport_description_;
  std::int64_t next_region_id_ = 0;
  // Ends the process when MPI_Allreduce (mpi-native) overruns its deadline; made with the first call.
  std::unique_ptr<BlockingCallWatchdog> native_watchdog_;
};

}  // namespace ringlab
