#include "communicator.hpp"

#include <fmt/format.h>

namespace ringlab {

void Communicator::native_allreduce(const void*, void*, std::size_t, DataType, ReduceOp) {
  throw std::logic_error(fmt::format(
      "the {} backend has no native all-reduce; native all-reduce is only available on the mpi backend",
      backend_name()));
}

RequestPtr Communicator::post_recv_reduce(std::span<std::byte>, const std::byte*, int peer, int, DataType, ReduceOp) {
  throw std::logic_error(fmt::format("the {} backend cannot combine data as it arrives from rank {}; check "
                                     "can_reduce_on_receive() first",
                                     backend_name(), peer));
}

}  // namespace ringlab
