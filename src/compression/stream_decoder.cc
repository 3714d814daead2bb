// One adapter per library (zlib, libzstd, liblz4 frame, libbz2) behind the
// StreamDecoder interface.
#include "compression/stream_decoder.h"

#include <bzlib.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <limits>
#include <string>

namespace floe {
namespace {

constexpr size_t kMaxPiece = std::numeric_limits<unsigned int>::max();

class GzipStreamDecoder : public StreamDecoder {
 public:
  ~GzipStreamDecoder() override {
    if (initialised_) inflateEnd(&stream_);
  }
  Status Reset() override {
    if (initialised_) inflateEnd(&stream_);
    stream_ = z_stream{};
    // 16 + MAX_WBITS: gzip header and trailer, checked.
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) return Status::Internal("gzip: inflateInit2 failed");
    initialised_ = true;
    at_boundary_ = true;
    member_ended_ = false;
    return Status::OK();
  }
  Result<size_t> Decode(std::span<const uint8_t>* input, std::span<uint8_t> output) override {
    size_t written = 0;
    while (written < output.size() && !input->empty()) {
      if (member_ended_) {
        // Another member follows the one that ended.
        if (inflateReset(&stream_) != Z_OK) return Status::Corruption("gzip: inflateReset failed");
        member_ended_ = false;
      }
      const size_t in_piece = std::min(input->size(), kMaxPiece);
      const size_t out_piece = std::min(output.size() - written, kMaxPiece);
      stream_.next_in = const_cast<Bytef*>(input->data());
      stream_.avail_in = static_cast<uInt>(in_piece);
      stream_.next_out = output.data() + written;
      stream_.avail_out = static_cast<uInt>(out_piece);
      const int code = inflate(&stream_, Z_NO_FLUSH);
      const size_t consumed = in_piece - stream_.avail_in;
      const size_t produced = out_piece - stream_.avail_out;
      *input = input->subspan(consumed);
      written += produced;
      at_boundary_ = false;
      if (code == Z_STREAM_END) {
        member_ended_ = true;
        at_boundary_ = true;
        continue;
      }
      if (code == Z_BUF_ERROR && consumed == 0 && produced == 0) break;
      if (code != Z_OK && code != Z_BUF_ERROR) {
        return Status::Corruption(std::string("gzip: corrupt input (zlib code ") + std::to_string(code) +
                                  (stream_.msg ? std::string(", ") + stream_.msg : std::string()) + ")");
      }
    }
    return written;
  }
  bool AtFrameBoundary() const override { return at_boundary_; }

 private:
  z_stream stream_{};
  bool initialised_ = false;
  bool at_boundary_ = true;
  bool member_ended_ = false;
};

class ZstdStreamDecoder : public StreamDecoder {
 public:
  ~ZstdStreamDecoder() override { ZSTD_freeDStream(stream_); }
  Status Reset() override {
    if (!stream_) stream_ = ZSTD_createDStream();
    if (!stream_) return Status::Internal("zstd: ZSTD_createDStream failed");
    if (ZSTD_isError(ZSTD_DCtx_reset(stream_, ZSTD_reset_session_only))) {
      return Status::Internal("zstd: reset failed");
    }
    at_boundary_ = true;
    return Status::OK();
  }
  Result<size_t> Decode(std::span<const uint8_t>* input, std::span<uint8_t> output) override {
    ZSTD_inBuffer in{input->data(), input->size(), 0};
    ZSTD_outBuffer out{output.data(), output.size(), 0};
    while (out.pos < out.size) {
      const size_t before_in = in.pos, before_out = out.pos;
      const size_t hint = ZSTD_decompressStream(stream_, &out, &in);
      if (ZSTD_isError(hint)) {
        return Status::Corruption(std::string("zstd: corrupt input: ") + ZSTD_getErrorName(hint));
      }
      if (in.pos != before_in || out.pos != before_out) at_boundary_ = hint == 0;
      if (hint == 0 && in.pos == in.size) break;
      if (in.pos == before_in && out.pos == before_out) break;
    }
    *input = input->subspan(in.pos);
    return out.pos;
  }
  bool AtFrameBoundary() const override { return at_boundary_; }

 private:
  ZSTD_DStream* stream_ = nullptr;
  bool at_boundary_ = true;
};

class Lz4FrameStreamDecoder : public StreamDecoder {
 public:
  ~Lz4FrameStreamDecoder() override {
    if (context_) LZ4F_freeDecompressionContext(context_);
  }
  Status Reset() override {
    if (context_) LZ4F_freeDecompressionContext(context_);
    context_ = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&context_, LZ4F_VERSION))) {
      return Status::Internal("lz4: LZ4F_createDecompressionContext failed");
    }
    at_boundary_ = true;
    return Status::OK();
  }
  Result<size_t> Decode(std::span<const uint8_t>* input, std::span<uint8_t> output) override {
    size_t written = 0;
    while (written < output.size()) {
      size_t out_size = output.size() - written;
      size_t in_size = input->size();
      const size_t hint =
          LZ4F_decompress(context_, output.data() + written, &out_size, input->data(), &in_size, nullptr);
      if (LZ4F_isError(hint))
        return Status::Corruption(std::string("lz4: corrupt input: ") + LZ4F_getErrorName(hint));
      *input = input->subspan(in_size);
      written += out_size;
      if (in_size != 0 || out_size != 0) at_boundary_ = hint == 0;
      if (in_size == 0 && out_size == 0) break;
      if (hint == 0 && input->empty()) break;
    }
    return written;
  }
  bool AtFrameBoundary() const override { return at_boundary_; }

 private:
  LZ4F_dctx* context_ = nullptr;
  bool at_boundary_ = true;
};

