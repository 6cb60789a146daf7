// The mini-ImageNet binary layout (see miniimagenet_io.hpp): header checks, then one pass over
// every record checking its label and keeping the wanted ones.
#include "training_harness/miniimagenet_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <stdexcept>
#include <string>

#include "io/output_file.hpp"
#include "training_harness/data_files.hpp"

namespace ringlab::training {

namespace fs = std::filesystem;

namespace {

constexpr std::array<char, 4> magic = {'R', 'L', 'M', 'I'};
constexpr std::uint32_t label_bytes = 2;

struct Header {
  std::uint32_t version = mini_imagenet_version;
  std::uint32_t records = 0;
  std::uint32_t height = 0;
  std::uint32_t width = 0;
  std::uint32_t channels = 0;
  std::uint32_t classes = 0;
  std::uint32_t label_bytes = 2;
};

std::uint32_t load_u32(const unsigned char* bytes) {
  return static_cast<std::uint32_t>(bytes[0]) | static_cast<std::uint32_t>(bytes[1]) << 8 |
         static_cast<std::uint32_t>(bytes[2]) << 16 | static_cast<std::uint32_t>(bytes[3]) << 24;
}

void store_u32(std::ostream& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.put(static_cast<char>((value >> shift) & 0xffU));
}

// Reads and checks the header of `file` (the stream is left at the first record).
Header read_header(std::istream& stream, const fs::path& file, const ImageGeometry& expected) {
  const std::uintmax_t size = fs::file_size(file);
  if (size < mini_imagenet_header_bytes)
    throw std::invalid_argument(fmt::format("mini-ImageNet file '{}' has {} bytes, less than the {}-byte header",
                                            file.string(), size, mini_imagenet_header_bytes));
  std::array<unsigned char, mini_imagenet_header_bytes> bytes{};
  if (!stream.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    throw std::runtime_error(fmt::format("mini-ImageNet file '{}': reading the header failed", file.string()));
  if (!std::equal(magic.begin(), magic.end(), bytes.begin()))
    throw std::invalid_argument(fmt::format(
        "mini-ImageNet file '{}' does not start with the magic 'RLMI' (bytes 52 4C 4D 49): not a file of "
        "this layout (docs/training.md; `ringlab make-miniimagenet` writes them)",
        file.string()));
  Header header;
  header.version = load_u32(&bytes[4]);
  header.records = load_u32(&bytes[8]);
  header.height = load_u32(&bytes[12]);
  header.width = load_u32(&bytes[16]);
  header.channels = load_u32(&bytes[20]);
  header.classes = load_u32(&bytes[24]);
  header.label_bytes = load_u32(&bytes[28]);
  if (header.version != mini_imagenet_version || header.label_bytes != label_bytes)
    throw std::invalid_argument(fmt::format(
        "mini-ImageNet file '{}' has version {} with {}-byte labels; this reader takes version {} with {}-byte labels",
        file.string(), header.version, header.label_bytes, mini_imagenet_version, label_bytes));
  const auto size_u = static_cast<std::uint32_t>(expected.image_size);
  if (header.height != size_u || header.width != size_u ||
      header.channels != static_cast<std::uint32_t>(expected.channels) ||
      header.classes != static_cast<std::uint32_t>(expected.classes))
    throw std::invalid_argument(fmt::format(
        "mini-ImageNet file '{}' holds {}x{}x{} images of {} classes, but the model takes {}x{}x{} images of {} "
        "classes",
        file.string(), header.height, header.width, header.channels, header.classes, expected.image_size,
        expected.image_size, expected.channels, expected.classes));
  if (header.records == 0)
    throw std::invalid_argument(fmt::format("mini-ImageNet file '{}' declares 0 records", file.string()));
  const std::uint64_t record = expected.record_bytes();
  const std::uint64_t body = size - mini_imagenet_header_bytes;
  const std::uint64_t declared = static_cast<std::uint64_t>(header.records) * record;
  if (body < declared)
    throw std::invalid_argument(fmt::format(
        "mini-ImageNet file '{}' has {} bytes but its header declares {} records of {} bytes ({} bytes with the "
        "header): record {} is truncated ({} of {} bytes)",
        file.string(), size, header.records, record, declared + mini_imagenet_header_bytes, body / record,
        body % record, record));
  if (body > declared)
    throw std::invalid_argument(fmt::format(
        "mini-ImageNet file '{}' has {} bytes after the {} records its header declares; the header's record count "
        "is wrong or another file was appended",
        file.string(), body - declared, header.records));
  return header;
}

}  // namespace

std::string mini_imagenet_file_name(std::uint64_t index) { return fmt::format("mini_imagenet_{:04}.bin", index + 1); }

std::vector<fs::path> mini_imagenet_files(const fs::path& folder) { return data_files_in(folder, "mini_imagenet_", "ringlab make-miniimagenet"); }

std::uint64_t count_mini_imagenet_records(std::span<const fs::path> files, const ImageGeometry& expected) {
  std::uint64_t total = 0;
  for (const fs::path& file : files) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) throw std::runtime_error(fmt::format("cannot open mini-ImageNet file '{}'", file.string()));
    total += read_header(stream, file, expected).records;
  }
  return total;
}

