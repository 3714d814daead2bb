// LZ4 in its three Parquet/Avro guises: a bare block (LZ4_RAW), Hadoop's
// block framing (Parquet's deprecated LZ4), and the LZ4 frame format.
//
// Parquet's legacy LZ4 codec was written by different implementations in
// different layouts: parquet-mr used Hadoop framing, i.e. repeated
// [u32 BE uncompressed size][u32 BE compressed size][LZ4 block]; some older
// writers stored a bare LZ4 block; a few the LZ4 frame format. Decoding tries
// them in that order and takes the first that accounts for every input byte
// and yields exactly the announced sizes.
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "compression/codec_internal.h"

namespace floe::compression_internal {

namespace {

// Hadoop's LZ4 decoder allocates a fixed buffer (256 KiB by default); blocks
// of 128 KiB keep even incompressible data's compressed chunk below that.
constexpr size_t kHadoopBlockSize = 128 << 10;
constexpr size_t kHadoopPrefixSize = 8;

// An LZ4 block expands at most ~255-fold; a size claiming more is corrupt and
// must not be allocated.
size_t MaxDecodedSize(size_t compressed_size) {
  return compressed_size > SIZE_MAX / 256 ? SIZE_MAX : compressed_size * 255 + 16;
}

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void StoreBigEndian32(uint32_t value, uint8_t* p) {
  p[0] = static_cast<uint8_t>(value >> 24);
  p[1] = static_cast<uint8_t>(value >> 16);
  p[2] = static_cast<uint8_t>(value >> 8);
  p[3] = static_cast<uint8_t>(value);
}

// Decodes one LZ4 block into `capacity` bytes at `dest`; returns the decoded
// size or -1 when the block is malformed or needs more room.
int64_t DecodeBlock(std::span<const uint8_t> block, uint8_t* dest, size_t capacity) {
  if (block.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return -1;
  const int capped = static_cast<int>(std::min<size_t>(capacity, INT32_MAX));
  const int result =
      LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(dest),
                          static_cast<int>(block.size()), std::max(capped, 0));
  return result < 0 ? -1 : result;
}

// Hadoop framing. Returns false (output unspecified) when the bytes are not a
// complete, consistent sequence of Hadoop blocks within the limit.
bool TryDecodeHadoop(std::span<const uint8_t> input, const OutputLimit& limit, std::vector<uint8_t>* output) {
  output->clear();
  size_t pos = 0;
  size_t used = 0;
  while (input.size() - pos >= kHadoopPrefixSize) {
    const uint32_t block_size = LoadBigEndian32(input.data() + pos);
    const uint32_t compressed_size = LoadBigEndian32(input.data() + pos + 4);
    pos += kHadoopPrefixSize;
    if (compressed_size > input.size() - pos) return false;
    if (block_size > static_cast<uint64_t>(limit.limit) - used) return false;
    if (block_size > MaxDecodedSize(compressed_size)) return false;
    output->resize(used + block_size);
    const int64_t decoded =
        DecodeBlock(input.subspan(pos, compressed_size), output->data() + used, block_size);
    if (decoded != static_cast<int64_t>(block_size)) return false;
    used += block_size;
    pos += compressed_size;
  }
  if (pos != input.size()) return false;
  if (limit.size_is_expected && used != static_cast<uint64_t>(limit.limit)) return false;
  return true;
}

// A bare block. With an unknown size, the output is bounded by LZ4's maximum
// ratio (255:1) and the limit.
bool TryDecodeRawBlock(std::span<const uint8_t> input, const OutputLimit& limit,
                       std::vector<uint8_t>* output) {
  size_t capacity = static_cast<size_t>(limit.limit);
  if (limit.size_is_expected && capacity > MaxDecodedSize(input.size())) return false;
  capacity = std::min(capacity, MaxDecodedSize(input.size()));
  output->resize(capacity);
  const int64_t decoded = DecodeBlock(input, output->data(), capacity);
  if (decoded < 0) return false;
  output->resize(static_cast<size_t>(decoded));
  return true;
}

}  // namespace

Status Lz4RawDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output) {
  if (!TryDecodeRawBlock(input, limit, output)) {
    output->clear();
    if (limit.size_is_expected) {
      return Status::Corruption("lz4_raw: corrupt block, or it decodes to more than the " +
                                std::to_string(limit.limit) + " bytes the page header says");
    }
    return Status::Corruption("lz4_raw: corrupt block, or it decodes to more than " +
                              std::to_string(limit.limit) + " bytes");
  }
  return Status::OK();
}

int64_t Lz4RawMaxDecompressedSize(size_t input_size) {
  const size_t bound = MaxDecodedSize(input_size);
  return bound > static_cast<size_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(bound);
}

Status Lz4RawDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output) {
  const int64_t decoded = DecodeBlock(input, output.data(), output.size());
  if (decoded < 0) {
    return Status::Corruption("lz4_raw: corrupt block, or it decodes to more than the " +
                              std::to_string(output.size()) + " bytes the page header says");
  }
  if (static_cast<size_t>(decoded) != output.size()) {
    return Status::Corruption("lz4_raw: decompressed " + std::to_string(decoded) +
                              " bytes, page header says " + std::to_string(output.size()));
  }
  return Status::OK();
}

