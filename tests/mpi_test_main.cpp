// main() of the MPI test binary: initialises MPI, shares one world communicator, lets only rank 0
// print the GoogleTest report (other ranks print their own failures to stderr), and exits non-zero
// on every rank when any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "tests/mpi_test_support.hpp"

namespace ringlab::testing {
namespace {

MpiCommunicator* world = nullptr;  // set once in main(), before any test runs

// Prints this rank's failures (the default printer only runs on rank 0).
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

}  // namespace

MpiCommunicator& world_communicator() { return *world; }

}  // namespace ringlab::testing

int main(int argc, char** argv) {
  ringlab::MpiEnvironment environment(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = 0;
  int any_failed = 0;
  {
    ringlab::MpiCommunicator comm;
    ringlab::testing::world = &comm;
    const int rank = comm.rank();
    if (rank != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new ringlab::testing::RankFailurePrinter(rank));
    }
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && failed == 0 && any_failed != 0) std::fprintf(stderr, "[rank 0] tests failed on another rank\n");
    ringlab::testing::world = nullptr;
  }
  return any_failed;
}
