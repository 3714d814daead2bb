// Codec dispatch, output-size checks shared by every codec, and CRC-32.
#include "compression/codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "compression/codec_internal.h"

namespace floe {

namespace compression_internal {

Status OutputTooLarge(const char* codec, const OutputLimit& limit) {
  if (limit.size_is_expected) {
    return Status::Corruption(std::string(codec) + ": decompressed more than " + std::to_string(limit.limit) +
                              " bytes, page header says " + std::to_string(limit.limit));
  }
  return Status::Corruption(std::string(codec) + ": decompressed output exceeds the limit of " +
                            std::to_string(limit.limit) + " bytes");
}

bool GrowOutput(std::vector<uint8_t>* output, size_t used, const OutputLimit& limit) {
  const size_t cap = static_cast<size_t>(limit.limit) + 1;
  if (used >= cap) return false;
  size_t target = std::max<size_t>({used * 2, used + 1, size_t{64} << 10});
  target = std::min(target, cap);
  if (output->size() < target) output->resize(target);
  return output->size() > used;
}

size_t InitialCapacity(size_t input_size, const OutputLimit& limit) {
  const size_t cap = static_cast<size_t>(limit.limit) + 1;
  // A size from a page header is untrusted: allocate it up front only when the
  // input could plausibly expand to it, so a tiny input cannot make us
  // reserve `limit` bytes. Otherwise start from a typical ratio and grow.
  const size_t kSlack = size_t{1} << 20;
  const size_t plausible = input_size > (SIZE_MAX - kSlack) / 64 ? SIZE_MAX : input_size * 64 + kSlack;
  if (limit.size_is_expected && cap <= plausible) return cap;
  const size_t guess = input_size > SIZE_MAX / 4 ? SIZE_MAX : input_size * 4;
  return std::min(std::max(guess, size_t{64} << 10), cap);
}

}  // namespace compression_internal

namespace ci = compression_internal;

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone: return "none";
    case Codec::kSnappy: return "snappy";
    case Codec::kGzip: return "gzip";
    case Codec::kBrotli: return "brotli";
    case Codec::kZstd: return "zstd";
    case Codec::kLz4Raw: return "lz4_raw";
    case Codec::kLz4Hadoop: return "lz4";
    case Codec::kLz4Frame: return "lz4_frame";
    case Codec::kDeflateRaw: return "deflate";
  }
  return "unknown";
}

Status Decompress(Codec codec, std::span<const uint8_t> input, int64_t expected_size,
                  std::vector<uint8_t>* output, int64_t max_size) {
  const char* name = CodecName(codec);
  output->clear();
  if (max_size < 0) max_size = 0;
  if (expected_size > max_size) {
    return Status::Corruption(std::string(name) + ": page header says " + std::to_string(expected_size) +
                              " decompressed bytes, over the limit of " + std::to_string(max_size));
  }
  // Some writers store an empty page body as zero bytes whatever the codec.
  if (input.empty() && expected_size == 0) return Status::OK();

  const ci::OutputLimit limit{expected_size >= 0 ? expected_size : max_size, expected_size >= 0};
  Status status;
  switch (codec) {
    case Codec::kNone:
      if (static_cast<int64_t>(input.size()) > limit.limit) {
        status = ci::OutputTooLarge(name, limit);
      } else {
        output->assign(input.begin(), input.end());
      }
      break;
    case Codec::kSnappy: status = ci::SnappyDecompress(input, limit, output); break;
    case Codec::kGzip: status = ci::GzipDecompress(input, limit, output); break;
    case Codec::kBrotli: status = ci::BrotliDecompress(input, limit, output); break;
    case Codec::kZstd: status = ci::ZstdDecompress(input, limit, output); break;
    case Codec::kLz4Raw: status = ci::Lz4RawDecompress(input, limit, output); break;
    case Codec::kLz4Hadoop: status = ci::Lz4HadoopDecompress(input, limit, output); break;
    case Codec::kLz4Frame: status = ci::Lz4FrameDecompress(input, limit, output); break;
    case Codec::kDeflateRaw: status = ci::DeflateRawDecompress(input, limit, output); break;
    default: status = Status::NotSupported("unknown codec " + std::to_string(static_cast<int>(codec)));
  }
  if (!status.ok()) {
    output->clear();
    return status;
  }
  if (static_cast<int64_t>(output->size()) > limit.limit) {
    output->clear();
    return ci::OutputTooLarge(name, limit);
  }
  if (expected_size >= 0 && static_cast<int64_t>(output->size()) != expected_size) {
    std::string message = std::string(name) + ": decompressed " + std::to_string(output->size()) +
                          " bytes, page header says " + std::to_string(expected_size);
    output->clear();
    return Status::Corruption(std::move(message));
  }
  return Status::OK();
}

