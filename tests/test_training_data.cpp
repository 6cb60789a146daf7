// The CIFAR-10 and mini-ImageNet binary readers and writers, the synthetic generator and the rank
// shards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "training_harness/cifar_io.hpp"
#include "training_harness/dataset.hpp"
#include "training_harness/miniimagenet_io.hpp"

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

// mini-ImageNet layout (miniimagenet_io.hpp): small 12x12 images keep the files small; the
// geometry is a parameter of the reader, so the checks are the same as at 84x84.
class TrainingMiniImagenet : public TrainingData {
 protected:
  static constexpr ImageGeometry small{12, 3, 100};

  fs::path write_mini(const std::string& name, std::uint64_t first, std::uint64_t count, int size = 12) {
    std::vector<std::uint64_t> indices(count);
    std::iota(indices.begin(), indices.end(), first);
    const fs::path path = folder_ / name;
    write_mini_imagenet_file(path, make_synthetic(indices, size, 100, 9));
    return path;
  }

  static std::string mini_error_of(const std::vector<fs::path>& files, const ImageGeometry& geometry = small) {
    try {
      const std::vector<std::uint64_t> first = {0};
      read_mini_imagenet_records(files, geometry, first);
    } catch (const std::exception& error) {
      return error.what();
    }
    return "no error";
  }

  static void overwrite(const fs::path& path, std::streamoff offset, std::initializer_list<unsigned char> bytes) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(offset);
    for (unsigned char byte : bytes) file.put(static_cast<char>(byte));
  }
};

TEST_F(TrainingMiniImagenet, WrittenFilesReadBackAsTheSameImagesAcrossFiles) {
  write_mini(mini_imagenet_file_name(0), 0, 6);
  write_mini(mini_imagenet_file_name(1), 6, 5);
  const auto files = mini_imagenet_files(folder_);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "mini_imagenet_0001.bin");
  EXPECT_EQ(fs::file_size(files[0]), mini_imagenet_header_bytes + 6 * small.record_bytes());
  EXPECT_EQ(count_mini_imagenet_records(files, small), 11u);
  const std::vector<std::uint64_t> wanted = {0, 5, 6, 10};
  const ImageSet read = read_mini_imagenet_records(files, small, wanted);
  const ImageSet made = make_synthetic(wanted, 12, 100, 9);
  EXPECT_EQ(read.indices, made.indices);
  EXPECT_EQ(read.labels, made.labels);
  EXPECT_EQ(read.pixels, made.pixels);
  EXPECT_EQ(read.image_size, 12);
  EXPECT_EQ(read.classes, 100);
}

TEST_F(TrainingMiniImagenet, HeaderIsTheDocumentedLittleEndianLayout) {
  const fs::path path = write_mini("mini_imagenet_0001.bin", 0, 3, 84);
  std::ifstream file(path, std::ios::binary);
  std::vector<unsigned char> bytes(mini_imagenet_header_bytes + 2);
  file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const std::vector<unsigned char> header = {'R', 'L', 'M', 'I', 1, 0, 0, 0, 3,   0, 0, 0, 84, 0, 0, 0,
                                             84,  0,   0,   0,   3, 0, 0, 0, 100, 0, 0, 0, 2,  0, 0, 0};
  EXPECT_EQ(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 32), header);
  EXPECT_EQ(bytes[32], make_synthetic(std::vector<std::uint64_t>{0}, 84, 100, 9).labels[0]);
  EXPECT_EQ(bytes[33], 0);
  EXPECT_EQ(fs::file_size(path), 32u + 3u * 21170u);
}

TEST_F(TrainingMiniImagenet, TruncatedRecordIsNamed) {
  const fs::path path = write_mini("mini_imagenet_0001.bin", 0, 3);
  fs::resize_file(path, mini_imagenet_header_bytes + 2 * small.record_bytes() + 100);
  const std::string error = mini_error_of({path});
  EXPECT_NE(error.find("mini_imagenet_0001.bin' has 1000 bytes but its header declares 3 records of 434 bytes "
                       "(1334 bytes with the header): record 2 is truncated (100 of 434 bytes)"),
            std::string::npos)
      << error;
}

TEST_F(TrainingMiniImagenet, ShortFileBadMagicAndTrailingBytesAreRefused) {
  const fs::path path = write_mini("mini_imagenet_0001.bin", 0, 2);
  overwrite(path, 0, {'C', 'I', 'F', 'R'});
  EXPECT_NE(mini_error_of({path}).find("mini_imagenet_0001.bin' does not start with the magic 'RLMI'"),
            std::string::npos)
      << mini_error_of({path});
  write_mini("mini_imagenet_0001.bin", 0, 2);
  std::ofstream(path, std::ios::binary | std::ios::app).write("xyz", 3);
  EXPECT_NE(mini_error_of({path}).find("has 3 bytes after the 2 records its header declares"), std::string::npos)
      << mini_error_of({path});
  fs::resize_file(path, 20);
  EXPECT_NE(mini_error_of({path}).find("has 20 bytes, less than the 32-byte header"), std::string::npos)
      << mini_error_of({path});
}

TEST_F(TrainingMiniImagenet, LabelOutOfRangeIsNamedWithFileRecordAndOffset) {
  write_mini("mini_imagenet_0001.bin", 0, 2);
  const fs::path path = write_mini("mini_imagenet_0002.bin", 2, 4);
  overwrite(path, static_cast<std::streamoff>(mini_imagenet_header_bytes + 3 * small.record_bytes()), {100, 0});
  const std::string error = mini_error_of(mini_imagenet_files(folder_));
  EXPECT_NE(error.find("mini_imagenet_0002.bin': record 3 (byte offset 1334) has label 100; labels must be 0..99"),
            std::string::npos)
      << error;
  overwrite(path, static_cast<std::streamoff>(mini_imagenet_header_bytes + 3 * small.record_bytes()), {5, 1});
  EXPECT_NE(mini_error_of({path}).find("record 3 (byte offset 1334) has label 261"), std::string::npos)
      << mini_error_of({path});
}

TEST_F(TrainingMiniImagenet, GeometryOtherThanTheModelsIsNamed) {
  const fs::path path = write_mini("mini_imagenet_0001.bin", 0, 2);
  const std::string error = mini_error_of({path}, ImageGeometry{});
  EXPECT_NE(error.find("mini_imagenet_0001.bin' holds 12x12x3 images of 100 classes, but the model takes 84x84x3 "
                       "images of 100 classes"),
            std::string::npos)
      << error;
  EXPECT_NE(mini_error_of({path}, ImageGeometry{12, 3, 10}).find("but the model takes 12x12x3 images of 10 classes"),
            std::string::npos);
}

TEST_F(TrainingMiniImagenet, FolderWithoutFilesNamesTheWriter) {
  write_synthetic("data_batch_1.bin", 0, 2);
  try {
    mini_imagenet_files(folder_);
    ADD_FAILURE() << "a folder of CIFAR files was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no mini_imagenet_*.bin files in"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("ringlab make-miniimagenet --out"), std::string::npos) << error.what();
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
