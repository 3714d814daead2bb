// ReadManifest and ManifestWriter (declared in manifest_io.h).
#include <limits>
#include <string>

#include "formats/avro/container_reader.h"
#include "formats/avro/container_writer.h"
#include "iceberg/manifest/manifest_avro_schema.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/manifest/manifest_values.h"
#include "iceberg/manifest/partition_summary.h"

namespace floe::iceberg {

using avro::AvroType;
using avro::AvroValue;

namespace {

// What Java writes for the v1-required block_size_in_bytes (105).
constexpr int64_t kV1BlockSizeInBytes = 64 * 1024 * 1024;

Result<std::map<int32_t, int64_t>> CountMapFromAvro(const AvroValue& value, const char* what) {
  std::map<int32_t, int64_t> out;
  for (const AvroValue& pair : value.Unwrapped().children()) {
    if (pair.kind() != AvroType::kRecord || pair.children().size() != 2) {
      return Status::Corruption(std::string(what) + " entry is not a key/value record");
    }
    out[pair.field(0).Unwrapped().int_value()] = pair.field(1).Unwrapped().long_value();
  }
  return out;
}

Result<std::map<int32_t, std::string>> BoundMapFromAvro(const AvroValue& value, const char* what) {
  std::map<int32_t, std::string> out;
  for (const AvroValue& pair : value.Unwrapped().children()) {
    if (pair.kind() != AvroType::kRecord || pair.children().size() != 2) {
      return Status::Corruption(std::string(what) + " entry is not a key/value record");
    }
    out[pair.field(0).Unwrapped().int_value()] = OptionalBytes(pair.field(1)).value_or("");
  }
  return out;
}

Result<DataFile> DataFileFromAvro(const AvroValue& record, const Type& partition_type) {
  if (record.kind() != AvroType::kRecord || record.children().size() != kFileContentSizeInBytes + 1) {
    return Status::Corruption("data_file has an unexpected shape");
  }
  DataFile f;
  const int32_t content = record.field(kFileContent).Unwrapped().int_value();
  if (content < 0 || content > 2)
    return Status::Corruption("data_file content " + std::to_string(content) + " is not 0, 1 or 2");
  f.content = static_cast<DataFileContent>(content);
  f.file_path = record.field(kFilePath).Unwrapped().string();
  f.file_format = record.field(kFileFormat).Unwrapped().string();
  const AvroValue& partition = record.field(kFilePartition).Unwrapped();
  if (partition.children().size() != partition_type.fields.size()) {
    return Status::Corruption(f.file_path + ": partition tuple has " +
                              std::to_string(partition.children().size()) + " values, the spec has " +
                              std::to_string(partition_type.fields.size()));
  }
  for (size_t i = 0; i < partition_type.fields.size(); ++i) {
    auto value = PartitionValueFromAvro(partition.field(i), partition_type.fields[i].type);
    if (!value.ok())
      return value.status().WithContext(f.file_path + ": partition field '" + partition_type.fields[i].name +
                                        "'");
    f.partition.push_back(std::move(value).value());
  }
  f.record_count = record.field(kFileRecordCount).Unwrapped().long_value();
  f.file_size_in_bytes = record.field(kFileSizeInBytes).Unwrapped().long_value();
  FLOE_ASSIGN_OR_RETURN(f.column_sizes, CountMapFromAvro(record.field(kFileColumnSizes), "column_sizes"));
  FLOE_ASSIGN_OR_RETURN(f.value_counts, CountMapFromAvro(record.field(kFileValueCounts), "value_counts"));
  FLOE_ASSIGN_OR_RETURN(f.null_value_counts,
                        CountMapFromAvro(record.field(kFileNullValueCounts), "null_value_counts"));
  FLOE_ASSIGN_OR_RETURN(f.nan_value_counts,
                        CountMapFromAvro(record.field(kFileNanValueCounts), "nan_value_counts"));
  FLOE_ASSIGN_OR_RETURN(f.lower_bounds, BoundMapFromAvro(record.field(kFileLowerBounds), "lower_bounds"));
  FLOE_ASSIGN_OR_RETURN(f.upper_bounds, BoundMapFromAvro(record.field(kFileUpperBounds), "upper_bounds"));
  f.key_metadata = OptionalBytes(record.field(kFileKeyMetadata));
  for (const AvroValue& offset : record.field(kFileSplitOffsets).Unwrapped().children()) {
    f.split_offsets.push_back(offset.Unwrapped().long_value());
  }
  for (const AvroValue& id : record.field(kFileEqualityIds).Unwrapped().children()) {
    f.equality_ids.push_back(id.Unwrapped().int_value());
  }
  if (auto v = OptionalLong(record.field(kFileSortOrderId))) f.sort_order_id = static_cast<int32_t>(*v);
  f.first_row_id = OptionalLong(record.field(kFileFirstRowId));
  f.referenced_data_file = OptionalBytes(record.field(kFileReferencedDataFile));
  f.content_offset = OptionalLong(record.field(kFileContentOffset));
  f.content_size_in_bytes = OptionalLong(record.field(kFileContentSizeInBytes));
  return f;
}

AvroValue CountMapToAvro(const std::map<int32_t, int64_t>& map) {
  std::vector<AvroValue> pairs;
  for (const auto& [key, value] : map) {
    pairs.push_back(AvroValue::Record({AvroValue::Int(key), AvroValue::Long(value)}));
  }
  return AvroValue::Array(std::move(pairs));
}

AvroValue BoundMapToAvro(const std::map<int32_t, std::string>& map) {
  std::vector<AvroValue> pairs;
  for (const auto& [key, value] : map) {
    pairs.push_back(AvroValue::Record({AvroValue::Int(key), AvroValue::Bytes(value)}));
  }
  return AvroValue::Array(std::move(pairs));
}

class ManifestWriterImpl final : public ManifestWriter {
 public:
  ManifestWriterImpl(std::string path, PartitionSpec spec, Type partition_type, ManifestWriterOptions options,
                     avro::AvroSchema schema, std::unique_ptr<avro::AvroContainerWriter> writer)
      : path_(std::move(path)),
        spec_(std::move(spec)),
        partition_type_(partition_type),
        options_(std::move(options)),
        schema_(std::move(schema)),
        writer_(std::move(writer)),
        summaries_(std::move(partition_type)) {}

