// Zstandard frames (Parquet ZSTD, Avro "zstandard"); concatenated frames and
// skippable frames are decoded as one stream.
#include <zstd.h>
#include <zstd_errors.h>

#include <string>

#include "compression/codec_internal.h"

namespace floe::compression_internal {

namespace {

constexpr int kDefaultZstdLevel = 3;

Status ZstdError(const char* what, size_t code) {
  return Status::Corruption(std::string("zstd: ") + what + ": " + ZSTD_getErrorName(code));
}

// One decoder per thread, reset before each use: creating one per page cost
// an allocation of its ~100 KB of tables and their first touch every time.
// Thread safety: each thread has its own; the calls below never nest.
ZSTD_DCtx* ThreadDecoder() {
  struct Owner {
    ZSTD_DCtx* context = ZSTD_createDCtx();
    ~Owner() { ZSTD_freeDCtx(context); }
  };
  thread_local Owner owner;
  if (owner.context != nullptr) (void)ZSTD_DCtx_reset(owner.context, ZSTD_reset_session_and_parameters);
  return owner.context;
}

}  // namespace

bool ZstdDeclaresSize(std::span<const uint8_t> input, size_t size) {
  const unsigned long long declared = ZSTD_getFrameContentSize(input.data(), input.size());
  return declared == size;  // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are never a size we are given
}

Status ZstdDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output) {
  ZSTD_DCtx* context = ThreadDecoder();
  if (context == nullptr) return Status::Internal("zstd: out of memory creating a decoder");
  // One call, straight into the caller's buffer: no window buffer, no copy
  // (the streaming decoder below copies every byte through its window).
  // Concatenated and skippable frames are decoded as one stream here too.
  const size_t decoded =
      ZSTD_decompressDCtx(context, output.data(), output.size(), input.data(), input.size());
  if (ZSTD_isError(decoded)) {
    if (ZSTD_getErrorCode(decoded) == ZSTD_error_dstSize_tooSmall) {
      return Status::Corruption("zstd: decodes to more than the " + std::to_string(output.size()) +
                                " bytes the page header says");
    }
    return ZstdError("corrupt input", decoded);
  }
  if (decoded != output.size()) {
    return Status::Corruption("zstd: decompressed " + std::to_string(decoded) + " bytes, page header says " +
                              std::to_string(output.size()));
  }
  return Status::OK();
}

Status ZstdDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                      std::vector<uint8_t>* output) {
  ZSTD_DCtx* context = ThreadDecoder();
  if (context == nullptr) return Status::Internal("zstd: out of memory creating a decoder");
  output->resize(InitialCapacity(input.size(), limit));
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  size_t used = 0;
  Status status;
  while (true) {
    if (used == output->size() && !GrowOutput(output, used, limit)) {
      status = OutputTooLarge("zstd", limit);
      break;
    }
    ZSTD_outBuffer out{output->data(), output->size(), used};
    const size_t in_before = in.pos;
    // 0 once the current frame is complete and flushed.
    const size_t last = ZSTD_decompressStream(context, &out, &in);
    const bool progressed = in.pos != in_before || out.pos != used;
    used = out.pos;
    if (ZSTD_isError(last)) {
      status = ZstdError("corrupt input", last);
      break;
    }
    if (last == 0 && in.pos == in.size) break;  // every frame decoded and flushed
    if (!progressed) {
      status =
          in.pos == in.size
              ? Status::Corruption("zstd: input ends inside a frame after " + std::to_string(in.pos) +
                                   " bytes")
              : Status::Corruption("zstd: decoder made no progress at input byte " + std::to_string(in.pos));
      break;
    }
  }
  if (!status.ok()) return status;
  output->resize(used);
  return Status::OK();
}

Status ZstdCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  if (level == 0) level = kDefaultZstdLevel;
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("zstd: level " + std::to_string(level) + " is outside " +
                                   std::to_string(ZSTD_minCLevel()) + ".." +
                                   std::to_string(ZSTD_maxCLevel()));
  }
  output->resize(ZSTD_compressBound(input.size()));
  const size_t written = ZSTD_compress(output->data(), output->size(), input.data(), input.size(), level);
  if (ZSTD_isError(written)) {
    output->clear();
    return Status::Internal(std::string("zstd: compression failed: ") + ZSTD_getErrorName(written));
  }
  output->resize(written);
  return Status::OK();
}

}  // namespace floe::compression_internal
