// The fault hook's set-up points (RINGLAB_FAULT step=setup and step=mpi-init): parsed next to the
// step form, never fired at a step, and acted on at once by inject_setup_fault on its own rank and
// point only. The end-to-end checks (a rank stalled in set-up ends the job within --timeout) are
// the CTest entries of tests/hardening_setup.cmake.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/communicator.hpp"
#include "collectives/fault_injection.hpp"

namespace ringlab {
namespace {

std::string failure_of(const std::optional<FaultSpec>& spec, std::initializer_list<FaultPoint> points, int rank) {
  try {
    inject_setup_fault(spec, points, rank, "before the test's waits", [] { return false; });
  } catch (const std::exception& error) {
    return error.what();
  }
  return "no error";
}

TEST(SetupFaultSpec, ParsesTheSetUpPointsBesideTheStepForm) {
  const FaultSpec setup = parse_fault_spec("rank=1,step=setup,action=stall,seconds=2");
  EXPECT_EQ(setup.point, FaultPoint::setup);
  EXPECT_EQ(setup.rank, 1);
  EXPECT_DOUBLE_EQ(setup.stall_seconds, 2);
  EXPECT_EQ(describe(setup), "stall on rank 1 during set-up");
  const FaultSpec init = parse_fault_spec("rank=0,step=mpi-init,action=exit");
  EXPECT_EQ(init.point, FaultPoint::mpi_init);
  EXPECT_EQ(describe(init), "exit on rank 0 before MPI_Init_thread");
  const FaultSpec step = parse_fault_spec("rank=2,step=3,action=fail");
  EXPECT_EQ(step.point, FaultPoint::step);
  EXPECT_EQ(step.step, 3);
}

TEST(SetupFaultSpec, RefusesAnUnknownPointWithTheForm) {
  try {
    parse_fault_spec("rank=1,step=set-up,action=stall");
    FAIL() << "step=set-up was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("step='set-up' is not a non-negative number; the form is "
                                             "rank=R,step=S|setup|mpi-init,action="),
              std::string::npos)
        << error.what();
  }
}

// A set-up fault never acts at an executor step or a measurement round (step 0 included).
TEST(SetupFaultSpec, NeverFiresAtAStepOrRound) {
  run_threads(2, [](Communicator& comm) {
    FaultInjector fault(parse_fault_spec("rank=1,step=setup,action=fail"));
    for (std::size_t round = 0; round < 3; ++round) EXPECT_NO_THROW(fault.at_round(comm, "test", round, 64));
  });
}

TEST(InjectSetupFault, ActsOnlyOnItsRankAtItsPoint) {
  const std::optional<FaultSpec> spec = parse_fault_spec("rank=1,step=setup,action=fail");
  EXPECT_EQ(failure_of(spec, {FaultPoint::setup}, 1), "fault injected: failing at set-up (before the test's waits)");
  EXPECT_EQ(failure_of(spec, {FaultPoint::setup}, 0), "no error");
  EXPECT_EQ(failure_of(spec, {FaultPoint::mpi_init}, 1), "no error");
  EXPECT_EQ(failure_of(spec, {FaultPoint::step}, 1), "no error");
  EXPECT_EQ(failure_of(std::nullopt, {FaultPoint::setup}, 1), "no error");
  // Backends without MPI take step=mpi-init at their one set-up point.
  const std::optional<FaultSpec> init = parse_fault_spec("rank=0,step=mpi-init,action=fail");
  EXPECT_NE(failure_of(init, {FaultPoint::setup, FaultPoint::mpi_init}, 0), "no error");
}

// A set-up stall ends as soon as the job is aborted, saying so.
TEST(InjectSetupFault, StallEndsWhenTheJobIsAborted) {
  const std::optional<FaultSpec> spec = parse_fault_spec("rank=0,step=setup,action=stall,seconds=60");
  int polls = 0;
  try {
    inject_setup_fault(spec, {FaultPoint::setup}, 0, "before the test's waits", [&] { return ++polls > 2; });
    FAIL() << "the stall returned";
  } catch (const CommunicationError& error) {
    EXPECT_EQ(std::string(error.what()),
              "rank 0: injected stall at set-up (before the test's waits) interrupted: the job was aborted");
  }
}

}  // namespace
}  // namespace ringlab