int64_t Lz4RawMaxCompressedSize(size_t input_size) {
  if (input_size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return -1;
  return LZ4_compressBound(static_cast<int>(input_size));
}

Result<size_t> Lz4RawCompressInto(std::span<const uint8_t> input, int level, std::span<uint8_t> output) {
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::InvalidArgument("lz4: input of " + std::to_string(input.size()) +
                                   " bytes is over LZ4's block limit");
  }
  if (level < 0) return Status::InvalidArgument("lz4: level " + std::to_string(level) + " is negative");
  const int source_size = static_cast<int>(input.size());
  const char* source = reinterpret_cast<const char*>(input.data());
  char* dest = reinterpret_cast<char*>(output.data());
  const int capacity = static_cast<int>(std::min<size_t>(output.size(), INT32_MAX));
  if (capacity < LZ4_compressBound(source_size)) {
    return Status::InvalidArgument("lz4: output buffer of " + std::to_string(output.size()) +
                                   " bytes is below the compressed size bound");
  }
  // Levels above 1 select the slower high-compression encoder (same format).
  const int written =
      level <= 1 ? LZ4_compress_default(source, dest, source_size, capacity)
                 : LZ4_compress_HC(source, dest, source_size, capacity, std::min(level, LZ4HC_CLEVEL_MAX));
  if (written <= 0) return Status::Internal("lz4: compression failed");
  return static_cast<size_t>(written);
}

Status Lz4RawCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  const int64_t bound = Lz4RawMaxCompressedSize(input.size());
  if (bound < 0) {
    return Status::InvalidArgument("lz4: input of " + std::to_string(input.size()) +
                                   " bytes is over LZ4's block limit");
  }
  output->resize(static_cast<size_t>(bound));
  auto written = Lz4RawCompressInto(input, level, *output);
  if (!written.ok()) {
    output->clear();
    return written.status();
  }
  output->resize(*written);
  return Status::OK();
}

Status Lz4HadoopDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                           std::vector<uint8_t>* output) {
  if (TryDecodeHadoop(input, limit, output)) return Status::OK();
  if (TryDecodeRawBlock(input, limit, output)) return Status::OK();
  if (Lz4FrameDecompress(input, limit, output).ok()) return Status::OK();
  output->clear();
  return Status::Corruption(
      "lz4: input of " + std::to_string(input.size()) +
      " bytes is neither Hadoop-framed LZ4, a raw LZ4 block nor an LZ4 frame " +
      (limit.size_is_expected
           ? "decoding to the " + std::to_string(limit.limit) + " bytes the page header says"
           : "within the " + std::to_string(limit.limit) + " byte limit"));
}

Status Lz4HadoopCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  std::vector<uint8_t> block;
  output->clear();
  size_t pos = 0;
  do {
    const size_t block_size = std::min(kHadoopBlockSize, input.size() - pos);
    FLOE_RETURN_IF_ERROR(Lz4RawCompress(input.subspan(pos, block_size), level, &block));
    const size_t prefix_at = output->size();
    output->resize(prefix_at + kHadoopPrefixSize);
    StoreBigEndian32(static_cast<uint32_t>(block_size), output->data() + prefix_at);
    StoreBigEndian32(static_cast<uint32_t>(block.size()), output->data() + prefix_at + 4);
    output->insert(output->end(), block.begin(), block.end());
    pos += block_size;
  } while (pos < input.size());
  return Status::OK();
}

Status Lz4FrameDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                          std::vector<uint8_t>* output) {
  LZ4F_dctx* context = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION))) {
    return Status::Internal("lz4_frame: out of memory creating a decoder");
  }
  output->resize(InitialCapacity(input.size(), limit));
  size_t consumed = 0;
  size_t used = 0;
  Status status;
  while (true) {
    if (used == output->size() && !GrowOutput(output, used, limit)) {
      status = OutputTooLarge("lz4_frame", limit);
      break;
    }
    size_t in_size = input.size() - consumed;
    size_t out_size = output->size() - used;
    // 0 once the current frame is complete.
    const size_t hint = LZ4F_decompress(context, output->data() + used, &out_size, input.data() + consumed,
                                        &in_size, nullptr);
    consumed += in_size;
    used += out_size;
    if (LZ4F_isError(hint)) {
      status = Status::Corruption(std::string("lz4_frame: corrupt input: ") + LZ4F_getErrorName(hint));
      break;
    }
    if (hint == 0 && consumed == input.size()) break;  // every frame decoded and flushed
    if (in_size == 0 && out_size == 0) {
      status = consumed == input.size()
                   ? Status::Corruption("lz4_frame: input ends inside a frame")
                   : Status::Corruption("lz4_frame: decoder made no progress at input byte " +
                                        std::to_string(consumed));
      break;
    }
  }
  LZ4F_freeDecompressionContext(context);
  if (!status.ok()) return status;
  output->resize(used);
  return Status::OK();
}

Status Lz4FrameCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  LZ4F_preferences_t preferences{};
  preferences.frameInfo.contentSize = input.size();
  preferences.compressionLevel = level;
  output->resize(LZ4F_compressFrameBound(input.size(), &preferences));
  const size_t written =
      LZ4F_compressFrame(output->data(), output->size(), input.data(), input.size(), &preferences);
  if (LZ4F_isError(written)) {
    output->clear();
    return Status::Internal(std::string("lz4_frame: compression failed: ") + LZ4F_getErrorName(written));
  }
  output->resize(written);
  return Status::OK();
}

}  // namespace floe::compression_internal
