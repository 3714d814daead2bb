// The Confluent wire format of a Kafka record key or value that a Schema
// Registry serializer wrote: magic byte 0, the schema id as a 4-byte
// big-endian integer, then the serialized datum (for Avro, the binary
// encoding of one datum of that schema).
//
// Contract: ParseConfluentFrame never reads outside `bytes`; fewer than five
// bytes or another magic byte is Corruption ("not Confluent wire format")
// naming what it saw. The datum view points into `bytes`. Schema ids are
// signed 32-bit as the registry assigns them (positive in practice; a
// negative id is Corruption). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace floe::connect {

inline constexpr uint8_t kConfluentMagicByte = 0;
inline constexpr size_t kConfluentHeaderBytes = 5;

struct ConfluentFrame {
  int32_t schema_id = 0;
  std::string_view datum;
};

Result<ConfluentFrame> ParseConfluentFrame(std::string_view bytes);

// The five header bytes for `schema_id` (tests and producers of test data).
std::string ConfluentHeader(int32_t schema_id);

}  // namespace floe::connect
