// The mini-ImageNet binary layout this project defines for preprocessed images (ringlab.mini/1;
// docs/training.md, "Data"). A folder holds files mini_imagenet_*.bin, read in name order (the
// writer numbers them with 4 digits, so name order is number order); the global record index runs
// across the files in that order. Every file is
//   header, 32 bytes, every field a little-endian uint32:
//     0 magic "RLMI" (the bytes 52 4C 4D 49)   4 version (1)       8 records in this file
//    12 height   16 width   20 channels   24 classes   28 label bytes (2)
//   then `records` records of 2 + channels*height*width bytes: the label as a little-endian
//   uint16 in [0, classes), then the pixels as uint8 channel planes (C, H, W order, row-major).
// Preprocessed mini-ImageNet is 84x84x3 with 100 classes: 21170-byte records.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "training_harness/dataset.hpp"

namespace ringlab::training {

inline constexpr std::size_t mini_imagenet_header_bytes = 32;
inline constexpr std::uint32_t mini_imagenet_version = 1;
inline constexpr int mini_imagenet_image_size = 84;
inline constexpr int mini_imagenet_classes = 100;

// What a model takes; a file whose header says otherwise is refused by name.
struct ImageGeometry {
  int image_size = mini_imagenet_image_size;  // square images
  int channels = 3;
  int classes = mini_imagenet_classes;
  std::size_t record_bytes() const {
    return 2 + static_cast<std::size_t>(channels) * static_cast<std::size_t>(image_size) *
                   static_cast<std::size_t>(image_size);
  }
};

// mini_imagenet_*.bin in `folder`, sorted by name; throws naming the folder when there are none.
std::vector<std::filesystem::path> mini_imagenet_files(const std::filesystem::path& folder);

// Total records, after checking every file's header (magic, version, label bytes, geometry equal
// to `expected`) and that its size is exactly the header's record count of records (a truncated
// record is named with its index and how many of its bytes are there).
std::uint64_t count_mini_imagenet_records(std::span<const std::filesystem::path> files, const ImageGeometry& expected);

// Reads the files in order, checks every header and every label (< classes; else the file, the
// record and its byte offset are named), and keeps the records in `wanted` (sorted, unique).
ImageSet read_mini_imagenet_records(std::span<const std::filesystem::path> files, const ImageGeometry& expected,
                                    std::span<const std::uint64_t> wanted);

// Writes `set` as one file of this layout through a temporary file and a rename.
void write_mini_imagenet_file(const std::filesystem::path& path, const ImageSet& set);

// "mini_imagenet_0001.bin" for index 0: the writer's file names.
std::string mini_imagenet_file_name(std::uint64_t index);

}  // namespace ringlab::training
