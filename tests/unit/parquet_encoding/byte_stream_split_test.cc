#include "formats/parquet/encoding/byte_stream_split.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "test_util.h"

namespace floe::parquet {
namespace {

TEST(ByteStreamSplitTest, SpecExample) {
  const std::vector<uint8_t> values = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
                                       0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
  const std::vector<uint8_t> split = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
  EXPECT_EQ(EncodeByteStreamSplit(values.data(), 4, 3), split);
  std::vector<uint8_t> out(12);
  ASSERT_OK(DecodeByteStreamSplit(split.data(), split.size(), 4, 3, out.data()));
  EXPECT_EQ(out, values);
}

TEST(ByteStreamSplitTest, RoundTripsEveryWidth) {
  std::mt19937_64 rng(16);
  for (int width = 1; width <= 17; ++width) {
    for (int64_t count : {0, 1, 7, 100, 1001}) {
      std::vector<uint8_t> values(static_cast<size_t>(count * width));
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      const std::vector<uint8_t> split = EncodeByteStreamSplit(values.data(), width, count);
      ASSERT_EQ(split.size(), values.size());
      for (int64_t i = 0; i < count; ++i) {
        for (int k = 0; k < width; ++k) {
          ASSERT_EQ(split[static_cast<size_t>(k * count + i)], values[static_cast<size_t>(i * width + k)]);
        }
      }
      std::vector<uint8_t> out(values.size());
      ASSERT_OK(DecodeByteStreamSplit(split.data(), split.size(), width, count, out.data()));
      EXPECT_EQ(out, values) << "width " << width << " count " << count;
    }
  }
}

TEST(ByteStreamSplitTest, SizeMismatchIsCorruption) {
  const std::vector<uint8_t> data(15);
  std::vector<uint8_t> out(64);
  EXPECT_EQ(DecodeByteStreamSplit(data.data(), data.size(), 4, 4, out.data()).kind(), ErrorKind::kCorruption);
  EXPECT_EQ(DecodeByteStreamSplit(data.data(), data.size(), 8, 2, out.data()).kind(), ErrorKind::kCorruption);
  // count * width overflowing 64 bits.
  EXPECT_EQ(DecodeByteStreamSplit(data.data(), data.size(), 16, INT64_MAX / 4, out.data()).kind(),
            ErrorKind::kCorruption);
  EXPECT_EQ(DecodeByteStreamSplit(data.data(), data.size(), 0, 1, out.data()).kind(),
            ErrorKind::kInvalidArgument);
  ASSERT_OK(DecodeByteStreamSplit(data.data(), 0, 8, 0, out.data()));
}

}  // namespace
}  // namespace floe::parquet
