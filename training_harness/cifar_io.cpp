#include "training_harness/cifar_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "io/output_file.hpp"
#include "training_harness/data_files.hpp"

namespace ringlab::training {

namespace fs = std::filesystem;

std::vector<fs::path> cifar_training_files(const fs::path& folder) { return data_files_in(folder, "data_batch_", "ringlab make-cifar"); }

std::uint64_t count_cifar_records(std::span<const fs::path> files) {
  std::uint64_t total = 0;
  for (const fs::path& file : files) {
    const std::uintmax_t bytes = fs::file_size(file);
    if (bytes == 0) throw std::invalid_argument(fmt::format("CIFAR file '{}' is empty", file.string()));
    if (bytes % cifar_record_bytes != 0)
      throw std::invalid_argument(fmt::format(
          "CIFAR file '{}' has {} bytes, not a multiple of the {}-byte record: record {} is truncated "
          "({} of {} bytes)",
          file.string(), bytes, cifar_record_bytes, bytes / cifar_record_bytes, bytes % cifar_record_bytes,
          cifar_record_bytes));
    total += bytes / cifar_record_bytes;
  }
  return total;
}

ImageSet read_cifar_records(std::span<const fs::path> files, std::span<const std::uint64_t> wanted) {
  count_cifar_records(files);
  ImageSet set;
  set.image_size = cifar_image_size;
  set.classes = cifar_classes;
  std::vector<std::uint8_t> record(cifar_record_bytes);
  std::uint64_t global = 0;
  std::size_t next_wanted = 0;
  for (const fs::path& file : files) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) throw std::runtime_error(fmt::format("cannot open CIFAR file '{}'", file.string()));
    const std::uint64_t records = fs::file_size(file) / cifar_record_bytes;
    for (std::uint64_t r = 0; r < records; ++r, ++global) {
      if (!stream.read(reinterpret_cast<char*>(record.data()), static_cast<std::streamsize>(record.size())))
        throw std::runtime_error(fmt::format("CIFAR file '{}': reading record {} failed", file.string(), r));
      if (record[0] >= cifar_classes)
        throw std::invalid_argument(fmt::format("CIFAR file '{}': record {} (byte offset {}) has label {}; "
                                                "labels must be 0..9",
                                                file.string(), r, r * cifar_record_bytes, record[0]));
      if (next_wanted < wanted.size() && wanted[next_wanted] == global) {
        set.append(global, record[0], std::span(record).subspan(1));
        ++next_wanted;
      }
    }
  }
  if (next_wanted != wanted.size())
    throw std::logic_error(fmt::format("record {} is past the end of the data", wanted[next_wanted]));
  return set;
}

void write_cifar_file(const fs::path& path, const ImageSet& set) {
  if (set.image_size != cifar_image_size || set.channels != 3 || set.classes > cifar_classes)
    throw std::invalid_argument("only 32x32 RGB images with at most 10 classes fit the CIFAR-10 format");
  io::write_output_file(path.string(), [&](std::ostream& file) {
    const std::size_t bytes = set.image_bytes();
    for (std::size_t i = 0; i < set.size(); ++i) {
      file.put(static_cast<char>(set.labels[i]));
      file.write(reinterpret_cast<const char*>(set.pixels.data() + i * bytes), static_cast<std::streamsize>(bytes));
    }
  });
}

}  // namespace ringlab::training
