#include "formats/parquet/encoding/plain.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace floe::parquet {
namespace {

TEST(PlainTest, BooleansArePackedLsbFirst) {
  const std::vector<uint8_t> values = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  std::vector<uint8_t> encoded = {0x77};  // appends after existing bytes
  EncodePlainBooleans(values.data(), static_cast<int64_t>(values.size()), &encoded);
  EXPECT_EQ(encoded, (std::vector<uint8_t>{0x77, 0x0D, 0x03}));
  std::vector<uint8_t> out(values.size());
  ASSERT_OK(DecodePlainBooleans(encoded.data() + 1, 2, 10, out.data()));
  EXPECT_EQ(out, values);
}

TEST(PlainTest, BooleansRoundTripAndTruncation) {
  std::mt19937_64 rng(1);
  for (int64_t count : {0, 1, 8, 9, 63, 64, 1000}) {
    std::vector<uint8_t> values(static_cast<size_t>(count));
    for (auto& v : values) v = rng() % 2;
    std::vector<uint8_t> encoded;
    EncodePlainBooleans(values.data(), count, &encoded);
    ASSERT_EQ(encoded.size(), static_cast<size_t>((count + 7) / 8));
    std::vector<uint8_t> out(values.size());
    ASSERT_OK(DecodePlainBooleans(encoded.data(), encoded.size(), count, out.data()));
    EXPECT_EQ(out, values);
    if (count > 0) {
      EXPECT_EQ(DecodePlainBooleans(encoded.data(), encoded.size() - 1, count, out.data()).kind(),
                ErrorKind::kCorruption);
    }
  }
}

TEST(PlainTest, ByteArraysRoundTrip) {
  std::vector<uint8_t> encoded;
  EncodePlainByteArray("hello", &encoded);
  EncodePlainByteArray("", &encoded);
  EXPECT_EQ(encoded, (std::vector<uint8_t>{5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0}));
  // Bulk encoding from the Column layout matches one-at-a-time encoding.
  const std::vector<int64_t> column_offsets = {0, 5, 5, 8};
  const std::string column_data = "helloabc";
  std::vector<uint8_t> bulk;
  EncodePlainByteArrays(column_offsets.data(), reinterpret_cast<const uint8_t*>(column_data.data()), 3,
                        &bulk);
  std::vector<uint8_t> single;
  EncodePlainByteArray("hello", &single);
  EncodePlainByteArray("", &single);
  EncodePlainByteArray("abc", &single);
  EXPECT_EQ(bulk, single);

  bulk.push_back(0xEE);  // trailing bytes are not consumed
  std::vector<int64_t> offsets = {0, 1};
  std::vector<uint8_t> data = {'z'};
  size_t consumed = 0;
  ASSERT_OK(DecodePlainByteArray(bulk.data(), bulk.size(), 3, &offsets, &data, &consumed));
  EXPECT_EQ(consumed, bulk.size() - 1);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1, 6, 6, 9}));
  EXPECT_EQ(std::string(data.begin(), data.end()), "zhelloabc");
}

TEST(PlainTest, ByteArrayCorruption) {
  std::vector<uint8_t> encoded;
  EncodePlainByteArray("hello", &encoded);
  EncodePlainByteArray("world!", &encoded);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    std::vector<int64_t> offsets;
    std::vector<uint8_t> data;
    size_t consumed = 0;
    EXPECT_EQ(DecodePlainByteArray(encoded.data(), cut, 2, &offsets, &data, &consumed).kind(),
              ErrorKind::kCorruption)
        << "cut " << cut;
  }
  // A length of 2^32-1 with 3 bytes behind it, and a huge count.
  const std::vector<uint8_t> huge = {0xFF, 0xFF, 0xFF, 0xFF, 'a', 'b', 'c'};
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  size_t consumed = 0;
  Status status = DecodePlainByteArray(huge.data(), huge.size(), 1, &offsets, &data, &consumed);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("4294967295"), std::string::npos) << status.message();
  EXPECT_EQ(
      DecodePlainByteArray(encoded.data(), encoded.size(), INT64_MAX, &offsets, &data, &consumed).kind(),
      ErrorKind::kCorruption);
}

TEST(PlainTest, FixedWidth) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<uint8_t> out(8);
  size_t consumed = 0;
  ASSERT_OK(DecodePlainFixed(bytes.data(), bytes.size(), 4, 2, out.data(), &consumed));
  EXPECT_EQ(consumed, 8u);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(DecodePlainFixed(bytes.data(), bytes.size(), 4, 3, out.data(), &consumed).kind(),
            ErrorKind::kCorruption);
  EXPECT_EQ(DecodePlainFixed(bytes.data(), bytes.size(), 8, INT64_MAX, out.data(), &consumed).kind(),
            ErrorKind::kCorruption);
  EXPECT_EQ(DecodePlainFixed(bytes.data(), bytes.size(), 0, 1, out.data(), &consumed).kind(),
            ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::parquet

namespace floe::parquet {
namespace {

// Regression (fuzz): a page of empty strings sizes the output buffer to zero
// bytes, whose data() may be null; copying zero bytes from it was undefined
// behaviour (UBSan: null pointer passed to memcpy).
TEST(PlainTest, EmptyValuesIntoAnEmptyBuffer) {
  const std::vector<uint8_t> two_empty = {0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  size_t consumed = 0;
  ASSERT_OK(DecodePlainByteArray(two_empty.data(), two_empty.size(), 2, &offsets, &data, &consumed));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(data.empty());
  EXPECT_EQ(consumed, 8u);
}

}  // namespace
}  // namespace floe::parquet