  Status Add(const DataFile& file) override {
    ManifestEntry entry;
    entry.status = ManifestEntryStatus::kAdded;
    // Java writes the adding snapshot's id; sequence numbers stay null and
    // are inherited from the manifest list, which is all a retry rewrites.
    if (options_.snapshot_id != 0) entry.snapshot_id = options_.snapshot_id;
    entry.data_file = file;
    return Append(entry);
  }

  Status Existing(const ManifestEntry& entry) override {
    ManifestEntry copy = entry;
    copy.status = ManifestEntryStatus::kExisting;
    return AppendExplicit(std::move(copy));
  }

  Status Delete(const ManifestEntry& entry) override {
    ManifestEntry copy = entry;
    copy.status = ManifestEntryStatus::kDeleted;
    // A DELETED entry records the snapshot that removed the file.
    if (options_.snapshot_id != 0) copy.snapshot_id = options_.snapshot_id;
    return AppendExplicit(std::move(copy));
  }

  Result<ManifestFile> Finish() override {
    if (finished_) return Status::InvalidArgument("manifest " + path_ + " already finished");
    finished_ = true;
    auto length = writer_->Close();
    if (!length.ok()) return length.status().WithContext("manifest " + path_);
    result_.manifest_path = path_;
    result_.manifest_length = *length;
    result_.partition_spec_id = spec_.spec_id;
    result_.content = options_.content;
    result_.sequence_number = 0;
    result_.added_snapshot_id = options_.snapshot_id;
    // Explicit numbers of live entries; added entries get the new snapshot's
    // number, which the manifest-list writer fills in for min 0.
    if (min_live_sequence_number_) {
      result_.min_sequence_number = *min_live_sequence_number_;
    } else if (result_.added_files_count == 0 && min_deleted_sequence_number_) {
      result_.min_sequence_number = *min_deleted_sequence_number_;
    }
    FLOE_ASSIGN_OR_RETURN(result_.partitions, summaries_.Finish());
    return result_;
  }

