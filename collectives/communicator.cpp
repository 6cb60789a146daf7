#include "collectives/communicator.hpp"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "collectives/reduce.hpp"

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

void Communicator::native_allreduce(const void*, void*, std::size_t, DataType, ReduceOp, Clock::time_point) {
  throw std::logic_error(fmt::format(
      "the {} backend has no native all-reduce; native all-reduce is only available on the mpi backend",
      backend_name()));
}

void Communicator::copy(void* target, const void* source, std::size_t bytes) {
  if (bytes > 0) std::memcpy(target, source, bytes);
}

void Communicator::reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  ringlab::reduce_to(out, a, b, count, type, op);
}

void Communicator::reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  ringlab::reduce_into(inout, in, count, type, op);
}

void Communicator::divide(void* data, std::size_t count, DataType type, int divisor) {
  divide_elements(data, count, type, divisor);
}

std::unique_ptr<CommBuffer> Communicator::allocate_scratch(std::size_t bytes, const void*) {
  return make_heap_buffer(bytes, "executor scratch (heap)");
}

RequestPtr Communicator::post_recv_reduce(std::span<std::byte>, const std::byte*, int peer, int, DataType, ReduceOp) {
  throw std::logic_error(fmt::format("the {} backend cannot combine data as it arrives from rank {}; check "
                                     "can_reduce_on_receive() first",
                                     backend_name(), peer));
}

}  // namespace ringlab
