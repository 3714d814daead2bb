// Fuzzes the table metadata JSON reader: arbitrary bytes must yield metadata
// or a Status, never a crash, hang or sanitizer report. Whatever parses must
// also write (v2/v3) and read back, since writers start from read metadata.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "iceberg/spec/table_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto metadata = floe::iceberg::TableMetadataFromJson(text, "fuzz.metadata.json");
  if (!metadata.ok() || metadata->format_version == 1) return 0;
  auto written = floe::iceberg::TableMetadataToJson(*metadata);
  if (!written.ok()) return 0;
  auto again = floe::iceberg::TableMetadataFromJson(*written, "rewritten.metadata.json");
  if (!again.ok()) std::abort();  // we wrote metadata we cannot read
  return 0;
}
