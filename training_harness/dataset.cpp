#include "training_harness/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "training_harness/init.hpp"

namespace ringlab::training {

void ImageSet::append(std::uint64_t index, std::uint8_t label, std::span<const std::uint8_t> image) {
  indices.push_back(index);
  labels.push_back(label);
  pixels.insert(pixels.end(), image.begin(), image.end());
}

std::vector<std::uint64_t> records_of_rank(std::uint64_t total_records, int global_batch, int steps, int rank,
                                           int nranks) {
  if (total_records == 0) throw std::invalid_argument("the data set has no records");
  const std::uint64_t batch = static_cast<std::uint64_t>(global_batch);
  const std::uint64_t first = batch * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(nranks);
  const std::uint64_t last = batch * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(nranks);
  std::vector<std::uint64_t> records;
  for (std::uint64_t s = 0; s < static_cast<std::uint64_t>(steps); ++s)
    for (std::uint64_t i = first; i < last; ++i) records.push_back((s * batch + i) % total_records);
  std::sort(records.begin(), records.end());
  records.erase(std::unique(records.begin(), records.end()), records.end());
  return records;
}

void append_synthetic(ImageSet& set, std::uint64_t index, std::uint64_t seed) {
  const int size = set.image_size;
  const auto label = static_cast<std::uint8_t>(mix64(mix64(seed) ^ index) % static_cast<std::uint64_t>(set.classes));
  const int orientation = label % 3;
  const int period = 2 + (label / 3) % 3;
  std::vector<std::uint8_t> image(set.image_bytes());
  std::size_t p = 0;
  for (int channel = 0; channel < set.channels; ++channel) {
    const int mean = 48 + static_cast<int>(mix64(0x5eedULL + label * 3ULL + channel) % 161);  // [48, 208]
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x, ++p) {
        const int along = orientation == 0 ? y : orientation == 1 ? x : x + y;
        const int stripe = (along / period) % 2 == 0 ? 24 : -24;
        const int noise = static_cast<int>(mix64(mix64(seed ^ 0xabcdefULL) ^ (index * 65537ULL + p)) % 97) - 48;
        image[p] = static_cast<std::uint8_t>(std::clamp(mean + stripe + noise, 0, 255));
      }
  }
  set.append(index, label, image);
}

ImageSet make_synthetic(std::span<const std::uint64_t> indices, int image_size, int classes, std::uint64_t seed) {
  if (classes < 1 || classes > 256) throw std::invalid_argument(fmt::format("{} classes: need 1..256", classes));
  ImageSet set;
  set.image_size = image_size;
  set.classes = classes;
  for (std::uint64_t index : indices) append_synthetic(set, index, seed);
  return set;
}

void fill_batch(const ImageSet& set, std::uint64_t total_records, int global_batch, int step, int rank, int nranks,
                Tensor& images, std::vector<std::uint8_t>& labels) {
  const int first = global_batch * rank / nranks;
  const int count = global_batch * (rank + 1) / nranks - first;
  images.resize({count, set.channels, set.image_size, set.image_size});
  labels.resize(static_cast<std::size_t>(count));
  const std::size_t bytes = set.image_bytes();
  for (int i = 0; i < count; ++i) {
    const std::uint64_t record =
        (static_cast<std::uint64_t>(step) * static_cast<std::uint64_t>(global_batch) + static_cast<std::uint64_t>(first + i)) %
        total_records;
    const auto found = std::lower_bound(set.indices.begin(), set.indices.end(), record);
    if (found == set.indices.end() || *found != record)
      throw std::logic_error(fmt::format("record {} is not in this rank's shard", record));
    const std::size_t local = static_cast<std::size_t>(found - set.indices.begin());
    labels[static_cast<std::size_t>(i)] = set.labels[local];
    const std::uint8_t* source = set.pixels.data() + local * bytes;
    float* target = images.sample(i);
    for (std::size_t b = 0; b < bytes; ++b) target[b] = static_cast<float>(source[b]) / 255.0f - 0.5f;
  }
}

}  // namespace ringlab::training
