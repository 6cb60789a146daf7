#include "collectives/communicator.hpp"

#include <utility>
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

}  // namespace ringlab
