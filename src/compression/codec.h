// Block compression codecs used by Parquet pages and Avro blocks.
//
// Contract: Decompress reads untrusted bytes; corrupt input or a size that
// differs from `expected_size` is Corruption naming the codec, never a crash.
// expected_size < 0 means unknown (Avro deflate); then output grows as needed
// up to `max_size` bytes (a decompression bomb is Corruption, not OOM).
// An empty input with expected_size 0 decodes to nothing for every codec
// (writers store empty page bodies that way). A size from a header is not
// allocated before the input could plausibly expand to it.
// DecompressInto is the variant for a known size (Parquet pages): it writes
// into the caller's buffer, whose size is the expected size, so a reader can
// reuse one buffer for every page without clearing it; the caller allocates,
// so it bounds the size first (MaxDecompressedSize).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe {

enum class Codec : uint8_t {
  kNone,
  kSnappy,  // raw snappy block
  kGzip,    // gzip members (concatenated members are all decoded)
  kBrotli,
  kZstd,        // zstd frame(s)
  kLz4Raw,      // LZ4 block, no framing (Parquet LZ4_RAW)
  kLz4Hadoop,   // Parquet's legacy LZ4: Hadoop framing, falling back to a raw block on decode
  kLz4Frame,    // LZ4 frame format
  kDeflateRaw,  // raw deflate, no header (Avro "deflate")
};

const char* CodecName(Codec codec);

Status Decompress(Codec codec, std::span<const uint8_t> input, int64_t expected_size,
                  std::vector<uint8_t>* output, int64_t max_size = int64_t{1} << 31);

// Decompresses `input` into exactly output.size() bytes: a different size is
// Corruption naming the codec, as in Decompress. On error the content of
// `output` is unspecified. snappy, lz4_raw, zstd and none write straight into
// `output`; other codecs decompress into a temporary and copy.
Status DecompressInto(Codec codec, std::span<const uint8_t> input, std::span<uint8_t> output);

// The most bytes `codec` can decompress `input_size` bytes into, or -1 when the
// codec's expansion is unbounded for practical purposes (gzip, zstd, brotli,
// framed lz4): a caller allocating a size from an untrusted header checks it
// against this bound first.
int64_t MaxDecompressedSize(Codec codec, size_t input_size);

// True when DecompressInto writes straight into the caller's buffer, with no
// temporary: none, snappy, lz4_raw, zstd.
bool DecompressesInPlace(Codec codec);

// True when `input` itself declares that it decompresses to `size` bytes
// (a zstd frame header's content size; other codecs: false). For a codec
// without a MaxDecompressedSize bound, that is what makes allocating `size`
// for DecompressInto plausible: the decoder checks the declaration, and a
// false one is Corruption.
bool DeclaresDecompressedSize(Codec codec, std::span<const uint8_t> input, int64_t size);

// `level` 0 means the codec's default. Replaces the contents of `output`.
Status Compress(Codec codec, std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

// The most bytes Compress can produce from `input_size` bytes with `codec`,
// or -1 for codecs without a cheap bound (CompressInto does not take them).
int64_t MaxCompressedSize(Codec codec, size_t input_size);

// Compresses into output[0, n) and returns n: what Compress produces, written
// straight into a caller's buffer (which need not be cleared) of at least
// MaxCompressedSize bytes. Codecs: none, snappy, lz4_raw; others are
// NotSupported (use Compress).
Result<size_t> CompressInto(Codec codec, std::span<const uint8_t> input, int level,
                            std::span<uint8_t> output);

// CRC-32 (IEEE, as zlib computes it).
uint32_t Crc32(std::span<const uint8_t> bytes, uint32_t seed = 0);

}  // namespace floe
