// Expected values the nccl-tests way: the inputs and the results a correct collective gives. Every
// input is a small integer, exact in every type, and every partial result stays exact, so any
// summation order gives bit-identical results and a result can be compared bit for bit with the
// expected value. Production code (bench -c 1, allreduce --check), not only the tests'.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/datatype.hpp"
#include "collectives/schedule.hpp"

namespace ringlab {

// Input of `rank` (of `nranks`) for element i, as an exact small integer.
double input_value(ReduceOp op, int rank, int nranks, std::int64_t element);

// Fills `count` elements of `type` with rank's input.
void fill_input(void* data, std::int64_t count, DataType type, ReduceOp op, int rank, int nranks);

// Fills the expected all-reduce result (avg divides exactly as the executor does).
void fill_expected_allreduce(void* data, std::int64_t count, DataType type, ReduceOp op, int nranks);

// Elements whose bits differ.
std::int64_t count_mismatches(const void* actual, const void* expected, std::int64_t count, DataType type);

}  // namespace ringlab