class Bzip2StreamDecoder : public StreamDecoder {
 public:
  ~Bzip2StreamDecoder() override {
    if (initialised_) BZ2_bzDecompressEnd(&stream_);
  }
  Status Reset() override {
    if (initialised_) BZ2_bzDecompressEnd(&stream_);
    stream_ = bz_stream{};
    if (BZ2_bzDecompressInit(&stream_, 0, 0) != BZ_OK) return Status::Internal("bzip2: init failed");
    initialised_ = true;
    at_boundary_ = true;
    stream_ended_ = false;
    return Status::OK();
  }
  Result<size_t> Decode(std::span<const uint8_t>* input, std::span<uint8_t> output) override {
    size_t written = 0;
    while (written < output.size() && !input->empty()) {
      if (stream_ended_) {
        // Another stream follows (pbzip2 and `cat a.bz2 b.bz2` write these).
        BZ2_bzDecompressEnd(&stream_);
        stream_ = bz_stream{};
        if (BZ2_bzDecompressInit(&stream_, 0, 0) != BZ_OK) return Status::Internal("bzip2: init failed");
        stream_ended_ = false;
      }
      const size_t in_piece = std::min(input->size(), kMaxPiece);
      const size_t out_piece = std::min(output.size() - written, kMaxPiece);
      stream_.next_in = const_cast<char*>(reinterpret_cast<const char*>(input->data()));
      stream_.avail_in = static_cast<unsigned int>(in_piece);
      stream_.next_out = reinterpret_cast<char*>(output.data() + written);
      stream_.avail_out = static_cast<unsigned int>(out_piece);
      const int code = BZ2_bzDecompress(&stream_);
      const size_t consumed = in_piece - stream_.avail_in;
      const size_t produced = out_piece - stream_.avail_out;
      *input = input->subspan(consumed);
      written += produced;
      at_boundary_ = false;
      if (code == BZ_STREAM_END) {
        stream_ended_ = true;
        at_boundary_ = true;
        continue;
      }
      if (code != BZ_OK)
        return Status::Corruption("bzip2: corrupt input (code " + std::to_string(code) + ")");
      if (consumed == 0 && produced == 0) break;
    }
    return written;
  }
  bool AtFrameBoundary() const override { return at_boundary_; }

 private:
  bz_stream stream_{};
  bool initialised_ = false;
  bool at_boundary_ = true;
  bool stream_ended_ = false;
};

}  // namespace

const char* StreamCodecName(StreamCodec codec) {
  switch (codec) {
    case StreamCodec::kGzip: return "gzip";
    case StreamCodec::kZstd: return "zstd";
    case StreamCodec::kLz4Frame: return "lz4";
    case StreamCodec::kBzip2: return "bzip2";
  }
  return "?";
}

Result<std::unique_ptr<StreamDecoder>> MakeStreamDecoder(StreamCodec codec) {
  std::unique_ptr<StreamDecoder> decoder;
  switch (codec) {
    case StreamCodec::kGzip: decoder = std::make_unique<GzipStreamDecoder>(); break;
    case StreamCodec::kZstd: decoder = std::make_unique<ZstdStreamDecoder>(); break;
    case StreamCodec::kLz4Frame: decoder = std::make_unique<Lz4FrameStreamDecoder>(); break;
    case StreamCodec::kBzip2: decoder = std::make_unique<Bzip2StreamDecoder>(); break;
  }
  if (!decoder) return Status::Internal("unknown stream codec");
  FLOE_RETURN_IF_ERROR(decoder->Reset());
  return decoder;
}

std::optional<StreamCodec> DetectStreamCodec(std::span<const uint8_t> head) {
  if (head.size() >= 2 && head[0] == 0x1F && head[1] == 0x8B) return StreamCodec::kGzip;
  if (head.size() >= 4 && head[0] == 0x28 && head[1] == 0xB5 && head[2] == 0x2F && head[3] == 0xFD) {
    return StreamCodec::kZstd;
  }
  if (head.size() >= 4 && head[0] == 0x04 && head[1] == 0x22 && head[2] == 0x4D && head[3] == 0x18) {
    return StreamCodec::kLz4Frame;
  }
  if (head.size() >= 4 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h' && head[3] >= '1' &&
      head[3] <= '9') {
    return StreamCodec::kBzip2;
  }
  return std::nullopt;
}

}  // namespace floe
