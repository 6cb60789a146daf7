// The CIFAR-10 binary reader and writer, the synthetic generator and the rank shards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "cifar_io.hpp"
#include "dataset.hpp"

namespace ringlab::training {
namespace {

namespace fs = std::filesystem;

class TrainingData : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("ringlab-cifar-" + std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path write_synthetic(const std::string& name, std::uint64_t first, std::uint64_t count) {
    std::vector<std::uint64_t> indices(count);
    std::iota(indices.begin(), indices.end(), first);
    const fs::path path = folder_ / name;
    write_cifar_file(path, make_synthetic(indices, 32, 10, 5));
    return path;
  }

  std::string error_of(const std::vector<fs::path>& files) {
    try {
      const std::vector<std::uint64_t> all = {0};
      read_cifar_records(files, all);
    } catch (const std::exception& error) {
      return error.what();
    }
    return "no error";
  }

  fs::path folder_;
};

TEST_F(TrainingData, WrittenFilesReadBackAsTheSameImages) {
  write_synthetic("data_batch_1.bin", 0, 7);
  write_synthetic("data_batch_2.bin", 7, 5);
  const auto files = cifar_training_files(folder_);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(count_cifar_records(files), 12u);
  EXPECT_EQ(fs::file_size(files[0]), 7 * cifar_record_bytes);
  const std::vector<std::uint64_t> wanted = {1, 6, 7, 11};
  const ImageSet read = read_cifar_records(files, wanted);
  const ImageSet made = make_synthetic(wanted, 32, 10, 5);
  EXPECT_EQ(read.indices, made.indices);
  EXPECT_EQ(read.labels, made.labels);
  EXPECT_EQ(read.pixels, made.pixels);
}

TEST_F(TrainingData, TruncatedFileIsNamedWithTheRecord) {
  const fs::path path = write_synthetic("data_batch_1.bin", 0, 3);
  fs::resize_file(path, 3 * cifar_record_bytes - 100);
  const std::string error = error_of({path});
  EXPECT_NE(error.find("data_batch_1.bin' has 9119 bytes, not a multiple of the 3073-byte record: record 2 is "
                       "truncated (2973 of 3073 bytes)"),
            std::string::npos)
      << error;
}

TEST_F(TrainingData, BadLabelIsNamedWithFileAndRecord) {
  const fs::path path = write_synthetic("data_batch_3.bin", 0, 4);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(2 * cifar_record_bytes));
    file.put(static_cast<char>(12));
  }
  const std::string error = error_of({path});
  EXPECT_NE(error.find("data_batch_3.bin': record 2 (byte offset 6146) has label 12; labels must be 0..9"),
            std::string::npos)
      << error;
}

TEST_F(TrainingData, EmptyFileAndFolderWithoutBatchesAreRefused) {
  std::ofstream(folder_ / "data_batch_1.bin").close();
  EXPECT_NE(error_of({folder_ / "data_batch_1.bin"}).find("is empty"), std::string::npos);
  fs::remove(folder_ / "data_batch_1.bin");
  try {
    cifar_training_files(folder_);
    ADD_FAILURE() << "an empty folder was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no data_batch_*.bin files in"), std::string::npos) << error.what();
  }
}

TEST(TrainingShards, RanksSplitEveryGlobalBatchIntoContiguousBlocks) {
  // Global batch 6 over 10 records, 2 ranks, 3 steps: step 0 uses records 0..5 (rank 0: 0 1 2,
  // rank 1: 3 4 5), step 1 uses 6 7 8 | 9 0 1, step 2 uses 2 3 4 | 5 6 7.
  EXPECT_EQ(records_of_rank(10, 6, 3, 0, 2), (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 6, 7, 8}));
  EXPECT_EQ(records_of_rank(10, 6, 3, 1, 2), (std::vector<std::uint64_t>{0, 1, 3, 4, 5, 6, 7, 9}));
  const ImageSet shard = make_synthetic(records_of_rank(10, 6, 3, 1, 2), 32, 10, 1);
  Tensor images;
  std::vector<std::uint8_t> labels;
  fill_batch(shard, 10, 6, 1, 1, 2, images, labels);
  const std::vector<std::uint64_t> expected_records = {9, 0, 1};
  const ImageSet expected = make_synthetic(expected_records, 32, 10, 1);
  EXPECT_EQ(labels, expected.labels);
  ASSERT_EQ(images.shape, (Shape{3, 3, 32, 32}));
  EXPECT_FLOAT_EQ(images.data[3072], static_cast<float>(expected.pixels[3072]) / 255.0f - 0.5f);
  EXPECT_THROW(fill_batch(shard, 10, 6, 1, 0, 2, images, labels), std::logic_error);  // rank 0's records
}

// Every class is present and has its own mean colour: the class means differ pairwise by more
// than 8 levels (of 255) in some channel, where noise and stripes average to about 0.
TEST(TrainingShards, SyntheticClassesHaveDistinctMeanColours) {
  std::vector<std::uint64_t> indices(1000);
  std::iota(indices.begin(), indices.end(), 0);
  const ImageSet set = make_synthetic(indices, 32, 10, 3);
  std::vector<std::array<double, 3>> mean(10, {0.0, 0.0, 0.0});
  std::vector<double> count(10, 0.0);
  for (std::size_t i = 0; i < set.size(); ++i) {
    for (std::size_t channel = 0; channel < 3; ++channel) {
      double sum = 0.0;
      for (std::size_t p = 0; p < 1024; ++p) sum += set.pixels[i * set.image_bytes() + channel * 1024 + p];
      mean[set.labels[i]][channel] += sum / 1024;
    }
    count[set.labels[i]] += 1;
  }
  for (int c = 0; c < 10; ++c) {
    ASSERT_GT(count[c], 50) << "class " << c << " is rare";
    for (double& channel : mean[c]) channel /= count[c];
  }
  for (int a = 0; a < 10; ++a)
    for (int b = a + 1; b < 10; ++b) {
      double largest = 0.0;
      for (int channel = 0; channel < 3; ++channel)
        largest = std::max(largest, std::abs(mean[a][channel] - mean[b][channel]));
      EXPECT_GT(largest, 8.0) << "classes " << a << " and " << b;
    }
}

}  // namespace
}  // namespace ringlab::training
