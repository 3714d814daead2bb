// Per-codec entry points behind codec.h's dispatcher, and the output-size
// bookkeeping they share.
//
// Contract: every *Decompress function writes at most `limit + 1` bytes into
// `output` (the extra byte detects "more than expected") and returns
// Corruption naming the codec for malformed input; the dispatcher checks the
// final size against expected_size. `limit` is expected_size when known,
// else the caller's max_size. Compress functions replace `output`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"

namespace floe::compression_internal {

// Output bound handed to the codecs.
struct OutputLimit {
  int64_t limit;          // never produce more than this many bytes
  bool size_is_expected;  // limit is the page header's size, not a safety cap
};

// The error for output that grew past `limit`.
Status OutputTooLarge(const char* codec, const OutputLimit& limit);

// Makes room past `used` bytes for a streaming decoder, growing geometrically
// but never beyond limit + 1 bytes. Returns false when no room is left.
bool GrowOutput(std::vector<uint8_t>* output, size_t used, const OutputLimit& limit);

// First capacity for a streaming decoder fed `input_size` bytes: the expected
// size when the input could plausibly expand to it, else a guess to grow from.
size_t InitialCapacity(size_t input_size, const OutputLimit& limit);

Status SnappyDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output);
// Decodes into exactly output.size() bytes (a different size is Corruption).
Status SnappyDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output);
// The bound SnappyDecompress enforces on a block header's size.
int64_t SnappyMaxDecompressedSize(size_t input_size);
Status SnappyCompress(std::span<const uint8_t> input, std::vector<uint8_t>* output);
int64_t SnappyMaxCompressedSize(size_t input_size);
Result<size_t> SnappyCompressInto(std::span<const uint8_t> input, std::span<uint8_t> output);

Status GzipDecompress(std::span<const uint8_t> input, const OutputLimit& limit, std::vector<uint8_t>* output);
Status GzipCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

Status DeflateRawDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                            std::vector<uint8_t>* output);
Status DeflateRawCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

// Shared zlib driver: windowBits selects gzip/zlib auto-detection (15 + 32) or
// raw deflate (-15). Concatenated members are decoded when
// `decode_concatenated` is set.
Status ZlibInflate(const char* codec, int window_bits, bool decode_concatenated,
                   std::span<const uint8_t> input, const OutputLimit& limit, std::vector<uint8_t>* output);
Status ZlibDeflate(const char* codec, int window_bits, std::span<const uint8_t> input, int level,
                   std::vector<uint8_t>* output);

Status ZstdDecompress(std::span<const uint8_t> input, const OutputLimit& limit, std::vector<uint8_t>* output);
// Decodes into exactly output.size() bytes (a different size is Corruption).
Status ZstdDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output);
// True when the first frame's header declares `size` decompressed bytes.
bool ZstdDeclaresSize(std::span<const uint8_t> input, size_t size);
Status ZstdCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

Status BrotliDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output);
Status BrotliCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

Status Lz4RawDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output);
// Decodes into exactly output.size() bytes (a different size is Corruption).
Status Lz4RawDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output);
int64_t Lz4RawMaxDecompressedSize(size_t input_size);
Status Lz4RawCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);
int64_t Lz4RawMaxCompressedSize(size_t input_size);
Result<size_t> Lz4RawCompressInto(std::span<const uint8_t> input, int level, std::span<uint8_t> output);
Status Lz4HadoopDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                           std::vector<uint8_t>* output);
Status Lz4HadoopCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);
Status Lz4FrameDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                          std::vector<uint8_t>* output);
Status Lz4FrameCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output);

}  // namespace floe::compression_internal
