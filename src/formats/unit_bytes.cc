#include "formats/unit_bytes.h"

#include <algorithm>
#include <cstring>

#include "formats/ascii_text.h"

namespace floe::formats {
namespace {

constexpr int64_t kCompressedBlock = int64_t{1} << 20;

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The codec a file name promises, if any.
std::optional<StreamCodec> CodecOfName(std::string_view name) {
  if (EndsWith(name, ".gz") || EndsWith(name, ".gzip")) return StreamCodec::kGzip;
  if (EndsWith(name, ".zst") || EndsWith(name, ".zstd")) return StreamCodec::kZstd;
  if (EndsWith(name, ".lz4")) return StreamCodec::kLz4Frame;
  if (EndsWith(name, ".bz2")) return StreamCodec::kBzip2;
  return std::nullopt;
}

}  // namespace

std::string DataExtension(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  for (char& c : name) c = LowerAscii(c);
  for (std::string_view suffix : {".gz", ".gzip", ".zst", ".zstd", ".lz4", ".bz2"}) {
    if (name.size() > suffix.size() && EndsWith(name, suffix)) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  const size_t dot = name.find_last_of('.');
  return dot == std::string::npos ? "" : name.substr(dot + 1);
}

Result<CompressionChoice> ParseCompressionChoice(std::string_view text) {
  CompressionChoice choice;
  if (text == "auto" || text.empty()) return choice;
  choice.detect = false;
  if (text == "none") return choice;
  for (StreamCodec codec :
       {StreamCodec::kGzip, StreamCodec::kZstd, StreamCodec::kLz4Frame, StreamCodec::kBzip2}) {
    if (text == StreamCodecName(codec)) {
      choice.codec = codec;
      return choice;
    }
  }
  return Status::InvalidArgument("compression '" + std::string(text) +
                                 "' is not one of auto, none, gzip, zstd, lz4, bzip2");
}

Result<std::unique_ptr<UnitBytes>> UnitBytes::Open(std::shared_ptr<InputFile> file,
                                                   CompressionChoice compression) {
  FLOE_ASSIGN_OR_RETURN(int64_t size, file->Size());
  std::unique_ptr<UnitBytes> bytes(new UnitBytes(std::move(file), size));
  uint8_t head[4] = {0, 0, 0, 0};
  const int64_t head_size = std::min<int64_t>(size, 4);
  FLOE_RETURN_IF_ERROR(bytes->file_->ReadAt(0, head_size, head));
  if (compression.detect) {
    bytes->codec_ = DetectStreamCodec(std::span<const uint8_t>(head, static_cast<size_t>(head_size)));
    const auto promised = CodecOfName(bytes->name());
    if (promised && bytes->codec_ != promised) {
      return Status::Corruption(bytes->name() + ": the name says " + StreamCodecName(*promised) +
                                " but the bytes do not start with its magic number");
    }
  } else {
    bytes->codec_ = compression.codec;
  }
  if (bytes->codec_) {
    FLOE_ASSIGN_OR_RETURN(bytes->decoder_, MakeStreamDecoder(*bytes->codec_));
  }
  FLOE_RETURN_IF_ERROR(bytes->Restart());
  // Byte-order marks.
  uint8_t bom[4] = {0, 0, 0, 0};
  const size_t got = static_cast<size_t>(std::min<int64_t>(bytes->codec_ ? 4 : size, 4));
  size_t have = 0;
  while (have < got) {
    FLOE_ASSIGN_OR_RETURN(size_t n, bytes->Read(bom + have, got - have));
    if (n == 0) break;
    have += n;
  }
  if (have >= 3 && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF) {
    bytes->data_start_ = 3;
  } else if (have >= 2 && ((bom[0] == 0xFE && bom[1] == 0xFF) || (bom[0] == 0xFF && bom[1] == 0xFE))) {
    return Status::NotSupported(bytes->name() + ": UTF-16/32 text (byte-order mark " +
                                std::string(bom[0] == 0xFE ? "FE FF" : "FF FE") + "); convert it to UTF-8");
  }
  FLOE_RETURN_IF_ERROR(bytes->Restart());
  return bytes;
}

UnitBytes::~UnitBytes() = default;

Status UnitBytes::Restart() {
  position_ = 0;
  compressed_offset_ = 0;
  input_.clear();
  input_pos_ = 0;
  if (decoder_) FLOE_RETURN_IF_ERROR(decoder_->Reset());
  return Status::OK();
}

Result<size_t> UnitBytes::Read(uint8_t* out, size_t n) {
  if (n == 0) return size_t{0};
  if (!codec_) {
    const int64_t left = file_size_ - position_;
    const int64_t take = std::min<int64_t>(left, static_cast<int64_t>(n));
    if (take <= 0) return size_t{0};
    FLOE_RETURN_IF_ERROR(file_->ReadAt(position_, take, out));
    position_ += take;
    return static_cast<size_t>(take);
  }
  size_t written = 0;
  while (written < n) {
    if (input_pos_ == input_.size()) {
      const int64_t left = file_size_ - compressed_offset_;
      if (left <= 0) {
        if (!decoder_->AtFrameBoundary()) {
          return Status::Corruption(name() + ": " + StreamCodecName(*codec_) + " data is truncated");
        }
        break;
      }
      const int64_t take = std::min(left, kCompressedBlock);
      input_.resize(static_cast<size_t>(take));
      FLOE_RETURN_IF_ERROR(file_->ReadAt(compressed_offset_, take, input_.data()));
      compressed_offset_ += take;
      input_pos_ = 0;
    }
    std::span<const uint8_t> input(input_.data() + input_pos_, input_.size() - input_pos_);
    const size_t before = input.size();
    auto produced = decoder_->Decode(&input, std::span<uint8_t>(out + written, n - written));
    if (!produced.ok()) return produced.status().WithContext(name());
    input_pos_ = input_.size() - input.size();
    written += *produced;
    if (*produced == 0 && input.size() == before && !input.empty()) {
      return Status::Corruption(name() + ": " + StreamCodecName(*codec_) + " decoder made no progress");
    }
  }
  position_ += static_cast<int64_t>(written);
  return written;
}

Status UnitBytes::Skip(int64_t n) {
  std::vector<uint8_t> scratch(static_cast<size_t>(std::min<int64_t>(n, int64_t{1} << 20)));
  while (n > 0) {
    FLOE_ASSIGN_OR_RETURN(size_t got,
                          Read(scratch.data(), static_cast<size_t>(std::min<int64_t>(n, scratch.size()))));
    if (got == 0)
      return Status::Corruption(name() + ": data ends before offset " + std::to_string(position_ + n));
    n -= static_cast<int64_t>(got);
  }
  return Status::OK();
}

Status UnitBytes::Seek(int64_t offset) {
  if (offset < 0) return Status::InvalidArgument(name() + ": negative offset");
  if (!codec_) {
    position_ = offset;
    return Status::OK();
  }
  if (offset < position_) FLOE_RETURN_IF_ERROR(Restart());
  if (offset > position_) FLOE_RETURN_IF_ERROR(Skip(offset - position_));
  return Status::OK();
}

Status UnitBytes::ReadRange(int64_t offset, int64_t n, uint8_t* out) {
  if (offset < 0 || n < 0) return Status::InvalidArgument(name() + ": negative range");
  if (!codec_) {
    if (offset > file_size_ || n > file_size_ - offset) {
      return Status::Corruption(name() + ": range " + std::to_string(offset) + "+" + std::to_string(n) +
                                " is past the end (" + std::to_string(file_size_) + " bytes)");
    }
    if (n > 0) FLOE_RETURN_IF_ERROR(file_->ReadAt(offset, n, out));
    position_ = offset + n;
    return Status::OK();
  }
  FLOE_RETURN_IF_ERROR(Seek(offset));
  int64_t done = 0;
  while (done < n) {
    FLOE_ASSIGN_OR_RETURN(size_t got, Read(out + done, static_cast<size_t>(n - done)));
    if (got == 0)
      return Status::Corruption(name() + ": data ends before offset " + std::to_string(offset + n));
    done += static_cast<int64_t>(got);
  }
  return Status::OK();
}

Result<char> FirstTextByte(std::shared_ptr<InputFile> file, const CompressionChoice& compression) {
  FLOE_ASSIGN_OR_RETURN(auto bytes, UnitBytes::Open(std::move(file), compression));
  FLOE_RETURN_IF_ERROR(bytes->Seek(bytes->data_start()));
  std::string head(4096, '\0');
  FLOE_ASSIGN_OR_RETURN(size_t got, bytes->Read(reinterpret_cast<uint8_t*>(head.data()), head.size()));
  for (size_t i = 0; i < got; ++i) {
    const char c = head[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') return c;
  }
  return '\0';
}

}  // namespace floe::formats
