#include "communicator.hpp"

#include <fmt/format.h>

#include <vector>

namespace ringlab {

namespace {

class HeapBuffer final : public CommBuffer {
 public:
  HeapBuffer(std::size_t bytes, std::string description) : memory_(bytes), description_(std::move(description)) {}
  std::span<std::byte> bytes() override { return memory_; }
  std::string description() const override { return description_; }

 private:
  std::vector<std::byte> memory_;
  std::string description_;
};

}  // namespace

std::unique_ptr<CommBuffer> make_heap_buffer(std::size_t bytes, std::string description) {
  return std::make_unique<HeapBuffer>(bytes, std::move(description));
}

std::unique_ptr<CommBuffer> Communicator::allocate_buffer(std::size_t bytes, Clock::time_point) {
  return make_heap_buffer(bytes, fmt::format("heap memory (the {} backend does not register buffers)", backend_name()));
}

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
