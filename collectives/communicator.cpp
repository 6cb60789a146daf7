#include "communicator.hpp"

#include <fmt/format.h>

namespace ringlab {

void Communicator::native_allreduce(const void*, void*, std::size_t, DataType, ReduceOp) {
  throw std::logic_error(fmt::format(
      "the {} backend has no native all-reduce; native all-reduce is only available on the mpi backend",
      backend_name()));
}

}  // namespace ringlab