  void Abort() override {
    finished_ = true;
    writer_.reset();  // an unclosed container writer aborts its output
  }

 private:
  Status AppendExplicit(ManifestEntry entry) {
    if (options_.format_version >= 2 && (!entry.sequence_number || !entry.file_sequence_number)) {
      return Status::InvalidArgument(
          "manifest " + path_ + ": " +
          (entry.status == ManifestEntryStatus::kExisting ? "EXISTING" : "DELETED") + " entry for " +
          entry.data_file.file_path + " needs explicit sequence numbers");
    }
    if (!entry.snapshot_id) {
      return Status::InvalidArgument("manifest " + path_ + ": entry for " + entry.data_file.file_path +
                                     " needs a snapshot id");
    }
    return Append(entry);
  }

  Status Append(const ManifestEntry& entry) {
    if (finished_ || !writer_) return Status::InvalidArgument("manifest " + path_ + " is already finished");
    const DataFile& file = entry.data_file;
    const bool delete_file = file.content != DataFileContent::kData;
    if (delete_file != (options_.content == ManifestContent::kDeletes)) {
      return Status::InvalidArgument("manifest " + path_ + ": " + file.file_path + " has content " +
                                     std::to_string(static_cast<int>(file.content)) +
                                     ", which does not belong in a " + (delete_file ? "data" : "delete") +
                                     " manifest");
    }
    if (options_.format_version == 1 && !entry.snapshot_id && options_.snapshot_id == 0) {
      return Status::InvalidArgument("manifest " + path_ + ": v1 entries need a snapshot id");
    }
    FLOE_ASSIGN_OR_RETURN(AvroValue record, EntryToAvro(entry));
    FLOE_RETURN_IF_ERROR(
        summaries_.Add(file.partition).WithContext("manifest " + path_ + ": " + file.file_path));
    FLOE_RETURN_IF_ERROR(writer_->Append(record).WithContext("manifest " + path_));
    switch (entry.status) {
      case ManifestEntryStatus::kAdded:
        ++result_.added_files_count;
        result_.added_rows_count += file.record_count;
        break;
      case ManifestEntryStatus::kExisting:
        ++result_.existing_files_count;
        result_.existing_rows_count += file.record_count;
        break;
      case ManifestEntryStatus::kDeleted:
        ++result_.deleted_files_count;
        result_.deleted_rows_count += file.record_count;
        break;
    }
    if (entry.sequence_number) {
      auto& slot = entry.status == ManifestEntryStatus::kDeleted ? min_deleted_sequence_number_
                                                                 : min_live_sequence_number_;
      if (!slot || *entry.sequence_number < *slot) slot = *entry.sequence_number;
    }
    return Status::OK();
  }

