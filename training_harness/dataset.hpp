// Images in memory, the synthetic generator, and which records a rank needs.
//
// Batches: step s of a run with global batch B over a set of M records uses records
// (s*B + i) mod M for i = 0 .. B-1; rank r of N takes the contiguous block i in
// [r*B/N, (r+1)*B/N) (B must be a multiple of N). Every mode and rank count therefore sees the
// same global batch, and each rank keeps only the records of its own block.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "training_harness/tensor.hpp"

namespace ringlab::training {

struct ImageSet {
  int image_size = 32;
  int channels = 3;
  int classes = 10;
  std::vector<std::uint64_t> indices;  // global record index of each kept image, ascending
  std::vector<std::uint8_t> labels;
  std::vector<std::uint8_t> pixels;  // per image: channel planes of image_size^2 bytes (R, G, B)
  std::size_t image_bytes() const {
    return static_cast<std::size_t>(channels) * static_cast<std::size_t>(image_size * image_size);
  }
  std::size_t size() const { return labels.size(); }
  void append(std::uint64_t index, std::uint8_t label, std::span<const std::uint8_t> image);
};

// Sorted unique global record indices rank `rank` of `nranks` uses in steps [0, steps).
std::vector<std::uint64_t> records_of_rank(std::uint64_t total_records, int global_batch, int steps, int rank,
                                           int nranks);

// Synthetic images with learnable class structure: class c has its own mean colour per channel
// and a stripe pattern (orientation c mod 3, period 2 + (c / 3) mod 3), plus uniform noise of
// +-48 levels; labels are a hash of (seed, index) mod classes. A pure function of (seed, index):
// any rank can make exactly the records it needs.
void append_synthetic(ImageSet& set, std::uint64_t index, std::uint64_t seed);
ImageSet make_synthetic(std::span<const std::uint64_t> indices, int image_size, int classes, std::uint64_t seed);

// Fills the rank's part of step `step`'s batch: images scaled to pixel/255 - 0.5.
void fill_batch(const ImageSet& set, std::uint64_t total_records, int global_batch, int step, int rank, int nranks,
                Tensor& images, std::vector<std::uint8_t>& labels);

}  // namespace ringlab::training