Status DecompressInto(Codec codec, std::span<const uint8_t> input, std::span<uint8_t> output) {
  const char* name = CodecName(codec);
  if (input.empty() && output.empty()) return Status::OK();
  switch (codec) {
    case Codec::kNone:
      if (input.size() != output.size()) {
        return Status::Corruption(std::string(name) + ": page holds " + std::to_string(input.size()) +
                                  " bytes, page header says " + std::to_string(output.size()));
      }
      std::memcpy(output.data(), input.data(), input.size());
      return Status::OK();
    case Codec::kSnappy: return ci::SnappyDecompressInto(input, output);
    case Codec::kLz4Raw: return ci::Lz4RawDecompressInto(input, output);
    case Codec::kZstd: return ci::ZstdDecompressInto(input, output);
    default: {
      std::vector<uint8_t> decoded;
      FLOE_RETURN_IF_ERROR(Decompress(codec, input, static_cast<int64_t>(output.size()), &decoded,
                                      static_cast<int64_t>(output.size())));
      if (!decoded.empty()) std::memcpy(output.data(), decoded.data(), decoded.size());
      return Status::OK();
    }
  }
}

bool DecompressesInPlace(Codec codec) {
  switch (codec) {
    case Codec::kNone:
    case Codec::kSnappy:
    case Codec::kLz4Raw:
    case Codec::kZstd: return true;
    default: return false;
  }
}

bool DeclaresDecompressedSize(Codec codec, std::span<const uint8_t> input, int64_t size) {
  if (size < 0) return false;
  switch (codec) {
    case Codec::kZstd: return ci::ZstdDeclaresSize(input, static_cast<size_t>(size));
    default: return false;
  }
}

int64_t MaxDecompressedSize(Codec codec, size_t input_size) {
  switch (codec) {
    case Codec::kNone: return static_cast<int64_t>(std::min<size_t>(input_size, INT64_MAX));
    case Codec::kSnappy: return ci::SnappyMaxDecompressedSize(input_size);
    case Codec::kLz4Raw: return ci::Lz4RawMaxDecompressedSize(input_size);
    default: return -1;
  }
}

Status Compress(Codec codec, std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  output->clear();
  switch (codec) {
    case Codec::kNone: output->assign(input.begin(), input.end()); return Status::OK();
    case Codec::kSnappy: return ci::SnappyCompress(input, output);
    case Codec::kGzip: return ci::GzipCompress(input, level, output);
    case Codec::kBrotli: return ci::BrotliCompress(input, level, output);
    case Codec::kZstd: return ci::ZstdCompress(input, level, output);
    case Codec::kLz4Raw: return ci::Lz4RawCompress(input, level, output);
    case Codec::kLz4Hadoop: return ci::Lz4HadoopCompress(input, level, output);
    case Codec::kLz4Frame: return ci::Lz4FrameCompress(input, level, output);
    case Codec::kDeflateRaw: return ci::DeflateRawCompress(input, level, output);
  }
  return Status::NotSupported("unknown codec " + std::to_string(static_cast<int>(codec)));
}

int64_t MaxCompressedSize(Codec codec, size_t input_size) {
  switch (codec) {
    case Codec::kNone: return input_size > INT64_MAX ? -1 : static_cast<int64_t>(input_size);
    case Codec::kSnappy: return ci::SnappyMaxCompressedSize(input_size);
    case Codec::kLz4Raw: return ci::Lz4RawMaxCompressedSize(input_size);
    default: return -1;
  }
}

Result<size_t> CompressInto(Codec codec, std::span<const uint8_t> input, int level,
                            std::span<uint8_t> output) {
  switch (codec) {
    case Codec::kNone:
      if (output.size() < input.size()) {
        return Status::InvalidArgument("output buffer of " + std::to_string(output.size()) +
                                       " bytes is below the input's " + std::to_string(input.size()));
      }
      if (!input.empty()) std::memcpy(output.data(), input.data(), input.size());
      return input.size();
    case Codec::kSnappy: return ci::SnappyCompressInto(input, output);
    case Codec::kLz4Raw: return ci::Lz4RawCompressInto(input, level, output);
    default:
      return Status::NotSupported(std::string("codec ") + CodecName(codec) +
                                  " does not compress into a caller's buffer");
  }
}

uint32_t Crc32(std::span<const uint8_t> bytes, uint32_t seed) {
  // zlib's crc32 takes a uInt length; feed large inputs in pieces.
  uLong crc = seed;
  const uint8_t* data = bytes.data();
  size_t remaining = bytes.size();
  while (remaining > 0) {
    const uInt piece = static_cast<uInt>(std::min<size_t>(remaining, 1u << 30));
    crc = crc32(crc, data, piece);
    data += piece;
    remaining -= piece;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace floe