  Result<AvroValue> EntryToAvro(const ManifestEntry& entry) const {
    const avro::AvroNode& root = schema_.root();
    const avro::AvroNode* r2 = schema_.FindNamed("r2");
    const avro::AvroNode* r102 = schema_.FindNamed("r102");
    if (r2 == nullptr || r102 == nullptr) return Status::Internal("manifest schema lacks r2/r102");
    const DataFile& file = entry.data_file;
    if (file.partition.size() != partition_type_.fields.size()) {
      return Status::InvalidArgument(file.file_path + ": partition tuple has " +
                                     std::to_string(file.partition.size()) + " values, spec " +
                                     std::to_string(spec_.spec_id) + " has " +
                                     std::to_string(partition_type_.fields.size()) + " fields");
    }
    ValuesById partition;
    for (size_t i = 0; i < file.partition.size(); ++i) {
      auto value = PartitionValueToAvro(file.partition[i], partition_type_.fields[i].type);
      if (!value.ok())
        return value.status().WithContext(file.file_path + ": partition field '" +
                                          partition_type_.fields[i].name + "'");
      partition[partition_type_.fields[i].id] = std::move(value).value();
    }
    ValuesById values;
    values[134] = AvroValue::Int(static_cast<int32_t>(file.content));
    values[100] = AvroValue::String(file.file_path);
    values[101] = AvroValue::String(file.file_format);
    FLOE_ASSIGN_OR_RETURN(values[102], RecordFromFieldIds(*r102, partition));
    values[103] = AvroValue::Long(file.record_count);
    values[104] = AvroValue::Long(file.file_size_in_bytes);
    values[105] = AvroValue::Long(kV1BlockSizeInBytes);
    if (!file.column_sizes.empty()) values[108] = CountMapToAvro(file.column_sizes);
    if (!file.value_counts.empty()) values[109] = CountMapToAvro(file.value_counts);
    if (!file.null_value_counts.empty()) values[110] = CountMapToAvro(file.null_value_counts);
    if (!file.nan_value_counts.empty()) values[137] = CountMapToAvro(file.nan_value_counts);
    if (!file.lower_bounds.empty()) values[125] = BoundMapToAvro(file.lower_bounds);
    if (!file.upper_bounds.empty()) values[128] = BoundMapToAvro(file.upper_bounds);
    if (file.key_metadata) values[131] = AvroValue::Bytes(*file.key_metadata);
    if (!file.split_offsets.empty()) {
      std::vector<AvroValue> offsets;
      for (int64_t offset : file.split_offsets) offsets.push_back(AvroValue::Long(offset));
      values[132] = AvroValue::Array(std::move(offsets));
    }
    if (!file.equality_ids.empty()) {
      std::vector<AvroValue> ids;
      for (int32_t id : file.equality_ids) ids.push_back(AvroValue::Int(id));
      values[135] = AvroValue::Array(std::move(ids));
    }
    if (file.sort_order_id) values[140] = AvroValue::Int(*file.sort_order_id);
    if (file.first_row_id) values[142] = AvroValue::Long(*file.first_row_id);
    if (file.referenced_data_file) values[143] = AvroValue::String(*file.referenced_data_file);
    if (file.content_offset) values[144] = AvroValue::Long(*file.content_offset);
    if (file.content_size_in_bytes) values[145] = AvroValue::Long(*file.content_size_in_bytes);

    ValuesById entry_values;
    entry_values[0] = AvroValue::Int(static_cast<int32_t>(entry.status));
    const std::optional<int64_t> snapshot_id =
        entry.snapshot_id
            ? entry.snapshot_id
            : (options_.format_version == 1 ? std::optional<int64_t>(options_.snapshot_id) : std::nullopt);
    if (snapshot_id) entry_values[1] = AvroValue::Long(*snapshot_id);
    if (entry.sequence_number) entry_values[3] = AvroValue::Long(*entry.sequence_number);
    if (entry.file_sequence_number) entry_values[4] = AvroValue::Long(*entry.file_sequence_number);
    FLOE_ASSIGN_OR_RETURN(entry_values[2], RecordFromFieldIds(*r2, values));
    return RecordFromFieldIds(root, entry_values);
  }

