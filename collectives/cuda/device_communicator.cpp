#include "collectives/cuda/device_communicator.hpp"

#include <fmt/format.h>

#include "collectives/cuda/device_memory.hpp"
#include "collectives/cuda/device_reduce.hpp"

namespace ringlab::cuda {

std::unique_ptr<CommBuffer> DeviceCommunicator::allocate_buffer(std::size_t bytes, Clock::time_point) {
  return std::make_unique<DeviceBuffer>(bytes, context());
}

bool DeviceCommunicator::is_device_memory(const void* pointer) const { return is_device_pointer(pointer); }

void DeviceCommunicator::copy(void* target, const void* source, std::size_t bytes) {
  if (bytes == 0) return;
  const bool target_on_device = is_device_pointer(target);
  const bool source_on_device = is_device_pointer(source);
  if (!target_on_device && !source_on_device) return host_data().copy(target, source, bytes);
  check_cuda(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDefault, stream()), context(),
             fmt::format("cudaMemcpyAsync({} bytes)", bytes));
  if (!target_on_device || !source_on_device)  // host memory involved: the caller reads or reuses it next
    check_cuda(cudaStreamSynchronize(stream()), context(), "cudaStreamSynchronize");
}

void DeviceCommunicator::reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type,
                                   ReduceOp op) {
  if (!is_device_pointer(out)) return host_data().reduce_to(out, a, b, count, type, op);
  check_cuda(reduce_on_device(out, a, b, count, type, op, stream()), context(),
             fmt::format("reduce kernel ({} x {} {})", count, name_of(type), name_of(op)));
}

void DeviceCommunicator::reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  if (!is_device_pointer(inout)) return host_data().reduce_into(inout, in, count, type, op);
  check_cuda(reduce_on_device(inout, inout, in, count, type, op, stream()), context(),
             fmt::format("reduce kernel ({} x {} {})", count, name_of(type), name_of(op)));
}

void DeviceCommunicator::divide(void* data, std::size_t count, DataType type, int divisor) {
  if (!is_device_pointer(data)) return host_data().divide(data, count, type, divisor);
  check_cuda(divide_on_device(data, count, type, divisor, stream()), context(),
             fmt::format("divide kernel ({} x {})", count, name_of(type)));
}

std::unique_ptr<CommBuffer> DeviceCommunicator::allocate_scratch(std::size_t bytes, const void* like) {
  if (!is_device_pointer(like)) return host_data().allocate_scratch(bytes, like);
  return std::make_unique<DeviceBuffer>(bytes, context(), stream());
}

void DeviceCommunicator::record_time_mark() {
  if (!marks_) marks_ = std::make_unique<TimeMarks>(context());
  marks_->record(stream());
}

std::vector<double> DeviceCommunicator::take_time_marks() { return marks_ ? marks_->take() : std::vector<double>{}; }

void DeviceCommunicator::synchronize() {
  check_cuda(cudaStreamSynchronize(stream()), context(), "cudaStreamSynchronize");
}

}  // namespace ringlab::cuda
