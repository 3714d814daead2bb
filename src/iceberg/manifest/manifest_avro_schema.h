// The Avro schemas of manifest lists and manifests, per format version, and
// the conversion of partition tuples between Iceberg literals and Avro values.
//
// Contract: write schemas reproduce what Iceberg Java writes for each format
// version (record names manifest_file, r508, manifest_entry, r2, r102; field
// ids on every field, element-id on arrays, int-keyed maps as arrays of
// k<key>_v<value> records with logicalType "map"; optional = ["null", T] with
// default null; v2 never carries 105/106/107/111/141). Read schemas are the
// union of every version's fields with v1-missing fields defaulted, so a
// projection by field id (formats/avro/resolution.h) maps any version onto one
// layout whose field positions are the k* constants below.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

// Field positions in the manifest-list read schema.
enum ManifestListReadField : int {
  kListPath = 0,
  kListLength,
  kListSpecId,
  kListContent,
  kListSequenceNumber,
  kListMinSequenceNumber,
  kListAddedSnapshotId,
  kListAddedFilesCount,
  kListExistingFilesCount,
  kListDeletedFilesCount,
  kListAddedRowsCount,
  kListExistingRowsCount,
  kListDeletedRowsCount,
  kListPartitions,
  kListKeyMetadata,
  kListFirstRowId,
};

// Field positions in the manifest-entry read schema (and its data_file record).
enum ManifestEntryReadField : int {
  kEntryStatus = 0,
  kEntrySnapshotId,
  kEntrySequenceNumber,
  kEntryFileSequenceNumber,
  kEntryDataFile
};
enum DataFileReadField : int {
  kFileContent = 0,
  kFilePath,
  kFileFormat,
  kFilePartition,
  kFileRecordCount,
  kFileSizeInBytes,
  kFileColumnSizes,
  kFileValueCounts,
  kFileNullValueCounts,
  kFileNanValueCounts,
  kFileLowerBounds,
  kFileUpperBounds,
  kFileKeyMetadata,
  kFileSplitOffsets,
  kFileEqualityIds,
  kFileSortOrderId,
  kFileFirstRowId,
  kFileReferencedDataFile,
  kFileContentOffset,
  kFileContentSizeInBytes,
};

Result<avro::AvroSchema> ManifestListWriteSchema(int format_version);
Result<avro::AvroSchema> ManifestListReadSchema();

// `partition_type` is the spec's partition struct (PartitionSpec::PartitionType).
Result<avro::AvroSchema> ManifestEntryWriteSchema(int format_version, const Type& partition_type);
Result<avro::AvroSchema> ManifestEntryReadSchema(const Type& partition_type);

// The Avro type Iceberg Java uses for a partition value of `type` (a
// primitive): date int+logicalType date, timestamps long timestamp-micros with
// adjust-to-utc, uuid fixed "uuid_fixed", decimal fixed "decimal_P_S" of the
// minimal width, fixed[L] fixed "fixed_L", binary bytes.
Result<avro::Json> PartitionValueAvroType(const Type& type);

// One partition value as a bare Avro value of PartitionValueAvroType (null
// stays null; RecordFromFieldIds wraps it in the optional union).
Result<avro::AvroValue> PartitionValueToAvro(const Literal& value, const Type& type);
// The inverse; accepts a union or a bare value and the promotions the
// projection produces (int as long, float as double, bytes for fixed).
Result<Literal> PartitionValueFromAvro(const avro::AvroValue& value, const Type& type);

// Builds a value of the Avro record `record` from values keyed by field id:
// optional (union) fields without a value become null, present ones are
// wrapped in their non-null branch; a required field without a value is
// Internal (a writer bug).
using ValuesById = std::map<int32_t, avro::AvroValue>;
Result<avro::AvroValue> RecordFromFieldIds(const avro::AvroNode& record, const ValuesById& values);

}  // namespace floe::iceberg
