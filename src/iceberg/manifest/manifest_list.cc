// ReadManifestList / WriteManifestList (declared in manifest_io.h).
#include <string>
#include <unordered_set>

#include "formats/avro/container_reader.h"
#include "formats/avro/container_writer.h"
#include "iceberg/manifest/manifest_avro_schema.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/manifest/manifest_values.h"

namespace floe::iceberg {

using avro::AvroValue;

namespace {

Result<PartitionFieldSummary> SummaryFromAvro(const AvroValue& record) {
  if (record.kind() != avro::AvroType::kRecord || record.children().size() != 4) {
    return Status::Corruption("partition summary is not an r508 record");
  }
  PartitionFieldSummary summary;
  summary.contains_null = record.field(0).Unwrapped().boolean();
  summary.contains_nan = OptionalBool(record.field(1));
  summary.lower_bound = OptionalBytes(record.field(2));
  summary.upper_bound = OptionalBytes(record.field(3));
  return summary;
}

Result<ManifestFile> ManifestFileFromAvro(const AvroValue& record) {
  if (record.kind() != avro::AvroType::kRecord || record.children().size() != kListFirstRowId + 1) {
    return Status::Corruption("manifest list entry has an unexpected shape");
  }
  ManifestFile m;
  m.manifest_path = record.field(kListPath).Unwrapped().string();
  m.manifest_length = record.field(kListLength).Unwrapped().long_value();
  m.partition_spec_id = record.field(kListSpecId).Unwrapped().int_value();
  const int32_t content = record.field(kListContent).Unwrapped().int_value();
  if (content != 0 && content != 1) {
    return Status::Corruption("manifest " + m.manifest_path + ": content " + std::to_string(content) +
                              " is neither 0 (data) nor 1 (deletes)");
  }
  m.content = static_cast<ManifestContent>(content);
  m.sequence_number = record.field(kListSequenceNumber).Unwrapped().long_value();
  m.min_sequence_number = record.field(kListMinSequenceNumber).Unwrapped().long_value();
  m.added_snapshot_id = OptionalLong(record.field(kListAddedSnapshotId)).value_or(0);
  m.added_files_count = static_cast<int32_t>(OptionalLong(record.field(kListAddedFilesCount)).value_or(0));
  m.existing_files_count =
      static_cast<int32_t>(OptionalLong(record.field(kListExistingFilesCount)).value_or(0));
  m.deleted_files_count =
      static_cast<int32_t>(OptionalLong(record.field(kListDeletedFilesCount)).value_or(0));
  m.added_rows_count = OptionalLong(record.field(kListAddedRowsCount)).value_or(0);
  m.existing_rows_count = OptionalLong(record.field(kListExistingRowsCount)).value_or(0);
  m.deleted_rows_count = OptionalLong(record.field(kListDeletedRowsCount)).value_or(0);
  const AvroValue& partitions = record.field(kListPartitions).Unwrapped();
  for (const AvroValue& item : partitions.children()) {
    FLOE_ASSIGN_OR_RETURN(PartitionFieldSummary summary, SummaryFromAvro(item));
    m.partitions.push_back(std::move(summary));
  }
  m.key_metadata = OptionalBytes(record.field(kListKeyMetadata));
  m.first_row_id = OptionalLong(record.field(kListFirstRowId));
  return m;
}

AvroValue SummaryToAvro(const PartitionFieldSummary& s, const avro::AvroNode& r508) {
  ValuesById values;
  values[509] = AvroValue::Boolean(s.contains_null);
  if (s.contains_nan) values[518] = AvroValue::Boolean(*s.contains_nan);
  if (s.lower_bound) values[510] = AvroValue::Bytes(*s.lower_bound);
  if (s.upper_bound) values[511] = AvroValue::Bytes(*s.upper_bound);
  return RecordFromFieldIds(r508, values).ValueOr(AvroValue());
}

}  // namespace

Result<std::vector<ManifestFile>> ReadManifestList(FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(avro::AvroSchema reader_schema, ManifestListReadSchema());
  auto file = io.OpenRead(path);
  if (!file.ok()) return file.status().WithContext("manifest list " + path);
  avro::AvroReadOptions options;
  options.reader_schema = reader_schema;
  auto reader = avro::AvroContainerReader::Open(std::move(file).value(), options);
  if (!reader.ok()) return reader.status().WithContext("manifest list " + path);
  std::vector<ManifestFile> manifests;
  // A manifest named twice would make every reader see its files twice (duplicate rows).
  std::unordered_set<std::string> seen;
  AvroValue record;
  while (true) {
    auto more = (*reader)->Next(&record);
    if (!more.ok()) return more.status().WithContext("manifest list " + path);
    if (!*more) break;
    auto manifest = ManifestFileFromAvro(record);
    if (!manifest.ok()) {
      return manifest.status().WithContext("manifest list " + path + " entry " +
                                           std::to_string(manifests.size()));
    }
    if (!seen.insert(manifest->manifest_path).second) {
      return Status::Corruption("manifest list " + path + " entry " + std::to_string(manifests.size()) +
                                " names manifest " + manifest->manifest_path + " a second time");
    }
    manifests.push_back(std::move(manifest).value());
  }
  return manifests;
}

Result<int64_t> WriteManifestList(FileIO& io, const std::string& path,
                                  const std::vector<ManifestFile>& manifests,
                                  const ManifestListWriterOptions& options) {
  FLOE_ASSIGN_OR_RETURN(avro::AvroSchema schema, ManifestListWriteSchema(options.format_version));
  FLOE_ASSIGN_OR_RETURN(avro::AvroCodec codec, avro::ParseAvroCodec(options.codec));
  const avro::AvroNode& root = schema.root();
  const int partitions_index = root.FieldIndex("partitions");
  const avro::AvroNode* r508 = schema.FindNamed("r508");
  if (partitions_index < 0 || r508 == nullptr) return Status::Internal("manifest list schema lacks r508");

  avro::AvroMetadata metadata;
  metadata.emplace_back("snapshot-id", std::to_string(options.snapshot_id));
  metadata.emplace_back("parent-snapshot-id",
                        options.parent_snapshot_id ? std::to_string(*options.parent_snapshot_id) : "null");
  if (options.format_version >= 2)
    metadata.emplace_back("sequence-number", std::to_string(options.sequence_number));
  if (options.format_version >= 3 && options.first_row_id) {
    metadata.emplace_back("first-row-id", std::to_string(*options.first_row_id));
  }
  metadata.emplace_back("format-version", std::to_string(options.format_version));

  auto out = io.Create(path);
  if (!out.ok()) return out.status().WithContext("manifest list " + path);
  avro::AvroWriteOptions write_options;
  write_options.codec = codec;
  auto writer = avro::AvroContainerWriter::Open(std::move(out).value(), schema, metadata, write_options);
  if (!writer.ok()) return writer.status().WithContext("manifest list " + path);

  std::optional<int64_t> next_row_id = options.first_row_id;
  for (const ManifestFile& m : manifests) {
    // Manifests added by this snapshot carry sequence number 0 until now.
    const bool added_now = m.sequence_number == 0;
    const int64_t sequence_number = added_now ? options.sequence_number : m.sequence_number;
    int64_t min_sequence_number = m.min_sequence_number;
    if (added_now && min_sequence_number == 0 && m.existing_files_count == 0) {
      min_sequence_number = options.sequence_number;
    }
    ValuesById values;
    values[500] = AvroValue::String(m.manifest_path);
    values[501] = AvroValue::Long(m.manifest_length);
    values[502] = AvroValue::Int(m.partition_spec_id);
    values[517] = AvroValue::Int(static_cast<int32_t>(m.content));
    values[515] = AvroValue::Long(options.format_version >= 2 ? sequence_number : 0);
    values[516] = AvroValue::Long(options.format_version >= 2 ? min_sequence_number : 0);
    values[503] = AvroValue::Long(m.added_snapshot_id);
    values[504] = AvroValue::Int(m.added_files_count);
    values[505] = AvroValue::Int(m.existing_files_count);
    values[506] = AvroValue::Int(m.deleted_files_count);
    values[512] = AvroValue::Long(m.added_rows_count);
    values[513] = AvroValue::Long(m.existing_rows_count);
    values[514] = AvroValue::Long(m.deleted_rows_count);
    std::vector<AvroValue> summaries;
    for (const PartitionFieldSummary& s : m.partitions) summaries.push_back(SummaryToAvro(s, *r508));
    values[507] = AvroValue::Array(std::move(summaries));
    if (m.key_metadata) values[519] = AvroValue::Bytes(*m.key_metadata);
    // v3 row lineage: data manifests without a first_row_id get the next
    // unassigned range; its width is every row the manifest may assign.
    std::optional<int64_t> first_row_id = m.first_row_id;
    if (options.format_version >= 3 && m.content == ManifestContent::kData && !first_row_id && next_row_id) {
      first_row_id = *next_row_id;
      *next_row_id += m.added_rows_count + m.existing_rows_count;
    }
    if (first_row_id) values[520] = AvroValue::Long(*first_row_id);
    FLOE_ASSIGN_OR_RETURN(AvroValue record, RecordFromFieldIds(root, values));
    FLOE_RETURN_IF_ERROR((*writer)->Append(record));
  }
  auto length = (*writer)->Close();
  if (!length.ok()) return length.status().WithContext("manifest list " + path);
  return *length;
}

}  // namespace floe::iceberg
