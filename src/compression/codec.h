// Block compression codecs used by Parquet pages and Avro blocks.
//
// Contract: Decompress reads untrusted bytes; corrupt input or a size that
// differs from `expected_size` is Corruption naming the codec, never a crash.
// expected_size < 0 means unknown (Avro deflate); then output grows as needed
// up to `max_size` bytes (a decompression bomb is Corruption, not OOM).
// An empty input with expected_size 0 decodes to nothing for every codec
// (writers store empty page bodies that way). A size from a header is not
// allocated before the input could plausibly expand to it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe {

enum class Codec : uint8_t {
  kNone,
  kSnappy,       // raw snappy block
  kGzip,         // gzip members (concatenated members are all decoded)
  kBrotli,
  kZstd,         // zstd frame(s)
  kLz4Raw,       // LZ4 block, no framing (Parquet LZ4_RAW)
  kLz4Hadoop,    // Parquet's legacy LZ4: Hadoop framing, falling back to a raw block on decode
  kLz4Frame,     // LZ4 frame format
  kDeflateRaw,   // raw deflate, no header (Avro "deflate")
};

const char* CodecName(Codec codec);

Status Decompress(Codec codec, std::span<const uint8_t> input, int64_t expected_size,
                  std::vector<uint8_t>* output, int64_t max_size = int64_t{1} << 31);

// `level` 0 means the codec's default. Replaces the contents of `output`.
Status Compress(Codec codec, std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

// CRC-32 (IEEE, as zlib computes it).
uint32_t Crc32(std::span<const uint8_t> bytes, uint32_t seed = 0);

}  // namespace floe
