// StreamDecoder: whole-file streaming decompression, fed in any pieces.
#include "compression/stream_decoder.h"

#include <bzlib.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compression/codec.h"
#include "test_util.h"

namespace floe {
namespace {

std::vector<uint8_t> Bytes(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::vector<uint8_t> Pack(StreamCodec codec, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out;
  if (codec == StreamCodec::kBzip2) {
    out.resize(data.size() + data.size() / 100 + 600);
    unsigned int size = static_cast<unsigned int>(out.size());
    EXPECT_EQ(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &size,
                                       const_cast<char*>(reinterpret_cast<const char*>(data.data())),
                                       static_cast<unsigned int>(data.size()), 9, 0, 0),
              BZ_OK);
    out.resize(size);
    return out;
  }
  const Codec block = codec == StreamCodec::kGzip   ? Codec::kGzip
                      : codec == StreamCodec::kZstd ? Codec::kZstd
                                                    : Codec::kLz4Frame;
  EXPECT_OK(Compress(block, data, 0, &out));
  return out;
}

// Decodes `input` fed `piece` bytes at a time into an output buffer of `room`.
Result<std::vector<uint8_t>> Unpack(StreamCodec codec, const std::vector<uint8_t>& input, size_t piece,
                                    size_t room, bool* at_boundary) {
  FLOE_ASSIGN_OR_RETURN(auto decoder, MakeStreamDecoder(codec));
  std::vector<uint8_t> out;
  std::vector<uint8_t> buffer(room);
  size_t fed = 0;
  while (true) {
    const size_t take = std::min(piece, input.size() - fed);
    std::span<const uint8_t> chunk(input.data() + fed, take);
    const size_t before = chunk.size();
    FLOE_ASSIGN_OR_RETURN(size_t produced, decoder->Decode(&chunk, buffer));
    out.insert(out.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(produced));
    fed += before - chunk.size();
    if (fed == input.size() && produced == 0) break;
  }
  *at_boundary = decoder->AtFrameBoundary();
  return out;
}

class StreamDecoderTest : public ::testing::TestWithParam<StreamCodec> {};

TEST_P(StreamDecoderTest, ConcatenatedFramesInAnyPieces) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i * 7919 % 100003) + "\n";
  const auto data = Bytes(text);
  auto packed = Pack(GetParam(), data);
  const auto second = Pack(GetParam(), Bytes("and a second frame\n"));
  packed.insert(packed.end(), second.begin(), second.end());
  auto expected = data;
  const auto tail = Bytes("and a second frame\n");
  expected.insert(expected.end(), tail.begin(), tail.end());
  for (auto [piece, room] :
       {std::pair<size_t, size_t>{1, 7}, {13, 1000}, {4096, 1 << 16}, {packed.size(), 3}}) {
    bool boundary = false;
    ASSERT_OK_AND_ASSIGN(auto out, Unpack(GetParam(), packed, piece, room, &boundary));
    EXPECT_EQ(out, expected) << "piece " << piece << " room " << room;
    EXPECT_TRUE(boundary);
  }
  EXPECT_EQ(DetectStreamCodec(packed), GetParam());
}

TEST_P(StreamDecoderTest, TruncatedAndCorruptInput) {
  const auto data = Bytes(std::string(50000, 'x') + "tail");
  const auto packed = Pack(GetParam(), data);
  // Cut before the end: whatever decodes, the stream does not end at a frame boundary.
  const std::vector<uint8_t> cut(packed.begin(), packed.end() - 5);
  bool boundary = true;
  auto partial = Unpack(GetParam(), cut, 1 << 12, 1 << 12, &boundary);
  if (partial.ok()) {
    EXPECT_FALSE(boundary);
  }
  // Garbage after a complete frame is corruption, not silently ignored.
  auto trailing = packed;
  for (uint8_t b : Bytes("\x01garbage!")) trailing.push_back(b);
  auto garbage = Unpack(GetParam(), trailing, 1 << 12, 1 << 12, &boundary);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(garbage.status().message().find(StreamCodecName(GetParam())), std::string::npos)
      << garbage.status().message();
}

INSTANTIATE_TEST_SUITE_P(Codecs, StreamDecoderTest,
                         ::testing::Values(StreamCodec::kGzip, StreamCodec::kZstd, StreamCodec::kLz4Frame,
                                           StreamCodec::kBzip2),
                         [](const auto& info) { return std::string(StreamCodecName(info.param)); });

TEST(StreamDecoderDetectTest, MagicBytes) {
  EXPECT_EQ(DetectStreamCodec(Bytes("BZh9...")), StreamCodec::kBzip2);
  EXPECT_EQ(DetectStreamCodec(Bytes("BZh0")), std::nullopt);
  EXPECT_EQ(DetectStreamCodec(Bytes("{\"a\"")), std::nullopt);
  EXPECT_EQ(DetectStreamCodec(Bytes("")), std::nullopt);
}

}  // namespace
}  // namespace floe
