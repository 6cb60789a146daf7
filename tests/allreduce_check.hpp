// One checked all-reduce call, shared by the threads and MPI test suites.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/communicator.hpp"
#include "collectives/datatype.hpp"

namespace ringlab::testing {

// An implementation under test: an algorithm name plus its options.
struct Implementation {
  std::string name;
  AlgorithmOptions options;
  std::string label;  // unique, usable in a test name
  std::string twin;   // the label of an implementation whose schedule it equals at some N
};

// parameter_server (central and k = N), ring, interval_paired, halving_doubling, recursive_doubling,
// swing, swing_latency, bine, bruck, double_binary_tree, hierarchical (groups of 2, interval_paired
// across), nccl_ring (nodes of 2, 3 channels, 2 slices), nccl_tree (nodes of 2, 3 segments); plus
// mpi-native when `with_native`.
// Without the ones whose schedule at N ranks equals their twin's (bine is swing below N = 8,
// bruck is interval_paired at N = 2^K and 2^K - 1, hierarchical at odd N): running them would repeat the twin's cases.
std::vector<Implementation> implementations(int nranks, bool with_native);

// The labels of every implementation, for test parameters; and the implementation of a label at
// N ranks, empty (name "") where it repeats its twin there: the test then skips.
std::vector<std::string> implementation_labels();
Implementation implementation_for(const std::string& label, int nranks);

// {0, 1, N-1, N, N+1, 1009 (a prime), 2^20 + 3}, without duplicates; the last one can be lowered
// with the environment variable RINGLAB_TEST_LARGE_COUNT (tests/CMakeLists.txt sets it per test).
std::vector<std::int64_t> test_counts(int nranks);

// Every (type, op) pair, or only the pairs listed in RINGLAB_TEST_TYPE_OPS ("float32:sum,int64:max",
// names as --dtype and --op take them). Throws std::invalid_argument naming a bad entry.
std::vector<std::pair<DataType, ReduceOp>> test_type_ops();

struct CaseResult {
  std::int64_t wrong = 0;          // elements whose bits differ from the expected result
  std::int64_t guard_damaged = 0;  // bytes written past the end of the buffers
};

// Runs implementation x type x op x count x placement on `comm` and checks the result on this rank.
// With `backend_buffers` the input and output come from collective_buffer (collective: every rank
// passes the same value; device memory on device backends, filled and read back with
// DeviceData::copy), otherwise from the heap.
CaseResult run_allreduce_case(Communicator& comm, const Implementation& implementation, DataType type, ReduceOp op,
                              std::int64_t count, bool in_place, std::size_t segment_bytes,
                              bool backend_buffers = false);

}  // namespace ringlab::testing
