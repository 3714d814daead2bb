#include "iceberg/puffin/puffin.h"

#include <cstring>

#include "iceberg/spec/json_util.h"

namespace floe::iceberg {

namespace {

constexpr int64_t kMagicSize = 4;
// Footer trailer: payload size (4), flags (4), magic (4).
constexpr int64_t kTrailerSize = 12;

Result<PuffinBlobMetadata> BlobFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "blob metadata"));
  PuffinBlobMetadata blob;
  FLOE_ASSIGN_OR_RETURN(blob.type, GetString(json, "type"));
  FLOE_ASSIGN_OR_RETURN(const Json* fields, GetArray(json, "fields"));
  FLOE_ASSIGN_OR_RETURN(blob.fields, Int32ListFromJson(*fields, "fields"));
  FLOE_ASSIGN_OR_RETURN(blob.snapshot_id, GetInt64(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(blob.sequence_number, GetInt64(json, "sequence-number"));
  FLOE_ASSIGN_OR_RETURN(blob.offset, GetInt64(json, "offset"));
  FLOE_ASSIGN_OR_RETURN(blob.length, GetInt64(json, "length"));
  FLOE_ASSIGN_OR_RETURN(blob.compression_codec, GetOptionalString(json, "compression-codec"));
  FLOE_ASSIGN_OR_RETURN(const Json* properties, GetOptionalObject(json, "properties"));
  if (properties != nullptr) {
    FLOE_ASSIGN_OR_RETURN(blob.properties, StringMapFromJson(*properties, "blob properties"));
  }
  return blob;
}

}  // namespace

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Open(FileIO& io, const std::string& path,
                                                         std::string created_by) {
  auto out = io.Create(path);
  if (!out.ok()) return out.status().WithContext("puffin file " + path);
  FLOE_RETURN_IF_ERROR((*out)->Write(std::string(kPuffinMagic)).WithContext("puffin file " + path));
  return std::unique_ptr<PuffinWriter>(new PuffinWriter(path, std::move(out).value(), std::move(created_by)));
}

Result<PuffinBlobMetadata> PuffinWriter::AddBlob(PuffinBlobMetadata metadata, std::string_view bytes) {
  if (!out_) return Status::InvalidArgument("puffin file " + path_ + " is closed");
  metadata.offset = out_->Position();
  metadata.length = static_cast<int64_t>(bytes.size());
  metadata.compression_codec.reset();
  FLOE_RETURN_IF_ERROR(out_->Write(std::string(bytes)).WithContext("puffin file " + path_));
  blobs_.push_back(metadata);
  return metadata;
}

Result<int64_t> PuffinWriter::Close() {
  if (!out_) return Status::InvalidArgument("puffin file " + path_ + " is closed");
  OrderedJson blobs = OrderedJson::array();
  for (const PuffinBlobMetadata& blob : blobs_) {
    OrderedJson b = OrderedJson::object();
    b["type"] = blob.type;
    b["fields"] = blob.fields;
    b["snapshot-id"] = blob.snapshot_id;
    b["sequence-number"] = blob.sequence_number;
    b["offset"] = blob.offset;
    b["length"] = blob.length;
    OrderedJson properties = OrderedJson::object();
    for (const auto& [key, value] : blob.properties) properties[key] = value;
    b["properties"] = std::move(properties);
    blobs.push_back(std::move(b));
  }
  OrderedJson footer = OrderedJson::object();
  footer["blobs"] = std::move(blobs);
  footer["properties"] = OrderedJson{{"created-by", created_by_}};
  const std::string payload = footer.dump();
  std::string tail(kPuffinMagic);
  tail += payload;
  const auto size = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) tail.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
  tail.append(4, '\0');  // flags: footer not compressed
  tail += kPuffinMagic;
  Status written = out_->Write(tail);
  if (!written.ok()) {
    out_->Abort();
    out_.reset();
    return written.WithContext("puffin file " + path_);
  }
  auto closed = out_->Close();
  out_.reset();
  if (!closed.ok()) return closed.status().WithContext("puffin file " + path_);
  return *closed;
}

Result<PuffinFooter> ReadPuffinFooter(InputFile& file, int64_t max_footer_bytes) {
  const std::string name = "puffin file " + file.path();
  FLOE_ASSIGN_OR_RETURN(int64_t size, file.Size());
  if (size < kMagicSize * 2 + kTrailerSize) {
    return Status::Corruption(name + ": " + std::to_string(size) + " bytes is too short for a Puffin file");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> head, file.Read(0, kMagicSize));
  if (std::memcmp(head.data(), kPuffinMagic.data(), kMagicSize) != 0) {
    return Status::Corruption(name + ": missing PFA1 magic at offset 0");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> trailer, file.Read(size - kTrailerSize, kTrailerSize));
  if (std::memcmp(trailer.data() + 8, kPuffinMagic.data(), kMagicSize) != 0) {
    return Status::Corruption(name + ": missing PFA1 magic at the end");
  }
  uint32_t payload_size = 0;
  for (int i = 0; i < 4; ++i)
    payload_size |= static_cast<uint32_t>(trailer[static_cast<size_t>(i)]) << (8 * i);
  if ((trailer[4] & 0x01) != 0) return Status::NotSupported(name + ": compressed footers are not supported");
  const int64_t footer_start = size - kTrailerSize - static_cast<int64_t>(payload_size) - kMagicSize;
  if (payload_size > static_cast<uint64_t>(max_footer_bytes) || footer_start < kMagicSize) {
    return Status::Corruption(name + ": footer payload size " + std::to_string(payload_size) +
                              " does not fit the file of " + std::to_string(size) + " bytes");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> footer,
                        file.Read(footer_start, kMagicSize + static_cast<int64_t>(payload_size)));
  if (std::memcmp(footer.data(), kPuffinMagic.data(), kMagicSize) != 0) {
    return Status::Corruption(name + ": missing PFA1 magic at the footer start, offset " +
                              std::to_string(footer_start));
  }
  auto json =
      ParseJson(std::string_view(reinterpret_cast<const char*>(footer.data()) + kMagicSize, payload_size));
  if (!json.ok()) return json.status().WithContext(name + ": footer payload");
  PuffinFooter result;
  result.footer_size = size - footer_start;
  Status parsed = [&]() -> Status {
    FLOE_RETURN_IF_ERROR(RequireObject(*json, "footer payload"));
    FLOE_ASSIGN_OR_RETURN(const Json* blobs, GetArray(*json, "blobs"));
    for (const Json& entry : *blobs) {
      FLOE_ASSIGN_OR_RETURN(PuffinBlobMetadata blob, BlobFromJson(entry));
      if (blob.offset < kMagicSize || blob.length < 0 || blob.offset > footer_start ||
          blob.length > footer_start - blob.offset) {
        return Status::Corruption("blob at offset " + std::to_string(blob.offset) + " with length " +
                                  std::to_string(blob.length) + " lies outside the data area [4, " +
                                  std::to_string(footer_start) + ")");
      }
      result.blobs.push_back(std::move(blob));
    }
    FLOE_ASSIGN_OR_RETURN(const Json* properties, GetOptionalObject(*json, "properties"));
    if (properties != nullptr) {
      FLOE_ASSIGN_OR_RETURN(result.properties, StringMapFromJson(*properties, "footer properties"));
    }
    return Status::OK();
  }();
  if (!parsed.ok()) return parsed.WithContext(name);
  return result;
}

}  // namespace floe::iceberg
