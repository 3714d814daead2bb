// Iceberg manifest lists and manifests: the in-memory model.
//
// Contract: these structs mirror the Avro records of the table spec
// (manifest_file, manifest_entry, data_file) for format versions 1-3; field
// comments give the Avro field ids. Bounds are Iceberg single-value
// serializations (iceberg/spec/single_value.h) keyed by column field id.
// Sequence numbers and snapshot ids of ADDED entries are nullopt on disk and
// are filled in ("inherited") from the manifest-list entry on read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/strings.h"
#include "iceberg/spec/literal.h"

namespace floe::iceberg {

enum class DataFileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };
enum class ManifestEntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

// data_file (Avro record "r2").
struct DataFile {
  DataFileContent content = DataFileContent::kData;  // 134
  std::string file_path;                             // 100
  std::string file_format = "PARQUET";               // 101: PARQUET | AVRO | ORC | PUFFIN
  int32_t spec_id = 0;                               // not stored in the record: the manifest's spec
  std::vector<Literal> partition;                    // 102: one per spec field, in spec order
  int64_t record_count = 0;                          // 103
  int64_t file_size_in_bytes = 0;                    // 104
  std::map<int32_t, int64_t> column_sizes;           // 108
  std::map<int32_t, int64_t> value_counts;           // 109
  std::map<int32_t, int64_t> null_value_counts;      // 110
  std::map<int32_t, int64_t> nan_value_counts;       // 137
  std::map<int32_t, std::string> lower_bounds;       // 125
  std::map<int32_t, std::string> upper_bounds;       // 128
  std::optional<std::string> key_metadata;           // 131
  std::vector<int64_t> split_offsets;                // 132
  std::vector<int32_t> equality_ids;                 // 135
  std::optional<int32_t> sort_order_id;              // 140
  std::optional<int64_t> first_row_id;               // 142 (v3)
  std::optional<std::string> referenced_data_file;   // 143
  std::optional<int64_t> content_offset;             // 144 (v3, deletion vectors)
  std::optional<int64_t> content_size_in_bytes;      // 145 (v3, deletion vectors)

  bool operator==(const DataFile& other) const = default;
};

// Whether a delete file is a v3 deletion vector (a Puffin blob; the format
// name is matched in any case, as Java does).
inline bool IsDeletionVector(const DataFile& file) {
  return file.content == DataFileContent::kPositionDeletes &&
         EqualsIgnoreAsciiCase(file.file_format, "PUFFIN");
}

// manifest_entry.
struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;  // 0
  std::optional<int64_t> snapshot_id;                        // 1
  std::optional<int64_t> sequence_number;                    // 3 (data sequence number)
  std::optional<int64_t> file_sequence_number;               // 4
  DataFile data_file;                                        // 2

  bool operator==(const ManifestEntry& other) const = default;
};

// partitions element of manifest_file (Avro record "r508").
struct PartitionFieldSummary {
  bool contains_null = false;              // 509
  std::optional<bool> contains_nan;        // 518
  std::optional<std::string> lower_bound;  // 510
  std::optional<std::string> upper_bound;  // 511

  bool operator==(const PartitionFieldSummary& other) const = default;
};

// manifest_file: one entry of a manifest list.
struct ManifestFile {
  std::string manifest_path;                         // 500
  int64_t manifest_length = 0;                       // 501
  int32_t partition_spec_id = 0;                     // 502
  ManifestContent content = ManifestContent::kData;  // 517
  int64_t sequence_number = 0;                       // 515
  int64_t min_sequence_number = 0;                   // 516
  int64_t added_snapshot_id = 0;                     // 503
  int32_t added_files_count = 0;                     // 504
  int32_t existing_files_count = 0;                  // 505
  int32_t deleted_files_count = 0;                   // 506
  int64_t added_rows_count = 0;                      // 512
  int64_t existing_rows_count = 0;                   // 513
  int64_t deleted_rows_count = 0;                    // 514
  std::vector<PartitionFieldSummary> partitions;     // 507
  std::optional<std::string> key_metadata;           // 519
  std::optional<int64_t> first_row_id;               // 520 (v3)

  bool operator==(const ManifestFile& other) const = default;
};

}  // namespace floe::iceberg
