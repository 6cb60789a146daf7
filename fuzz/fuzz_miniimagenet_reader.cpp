// Fuzz target: the mini-ImageNet (ringlab.mini/1) reader, as `ringlab train --data` uses it.
// Steps: the first input byte picks the geometry the "model" expects (84x84x3 of 100 classes,
// 4x4x3 of 10, 1x1x1 of 2: small ones let short inputs hold whole records); the rest is written as
// mini_imagenet_0001.bin in a fresh folder; list, count, then read the first and the last record.
// std::invalid_argument and std::runtime_error are the reader's answers to bad files; anything
// else is a finding, and so is an accepted read whose images have the wrong size.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "training_harness/miniimagenet_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace training = ringlab::training;
  if (size == 0) return 0;
  constexpr std::array<training::ImageGeometry, 3> geometries = {
      training::ImageGeometry{84, 3, 100}, training::ImageGeometry{4, 3, 10}, training::ImageGeometry{1, 1, 2}};
  const training::ImageGeometry& expected = geometries[data[0] % geometries.size()];
  const ringlab::fuzz::TemporaryFolder folder;
  ringlab::fuzz::write_input(folder.path(), training::mini_imagenet_file_name(0), data + 1, size - 1);
  try {
    const auto files = training::mini_imagenet_files(folder.path());
    const std::uint64_t records = training::count_mini_imagenet_records(files, expected);
    std::vector<std::uint64_t> wanted = {0};
    if (records > 1) wanted.push_back(records - 1);
    const training::ImageSet set = training::read_mini_imagenet_records(files, expected, wanted);
    if (set.size() != wanted.size() || set.pixels.size() != wanted.size() * (expected.record_bytes() - 2)) std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
