// zlib-based codecs: gzip (Parquet GZIP) and the inflate/deflate driver that
// raw deflate (deflate_raw.cc) shares.
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <string>

#include "compression/codec_internal.h"

namespace floe::compression_internal {

namespace {

constexpr size_t kMaxZlibChunk = std::numeric_limits<uInt>::max();

Status ZlibError(const char* codec, const char* what, int code, const z_stream& stream) {
  std::string message = std::string(codec) + ": " + what + " failed (zlib code " + std::to_string(code);
  if (stream.msg != nullptr) message += std::string(", ") + stream.msg;
  return Status::Corruption(message + ")");
}

}  // namespace

Status ZlibInflate(const char* codec, int window_bits, bool decode_concatenated,
                   std::span<const uint8_t> input, const OutputLimit& limit, std::vector<uint8_t>* output) {
  z_stream stream{};
  int code = inflateInit2(&stream, window_bits);
  if (code != Z_OK) return Status::Internal(std::string(codec) + ": inflateInit2 failed");

  output->resize(InitialCapacity(input.size(), limit));
  size_t used = 0;
  size_t consumed = 0;
  Status status;
  while (true) {
    if (used == output->size() && !GrowOutput(output, used, limit)) {
      status = OutputTooLarge(codec, limit);
      break;
    }
    const size_t in_chunk = std::min(input.size() - consumed, kMaxZlibChunk);
    const size_t out_chunk = std::min(output->size() - used, kMaxZlibChunk);
    stream.next_in = const_cast<Bytef*>(input.data() + consumed);
    stream.avail_in = static_cast<uInt>(in_chunk);
    stream.next_out = output->data() + used;
    stream.avail_out = static_cast<uInt>(out_chunk);
    code = inflate(&stream, Z_NO_FLUSH);
    consumed += in_chunk - stream.avail_in;
    used += out_chunk - stream.avail_out;
    if (code == Z_STREAM_END) {
      if (!decode_concatenated || consumed == input.size()) break;
      // Another gzip member follows; decode it into the same output.
      code = inflateReset(&stream);
      if (code != Z_OK) {
        status = ZlibError(codec, "inflateReset", code, stream);
        break;
      }
      continue;
    }
    if (code == Z_BUF_ERROR) {
      // No progress possible: either output is full (grow and retry) or the
      // input ended inside the stream.
      if (stream.avail_out == 0) continue;
      status = Status::Corruption(std::string(codec) + ": input ends inside the compressed stream after " +
                                  std::to_string(consumed) + " bytes");
      break;
    }
    if (code != Z_OK) {
      status = ZlibError(codec, "inflate", code, stream);
      break;
    }
    if (consumed == input.size() && stream.avail_out != 0) {
      status = Status::Corruption(std::string(codec) + ": input ends inside the compressed stream after " +
                                  std::to_string(consumed) + " bytes");
      break;
    }
  }
  inflateEnd(&stream);
  if (!status.ok()) return status;
  output->resize(used);
  return Status::OK();
}

Status ZlibDeflate(const char* codec, int window_bits, std::span<const uint8_t> input, int level,
                   std::vector<uint8_t>* output) {
  if (level == 0) level = Z_DEFAULT_COMPRESSION;
  if (level < 1 || level > 9) {
    if (level != Z_DEFAULT_COMPRESSION) {
      return Status::InvalidArgument(std::string(codec) + ": level " + std::to_string(level) +
                                     " is outside 1..9");
    }
  }
  if (input.size() > kMaxZlibChunk) {
    return Status::InvalidArgument(std::string(codec) + ": input of " + std::to_string(input.size()) +
                                   " bytes is over zlib's 4 GiB limit");
  }
  z_stream stream{};
  int code = deflateInit2(&stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  if (code != Z_OK) return Status::Internal(std::string(codec) + ": deflateInit2 failed");
  const uLong bound = deflateBound(&stream, static_cast<uLong>(input.size()));
  output->resize(bound);
  stream.next_in = const_cast<Bytef*>(input.data());
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = output->data();
  stream.avail_out = static_cast<uInt>(std::min<uLong>(bound, kMaxZlibChunk));
  code = deflate(&stream, Z_FINISH);
  const size_t written = stream.total_out;
  deflateEnd(&stream);
  if (code != Z_STREAM_END) {
    output->clear();
    return Status::Internal(std::string(codec) + ": deflate did not finish (zlib code " +
                            std::to_string(code) + ")");
  }
  output->resize(written);
  return Status::OK();
}

Status GzipDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                      std::vector<uint8_t>* output) {
  // 15 + 32: accept gzip or zlib headers, as other Parquet readers do.
  return ZlibInflate("gzip", 15 + 32, /*decode_concatenated=*/true, input, limit, output);
}

Status GzipCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  // 15 + 16: a gzip header and trailer around the deflate stream.
  return ZlibDeflate("gzip", 15 + 16, input, level, output);
}

}  // namespace floe::compression_internal