ImageSet read_mini_imagenet_records(std::span<const fs::path> files, const ImageGeometry& expected,
                                    std::span<const std::uint64_t> wanted) {
  count_mini_imagenet_records(files, expected);  // every header and size before any record
  ImageSet set;
  set.image_size = expected.image_size;
  set.channels = expected.channels;
  set.classes = expected.classes;
  const std::size_t record_bytes = expected.record_bytes();
  std::vector<std::uint8_t> record(record_bytes);
  std::uint64_t global = 0;
  std::size_t next_wanted = 0;
  for (const fs::path& file : files) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) throw std::runtime_error(fmt::format("cannot open mini-ImageNet file '{}'", file.string()));
    const Header header = read_header(stream, file, expected);
    for (std::uint64_t r = 0; r < header.records; ++r, ++global) {
      const bool keep = next_wanted < wanted.size() && wanted[next_wanted] == global;
      const std::size_t bytes = keep ? record_bytes : label_bytes;  // only the label of a record not kept
      if (!stream.read(reinterpret_cast<char*>(record.data()), static_cast<std::streamsize>(bytes)))
        throw std::runtime_error(fmt::format("mini-ImageNet file '{}': reading record {} failed", file.string(), r));
      if (!keep) stream.seekg(static_cast<std::streamoff>(record_bytes - label_bytes), std::ios::cur);
      const unsigned label = record[0] | static_cast<unsigned>(record[1]) << 8;
      if (label >= header.classes)
        throw std::invalid_argument(fmt::format(
            "mini-ImageNet file '{}': record {} (byte offset {}) has label {}; labels must be 0..{}", file.string(), r,
            mini_imagenet_header_bytes + r * record_bytes, label, header.classes - 1));
      if (keep) {
        set.append(global, static_cast<std::uint8_t>(label), std::span(record).subspan(label_bytes));
        ++next_wanted;
      }
    }
  }
  if (next_wanted != wanted.size())
    throw std::logic_error(fmt::format("record {} is past the end of the data", wanted[next_wanted]));
  return set;
}

void write_mini_imagenet_file(const fs::path& path, const ImageSet& set) {
  if (set.size() == 0) throw std::invalid_argument("a mini-ImageNet file needs at least one record");
  if (set.classes < 1 || set.classes > 256)
    throw std::invalid_argument(fmt::format("{} classes: the images in memory hold labels 0..255", set.classes));
  io::write_output_file(path.string(), [&](std::ostream& file) {
    file.write(magic.data(), magic.size());
    const auto size = static_cast<std::uint32_t>(set.image_size);
    for (std::uint32_t field : {mini_imagenet_version, static_cast<std::uint32_t>(set.size()), size, size,
                                static_cast<std::uint32_t>(set.channels), static_cast<std::uint32_t>(set.classes),
                                label_bytes})
      store_u32(file, field);
    const std::size_t bytes = set.image_bytes();
    for (std::size_t i = 0; i < set.size(); ++i) {
      file.put(static_cast<char>(set.labels[i]));
      file.put('\0');  // labels < 256 in memory: the high byte of the uint16 is 0
      file.write(reinterpret_cast<const char*>(set.pixels.data() + i * bytes), static_cast<std::streamsize>(bytes));
    }
  });
}

}  // namespace ringlab::training
