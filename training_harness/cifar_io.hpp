// The CIFAR-10 binary format: files of 3073-byte records, a label byte (0..9) then 1024 R,
// 1024 G and 1024 B bytes of a 32x32 image (row-major). Training files are data_batch_*.bin.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "training_harness/dataset.hpp"

namespace ringlab::training {

inline constexpr std::size_t cifar_record_bytes = 3073;
inline constexpr int cifar_image_size = 32;
inline constexpr int cifar_classes = 10;

// data_batch_*.bin in `folder`, sorted by name; throws naming the folder when there are none.
std::vector<std::filesystem::path> cifar_training_files(const std::filesystem::path& folder);

// Total records, after checking every file's size is a positive multiple of 3073 (a truncated
// file is named with the byte count and the incomplete record).
std::uint64_t count_cifar_records(std::span<const std::filesystem::path> files);

// Reads the files in order (global record index runs across them), checks every label (<= 9;
// else the file and record are named), and keeps the records in `wanted` (sorted).
ImageSet read_cifar_records(std::span<const std::filesystem::path> files, std::span<const std::uint64_t> wanted);

// Writes `set` as one CIFAR-10 binary file through a temporary file and a rename.
void write_cifar_file(const std::filesystem::path& path, const ImageSet& set);

}  // namespace ringlab::training
