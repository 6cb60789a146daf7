// Fuzz target: the CIFAR-10 binary reader, as `ringlab train --data` uses it. Steps: write the
// input as data_batch_1.bin in a fresh folder; list the folder, count the records, then read
// the first and the last record. std::invalid_argument and std::runtime_error are the reader's
// answers to bad files; anything else is a finding, and so is an accepted read whose images do
// not have the sizes the format promises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "training_harness/cifar_io.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace training = ringlab::training;
  const ringlab::fuzz::TemporaryFolder folder;
  ringlab::fuzz::write_input(folder.path(), "data_batch_1.bin", data, size);
  try {
    const auto files = training::cifar_training_files(folder.path());
    const std::uint64_t records = training::count_cifar_records(files);
    std::vector<std::uint64_t> wanted = {0};
    if (records > 1) wanted.push_back(records - 1);
    const training::ImageSet set = training::read_cifar_records(files, wanted);
    if (set.size() != wanted.size() || set.pixels.size() != wanted.size() * (training::cifar_record_bytes - 1))
      std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