  std::string path_;
  PartitionSpec spec_;
  Type partition_type_;
  ManifestWriterOptions options_;
  avro::AvroSchema schema_;
  std::unique_ptr<avro::AvroContainerWriter> writer_;
  PartitionSummaryBuilder summaries_;
  ManifestFile result_;
  std::optional<int64_t> min_live_sequence_number_;
  std::optional<int64_t> min_deleted_sequence_number_;
  bool finished_ = false;
};

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(FileIO& io, const ManifestFile& manifest,
                                                const Type& partition_type) {
  const std::string& path = manifest.manifest_path;
  FLOE_ASSIGN_OR_RETURN(avro::AvroSchema reader_schema, ManifestEntryReadSchema(partition_type));
  auto file = io.OpenRead(path);
  if (!file.ok()) return file.status().WithContext("manifest " + path);
  avro::AvroReadOptions options;
  options.reader_schema = reader_schema;
  auto reader = avro::AvroContainerReader::Open(std::move(file).value(), options);
  if (!reader.ok()) return reader.status().WithContext("manifest " + path);
  std::vector<ManifestEntry> entries;
  // Row lineage (spec "First Row ID Inheritance"): a data file without a
  // first_row_id gets the manifest's plus the record counts of the files
  // before it that had none.
  std::optional<int64_t> next_row_id =
      manifest.content == ManifestContent::kData ? manifest.first_row_id : std::nullopt;
  AvroValue record;
  while (true) {
    auto more = (*reader)->Next(&record);
    if (!more.ok()) return more.status().WithContext("manifest " + path);
    if (!*more) break;
    const std::string where = "manifest " + path + " entry " + std::to_string(entries.size());
    if (record.kind() != AvroType::kRecord || record.children().size() != kEntryDataFile + 1) {
      return Status::Corruption(where + ": unexpected record shape");
    }
    ManifestEntry entry;
    const int32_t status = record.field(kEntryStatus).Unwrapped().int_value();
    if (status < 0 || status > 2)
      return Status::Corruption(where + ": status " + std::to_string(status) + " is not 0, 1 or 2");
    entry.status = static_cast<ManifestEntryStatus>(status);
    entry.snapshot_id = OptionalLong(record.field(kEntrySnapshotId));
    entry.sequence_number = OptionalLong(record.field(kEntrySequenceNumber));
    entry.file_sequence_number = OptionalLong(record.field(kEntryFileSequenceNumber));
    auto data_file = DataFileFromAvro(record.field(kEntryDataFile).Unwrapped(), partition_type);
    if (!data_file.ok()) return data_file.status().WithContext(where);
    entry.data_file = std::move(data_file).value();
    entry.data_file.spec_id = manifest.partition_spec_id;
    // Inheritance (spec "Sequence Number Inheritance"): a null snapshot id is
    // the manifest's; null sequence numbers of ADDED entries (or of any entry
    // in a manifest from before sequence numbers, i.e. 0) are the manifest's.
    if (!entry.snapshot_id) entry.snapshot_id = manifest.added_snapshot_id;
    const bool inherits = entry.status == ManifestEntryStatus::kAdded || manifest.sequence_number == 0;
    if (!entry.sequence_number && inherits) entry.sequence_number = manifest.sequence_number;
    if (!entry.file_sequence_number && inherits) entry.file_sequence_number = manifest.sequence_number;
    if (next_row_id && entry.data_file.content == DataFileContent::kData && !entry.data_file.first_row_id) {
      if (entry.data_file.record_count < 0 ||
          *next_row_id > std::numeric_limits<int64_t>::max() - entry.data_file.record_count) {
        return Status::Corruption(where + ": first_row_id inheritance overflows");
      }
      entry.data_file.first_row_id = *next_row_id;
      *next_row_id += entry.data_file.record_count;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Open(FileIO& io, const std::string& path,
                                                             const Schema& schema, const PartitionSpec& spec,
                                                             ManifestWriterOptions options) {
  if (options.format_version == 1 && options.content != ManifestContent::kData) {
    return Status::InvalidArgument("manifest " + path + ": format version 1 has no delete manifests");
  }
  auto partition_type = spec.PartitionType(schema);
  if (!partition_type.ok()) return partition_type.status().WithContext("manifest " + path);
  FLOE_ASSIGN_OR_RETURN(avro::AvroSchema avro_schema,
                        ManifestEntryWriteSchema(options.format_version, *partition_type));
  FLOE_ASSIGN_OR_RETURN(avro::AvroCodec codec, avro::ParseAvroCodec(options.codec));

  avro::AvroMetadata metadata;
  metadata.emplace_back("schema", SchemaToJson(schema).dump());
  metadata.emplace_back("schema-id", std::to_string(schema.schema_id));
  metadata.emplace_back("partition-spec", PartitionFieldsToJson(spec).dump());
  metadata.emplace_back("partition-spec-id", std::to_string(spec.spec_id));
  metadata.emplace_back("format-version", std::to_string(options.format_version));
  if (options.format_version >= 2) {
    metadata.emplace_back("content", options.content == ManifestContent::kData ? "data" : "deletes");
  }
  auto out = io.Create(path);
  if (!out.ok()) return out.status().WithContext("manifest " + path);
  avro::AvroWriteOptions write_options;
  write_options.codec = codec;
  auto writer = avro::AvroContainerWriter::Open(std::move(out).value(), avro_schema, metadata, write_options);
  if (!writer.ok()) return writer.status().WithContext("manifest " + path);
  return std::unique_ptr<ManifestWriter>(new ManifestWriterImpl(path, spec, std::move(partition_type).value(),
                                                                std::move(options), std::move(avro_schema),
                                                                std::move(writer).value()));
}

}  // namespace floe::iceberg
