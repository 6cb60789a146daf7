#include "collectives/capabilities.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "collectives/reduce.hpp"

namespace ringlab {

void refuse_recv_reduce(std::string_view backend, int peer) {
  throw std::logic_error(fmt::format("the {} backend cannot combine data as it arrives from rank {}; check "
                                     "can_reduce_on_receive() first",
                                     backend, peer));
}

std::unique_ptr<CommBuffer> collective_buffer(Communicator& comm, std::size_t bytes, Clock::time_point deadline) {
  if (BufferAllocation* allocation = comm.buffer_allocation()) return allocation->allocate_buffer(bytes, deadline);
  return make_heap_buffer(bytes,
                          fmt::format("heap memory (the {} backend does not register buffers)", comm.backend_name()));
}

void HostData::copy(void* target, const void* source, std::size_t bytes) {
  if (bytes > 0) std::memcpy(target, source, bytes);
}

void HostData::reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  ringlab::reduce_to(out, a, b, count, type, op);
}

void HostData::reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  ringlab::reduce_into(inout, in, count, type, op);
}

void HostData::divide(void* data, std::size_t count, DataType type, int divisor) {
  divide_elements(data, count, type, divisor);
}

std::unique_ptr<CommBuffer> HostData::allocate_scratch(std::size_t bytes, const void* /*like*/) {
  return make_heap_buffer(bytes, "executor scratch (heap)");
}

DeviceData& host_data() {
  static HostData host;  // no state: every rank may share it
  return host;
}

DeviceData& data_work(Communicator& comm) {
  DeviceData* device = comm.device_data();
  return device != nullptr ? *device : host_data();
}

}  // namespace ringlab
