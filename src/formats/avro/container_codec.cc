#include <string>

#include "compression/codec.h"
#include "formats/avro/container.h"

namespace floe::avro {

const char* AvroCodecName(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kNull: return "null";
    case AvroCodec::kDeflate: return "deflate";
    case AvroCodec::kSnappy: return "snappy";
    case AvroCodec::kZstandard: return "zstandard";
  }
  return "unknown";
}

Result<AvroCodec> ParseAvroCodec(std::string_view name) {
  if (name == "null" || name.empty()) return AvroCodec::kNull;
  if (name == "deflate") return AvroCodec::kDeflate;
  if (name == "snappy") return AvroCodec::kSnappy;
  if (name == "zstandard" || name == "zstd") return AvroCodec::kZstandard;
  std::string shown(name.substr(0, 64));
  return Status::NotSupported("avro codec '" + shown +
                              "' is not supported (null, deflate, snappy, zstandard are)");
}

Status DecompressBlock(AvroCodec codec, std::span<const uint8_t> data, int64_t max_size,
                       std::vector<uint8_t>* out) {
  switch (codec) {
    case AvroCodec::kNull:
      if (static_cast<int64_t>(data.size()) > max_size) {
        return Status::Corruption("block of " + std::to_string(data.size()) + " bytes exceeds the limit of " +
                                  std::to_string(max_size));
      }
      out->assign(data.begin(), data.end());
      return Status::OK();
    case AvroCodec::kDeflate: return Decompress(Codec::kDeflateRaw, data, -1, out, max_size);
    case AvroCodec::kZstandard: return Decompress(Codec::kZstd, data, -1, out, max_size);
    case AvroCodec::kSnappy: {
      if (data.size() < 4)
        return Status::Corruption("snappy block of " + std::to_string(data.size()) + " bytes has no CRC");
      const auto body = data.first(data.size() - 4);
      const auto crc_bytes = data.last(4);
      FLOE_RETURN_IF_ERROR(Decompress(Codec::kSnappy, body, -1, out, max_size));
      const uint32_t stored = (uint32_t{crc_bytes[0]} << 24) | (uint32_t{crc_bytes[1]} << 16) |
                              (uint32_t{crc_bytes[2]} << 8) | uint32_t{crc_bytes[3]};
      const uint32_t actual = Crc32(*out);
      if (stored != actual) {
        out->clear();
        return Status::Corruption("snappy block CRC mismatch (stored " + std::to_string(stored) +
                                  ", computed " + std::to_string(actual) + ")");
      }
      return Status::OK();
    }
  }
  return Status::Internal("unknown avro codec");
}

Status CompressBlock(AvroCodec codec, std::span<const uint8_t> data, int level, std::vector<uint8_t>* out) {
  switch (codec) {
    case AvroCodec::kNull: out->assign(data.begin(), data.end()); return Status::OK();
    case AvroCodec::kDeflate: return Compress(Codec::kDeflateRaw, data, level, out);
    case AvroCodec::kZstandard: return Compress(Codec::kZstd, data, level, out);
    case AvroCodec::kSnappy: {
      FLOE_RETURN_IF_ERROR(Compress(Codec::kSnappy, data, level, out));
      const uint32_t crc = Crc32(data);
      out->push_back(static_cast<uint8_t>(crc >> 24));
      out->push_back(static_cast<uint8_t>(crc >> 16));
      out->push_back(static_cast<uint8_t>(crc >> 8));
      out->push_back(static_cast<uint8_t>(crc));
      return Status::OK();
    }
  }
  return Status::Internal("unknown avro codec");
}

}  // namespace floe::avro
