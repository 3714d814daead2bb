#include "formats/connect/confluent_framing.h"

namespace floe::connect {

Result<ConfluentFrame> ParseConfluentFrame(std::string_view bytes) {
  if (bytes.size() < kConfluentHeaderBytes) {
    return Status::Corruption("not Confluent wire format: " + std::to_string(bytes.size()) +
                              " bytes, fewer than the 5-byte header");
  }
  const auto magic = static_cast<uint8_t>(bytes[0]);
  if (magic != kConfluentMagicByte) {
    return Status::Corruption("not Confluent wire format: magic byte " + std::to_string(magic) +
                              ", expected 0");
  }
  uint32_t id = 0;
  for (size_t i = 1; i < kConfluentHeaderBytes; ++i) id = (id << 8) | static_cast<uint8_t>(bytes[i]);
  if (id > 0x7fffffffu) {
    return Status::Corruption("Confluent wire format: negative schema id " +
                              std::to_string(static_cast<int64_t>(id) - (int64_t{1} << 32)));
  }
  return ConfluentFrame{static_cast<int32_t>(id), bytes.substr(kConfluentHeaderBytes)};
}

std::string ConfluentHeader(int32_t schema_id) {
  const auto id = static_cast<uint32_t>(schema_id);
  return std::string{static_cast<char>(kConfluentMagicByte), static_cast<char>((id >> 24) & 0xff),
                     static_cast<char>((id >> 16) & 0xff), static_cast<char>((id >> 8) & 0xff),
                     static_cast<char>(id & 0xff)};
}

}  // namespace floe::connect
