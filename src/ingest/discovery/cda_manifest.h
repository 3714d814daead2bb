// CdaManifest: a Guidewire CDA export's manifest.json.
//
// Contract: ParseCdaManifest accepts the documented shape (table -> object
// with lastSuccessfulWriteTimestamp as a string or number, schemaHistory
// fingerprint -> start time as string or number, dataFilesPath,
// totalProcessedRecordsCount) and tolerates unknown members. Anything else
// is InvalidArgument naming `uri`, the table and the member. Fingerprints
// come back sorted by start time (ties by fingerprint text). Numbers are
// non-negative integers (JSON integers, integral floats up to 2^53, or
// strings of up to 18 digits); a timestamp more than a day ahead of this
// machine's clock is refused (it would poison the table's watermark). Table
// names and fingerprints become folder names, so each must be 1-255 bytes
// without '/', '\\' or control characters and not "." or "..". Input over 64
// MiB or nested deeper than 16 levels is refused before it is parsed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::ingest {

struct CdaSchemaVersion {
  std::string fingerprint;
  int64_t start_ms = 0;
};

struct CdaTableEntry {
  std::string table;
  int64_t last_successful_write_ms = 0;
  int64_t total_processed_records = 0;
  std::string data_files_path;
  std::vector<CdaSchemaVersion> schema_history;  // sorted by start_ms
};

struct CdaManifest {
  std::map<std::string, CdaTableEntry> tables;
};

Result<CdaManifest> ParseCdaManifest(std::string_view json, const std::string& uri);

}  // namespace floe::ingest
