#include "formats/avro/container_blocks.h"

#include <algorithm>

#include "formats/avro/decoder.h"

namespace floe::avro {

std::optional<std::string> AvroContainerHeader::Metadata(std::string_view key) const {
  for (const auto& [k, v] : metadata) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Result<AvroContainerHeader> ParseAvroContainerHeader(std::span<const uint8_t> bytes) {
  AvroContainerHeader header;
  if (bytes.size() < kContainerMagic.size() ||
      !std::equal(kContainerMagic.begin(), kContainerMagic.end(), bytes.begin())) {
    return Status::Corruption("not an Avro container file (bad magic)");
  }
  AvroDecoder decoder(bytes.subspan(kContainerMagic.size()));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(int64_t count, decoder.ReadLong());
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return Status::Corruption("metadata: invalid block count");
      count = -count;
      FLOE_ASSIGN_OR_RETURN(int64_t byte_size, decoder.ReadLong());
      if (byte_size < 0) return Status::Corruption("metadata: negative block size");
    }
    for (int64_t i = 0; i < count; ++i) {
      FLOE_RETURN_IF_ERROR(decoder.ChargeItem());
      std::string key;
      std::vector<uint8_t> value;
      FLOE_RETURN_IF_ERROR(decoder.ReadString(&key));
      FLOE_RETURN_IF_ERROR(decoder.ReadBytes(&value));
      header.metadata.emplace_back(std::move(key), std::string(value.begin(), value.end()));
    }
  }
  FLOE_RETURN_IF_ERROR(decoder.ReadFixed(kSyncSize, header.sync.data()));
  header.length = static_cast<int64_t>(kContainerMagic.size() + decoder.position());
  return header;
}

Result<AvroContainerHeader> ReadAvroContainerHeader(InputFile& file, int64_t file_size,
                                                    int64_t max_header_bytes) {
  // The header's length is unknown until parsed: read a prefix, grow on failure.
  int64_t want = std::min<int64_t>(file_size, 64 << 10);
  Result<AvroContainerHeader> header = Status::Corruption("empty file");
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> prefix, file.Read(0, want));
    header = ParseAvroContainerHeader(prefix);
    if (header.ok() || want >= file_size || want >= max_header_bytes) break;
    want = std::min({file_size, want * 4, max_header_bytes});
  }
  if (!header.ok()) return header.status().WithContext(file.path() + ": header");
  return header;
}

Result<AvroBlockHead> ReadAvroBlockHead(InputFile& file, int64_t offset, int64_t number, int64_t file_size,
                                        int64_t max_block_bytes) {
  const std::string where =
      file.path() + ": block " + std::to_string(number) + " at offset " + std::to_string(offset);
  const int64_t left = file_size - offset;
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, file.Read(offset, std::min<int64_t>(left, 20)));
  AvroDecoder decoder(bytes);
  auto count = decoder.ReadLong();
  if (!count.ok()) return count.status().WithContext(where + ": record count");
  auto size = decoder.ReadLong();
  if (!size.ok()) return size.status().WithContext(where + ": byte size");
  if (*count < 0) return Status::Corruption(where + ": negative record count " + std::to_string(*count));
  if (*size < 0) return Status::Corruption(where + ": negative byte size " + std::to_string(*size));
  AvroBlockHead head;
  head.offset = offset;
  head.number = number;
  head.records = *count;
  head.data_size = *size;
  head.head_length = static_cast<int64_t>(decoder.position());
  if (*size > max_block_bytes) {
    return Status::Corruption(where + ": byte size " + std::to_string(*size) + " exceeds the limit of " +
                              std::to_string(max_block_bytes));
  }
  if (*size > left - head.head_length - static_cast<int64_t>(kSyncSize)) {
    return Status::Corruption(where + ": block of " + std::to_string(*size) +
                              " bytes plus sync marker runs past the end of the file (" +
                              std::to_string(left - head.head_length) + " bytes left)");
  }
  return head;
}

Status ReadAvroBlockData(InputFile& file, const AvroBlockHead& head, const SyncMarker& sync, AvroCodec codec,
                         int64_t max_block_bytes, std::vector<uint8_t>* out) {
  const std::string where =
      file.path() + ": block " + std::to_string(head.number) + " at offset " + std::to_string(head.offset);
  FLOE_ASSIGN_OR_RETURN(
      std::vector<uint8_t> body,
      file.Read(head.offset + head.head_length, head.data_size + static_cast<int64_t>(kSyncSize)));
  if (!std::equal(sync.begin(), sync.end(), body.end() - kSyncSize)) {
    return Status::Corruption(where + ": sync marker mismatch");
  }
  Status st =
      DecompressBlock(codec, std::span<const uint8_t>(body.data(), static_cast<size_t>(head.data_size)),
                      max_block_bytes, out);
  if (!st.ok()) return st.WithContext(where);
  return Status::OK();
}

}  // namespace floe::avro
