#include "formats/parquet/file_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>

#include "columnar/column_rows.h"
#include "formats/parquet/reader/record_assembler.h"
#include "formats/parquet/reader/value_decoder.h"

namespace floe::parquet {
namespace {

constexpr int64_t kFooterTailSize = 8;  // 4-byte metadata length + magic
constexpr int64_t kFirstFooterRead = 64 * 1024;
const char kMagic[] = "PAR1";
const char kEncryptedMagic[] = "PARE";
// Scratch buffers up to this size stay with the reader between row groups.
constexpr size_t kMaxKeptScratchBytes = size_t{16} << 20;

// parquet-mr before 1.2.9 understated dictionary chunk sizes (PARQUET-816).
// "parquet-mr" without a version is treated as old.
bool WrittenByParquetMrBefore129(const std::optional<std::string>& created_by) {
  if (!created_by || created_by->rfind("parquet-mr", 0) != 0) return false;
  const size_t at = created_by->find("version ");
  if (at == std::string::npos) return true;
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(created_by->c_str() + at + 8, "%d.%d.%d", &major, &minor, &patch) < 2) return true;
  return std::make_tuple(major, minor, patch) < std::make_tuple(1, 2, 9);
}

}  // namespace

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(std::shared_ptr<InputFile> file,
                                                                   ReaderLimits limits) {
  const std::string path = file->path();
  Result<int64_t> size = file->Size();
  if (!size.ok()) return size.status().WithContext(path);
  std::unique_ptr<ParquetFileReader> reader(new ParquetFileReader(std::move(file), *size, limits));
  Status status = reader->ReadFooter();
  if (!status.ok()) return status.WithContext(path);
  return reader;
}

Status ParquetFileReader::CheckLeadingMagic(const uint8_t* head) {
  if (std::memcmp(head, kEncryptedMagic, 4) == 0) {
    return Status::NotSupported("encrypted file not supported: Parquet modular encryption");
  }
  if (std::memcmp(head, kMagic, 4) != 0) {
    return Status::Corruption("not a Parquet file: missing 'PAR1' magic at the start");
  }
  return Status::OK();
}

Status ParquetFileReader::ReadFooter() {
  if (file_size_ < 12) {
    return Status::Corruption("file of " + std::to_string(file_size_) + " bytes is too small to be Parquet");
  }
  const int64_t first_read = std::min(file_size_, kFirstFooterRead);
  std::vector<uint8_t> tail(static_cast<size_t>(first_read));
  FLOE_RETURN_IF_ERROR(file_->ReadAt(file_size_ - first_read, first_read, tail.data()));
  const uint8_t* end = tail.data() + tail.size();
  if (std::memcmp(end - 4, kEncryptedMagic, 4) == 0) {
    return Status::NotSupported("encrypted footer not supported: Parquet modular encryption");
  }
  if (std::memcmp(end - 4, kMagic, 4) != 0) {
    return Status::Corruption("not a Parquet file: missing 'PAR1' magic at the end");
  }
  uint32_t metadata_length;
  std::memcpy(&metadata_length, end - 8, 4);
  if (static_cast<int64_t>(metadata_length) > file_size_ - kFooterTailSize - 4) {
    return Status::Corruption("footer length " + std::to_string(metadata_length) +
                              " is larger than the file (" + std::to_string(file_size_) + " bytes)");
  }
  if (static_cast<int64_t>(metadata_length) > limits_.max_footer_bytes) {
    return Status::OutOfRange("footer of " + std::to_string(metadata_length) +
                              " bytes is larger than the limit of " +
                              std::to_string(limits_.max_footer_bytes) + " bytes for one file's metadata");
  }
  // The leading magic is checked now when the first read covered it, else on
  // the first ReadRowGroup: Open stays at two ranged reads at most.
  if (first_read == file_size_) {
    FLOE_RETURN_IF_ERROR(CheckLeadingMagic(tail.data()));
    leading_magic_checked_ = true;
  }
  std::vector<uint8_t> footer;
  const int64_t needed = static_cast<int64_t>(metadata_length) + kFooterTailSize;
  if (needed <= first_read) {
    footer.assign(end - needed, end - kFooterTailSize);
  } else {
    footer.resize(metadata_length);
    FLOE_RETURN_IF_ERROR(file_->ReadAt(file_size_ - needed, metadata_length, footer.data()));
  }
  Result<size_t> parsed = DeserializeFileMetaData(footer, &metadata_);
  if (!parsed.ok()) return parsed.status().WithContext("footer");
  if (metadata_.has_encryption_algorithm) {
    return Status::NotSupported(
        "encrypted columns (plaintext footer) not supported: Parquet modular encryption");
  }
  if (WrittenByParquetMrBefore129(metadata_.created_by)) legacy_chunk_padding_ = 100;
  Result<ParquetSchema> schema = BuildParquetSchema(metadata_.schema);
  if (!schema.ok()) return schema.status().WithContext("schema");
  schema_ = std::move(*schema);
  for (size_t g = 0; g < metadata_.row_groups.size(); ++g) {
    const RowGroup& row_group = metadata_.row_groups[g];
    if (row_group.columns.size() != schema_.leaves.size()) {
      return Status::Corruption(
          "row group " + std::to_string(g) + " has " + std::to_string(row_group.columns.size()) +
          " column chunks but the schema has " + std::to_string(schema_.leaves.size()) + " leaf columns");
    }
    if (row_group.num_rows < 0) {
      return Status::Corruption("row group " + std::to_string(g) + " has a negative row count");
    }
    for (const auto& chunk : row_group.columns) {
      if (chunk.has_crypto_metadata) {
        return Status::NotSupported("encrypted column chunks not supported: Parquet modular encryption");
      }
    }
  }
  return Status::OK();
}

Result<Column> ParquetFileReader::ReadField(const RowGroup& row_group, int field) {
  const int first = schema_.first_leaf[static_cast<size_t>(field)];
  const int last = schema_.first_leaf[static_cast<size_t>(field) + 1];
  const Field& schema_field = schema_.schema[static_cast<size_t>(field)];
  const LevelNode& node = schema_.assembly[static_cast<size_t>(field)];
  if (last == first + 1 && IsFlatLeaf(schema_.leaves[static_cast<size_t>(first)], node)) {
    const ColumnDescriptor& descriptor = schema_.leaves[static_cast<size_t>(first)];
    Column column;
    Status status =
        ReadFlatColumnChunk(*file_, file_size_, descriptor, row_group.columns[static_cast<size_t>(first)],
                            limits_, legacy_chunk_padding_, scratch_.get(), &column);
    if (!status.ok()) return status.WithContext("column " + descriptor.PathString());
    if (column.length != row_group.num_rows) {
      return Status::Corruption("column " + schema_field.name + " has " + std::to_string(column.length) +
                                " rows but the row group has " + std::to_string(row_group.num_rows));
    }
    column.type = schema_field.type;
    return column;
  }
  std::vector<LeafData> leaves(static_cast<size_t>(last - first));
  for (int leaf = first; leaf < last; ++leaf) {
    const ColumnDescriptor& descriptor = schema_.leaves[static_cast<size_t>(leaf)];
    Status status =
        ReadColumnChunk(*file_, file_size_, descriptor, row_group.columns[static_cast<size_t>(leaf)], limits_,
                        legacy_chunk_padding_, &leaves[static_cast<size_t>(leaf - first)], scratch_.get());
    if (!status.ok()) return status.WithContext("column " + descriptor.PathString());
  }
  Result<Column> column = AssembleField(schema_field, node, &leaves, first);
  if (!column.ok()) return column.status().WithContext("column " + schema_field.name);
  if (column->length != row_group.num_rows) {
    return Status::Corruption("column " + schema_field.name + " has " + std::to_string(column->length) +
                              " rows but the row group has " + std::to_string(row_group.num_rows));
  }
  return column;
}

// Value counts come from the file; one that passes every check yet needs more
// memory than the machine has must be an error, not a crash.
template <typename ReadFn>
Result<Column> ParquetFileReader::Guarded(int field, ReadFn read) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    return Status::OutOfRange("column " + schema_.schema[static_cast<size_t>(field)].name +
                              ": not enough memory to decode it (the file announces more values than fit)");
  } catch (const std::length_error&) {
    return Status::OutOfRange("column " + schema_.schema[static_cast<size_t>(field)].name +
                              ": the file announces more values than a buffer can hold");
  }
}

Result<Column> ParquetFileReader::ReadFieldRows(const RowGroup& row_group, int field,
                                                const std::vector<int64_t>& rows,
                                                const OffsetIndex* offset_index) {
  if (offset_index == nullptr) {
    FLOE_ASSIGN_OR_RETURN(Column whole, ReadField(row_group, field));
    return TakeRows(whole, rows);
  }
  const int leaf = schema_.first_leaf[static_cast<size_t>(field)];
  const ColumnDescriptor& descriptor = schema_.leaves[static_cast<size_t>(leaf)];
  Column column;
  Status status =
      ReadFlatColumnRows(*file_, file_size_, descriptor, row_group.columns[static_cast<size_t>(leaf)],
                         *offset_index, row_group.num_rows, rows, limits_, scratch_.get(), &column);
  if (!status.ok()) return status.WithContext("column " + descriptor.PathString());
  column.type = schema_.schema[static_cast<size_t>(field)].type;
  return column;
}

Result<std::vector<std::optional<OffsetIndex>>> ParquetFileReader::ReadOffsetIndexes(
    int index, const std::vector<int>& fields) {
  const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(index)];
  std::vector<std::optional<OffsetIndex>> out(fields.size());
  std::vector<size_t> wanted;  // into fields
  int64_t begin = file_size_, end = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    const size_t field = static_cast<size_t>(fields[i]);
    if (!HasPageIndexedLeaf(row_group, field)) continue;
    const int leaf = schema_.first_leaf[field];
    const ColumnChunk& chunk = row_group.columns[static_cast<size_t>(leaf)];
    const int64_t offset = *chunk.offset_index_offset, length = *chunk.offset_index_length;
    if (offset < 0 || length <= 0 || offset > file_size_ || length > file_size_ - offset) {
      return Status::Corruption("column " + schema_.leaves[static_cast<size_t>(leaf)].PathString() +
                                ": offset index range [" + std::to_string(offset) + ", +" +
                                std::to_string(length) + ") lies outside the file of " +
                                std::to_string(file_size_) + " bytes");
    }
    wanted.push_back(i);
    begin = std::min(begin, offset);
    end = std::max(end, offset + length);
  }
  if (wanted.empty()) return out;
  // floe and other writers put the page index together before the footer, so one read covers it.
  std::vector<uint8_t> bytes(static_cast<size_t>(end - begin));
  FLOE_RETURN_IF_ERROR(file_->ReadAt(begin, end - begin, bytes.data()));
  for (size_t i : wanted) {
    const int leaf = schema_.first_leaf[static_cast<size_t>(fields[i])];
    const ColumnChunk& chunk = row_group.columns[static_cast<size_t>(leaf)];
    OffsetIndex parsed;
    Result<size_t> used =
        DeserializeOffsetIndex(std::span<const uint8_t>(bytes.data() + (*chunk.offset_index_offset - begin),
                                                        static_cast<size_t>(*chunk.offset_index_length)),
                               &parsed);
    if (!used.ok()) {
      return used.status().WithContext("column " + schema_.leaves[static_cast<size_t>(leaf)].PathString() +
                                       ": offset index");
    }
    out[i] = std::move(parsed);
  }
  return out;
}

Status ParquetFileReader::BeginRead(int index) {
  if (index < 0 || index >= num_row_groups()) {
    return Status::InvalidArgument(path() + ": row group " + std::to_string(index) +
                                   " does not exist (file has " + std::to_string(num_row_groups()) + ")");
  }
  if (!leading_magic_checked_) {
    uint8_t head[4];
    Status status = file_->ReadAt(0, 4, head);
    if (status.ok()) status = CheckLeadingMagic(head);
    if (!status.ok()) return status.WithContext(path());
    leading_magic_checked_ = true;
  }
  return Status::OK();
}

Result<RecordBatch> ParquetFileReader::ReadRowGroup(int index, const std::vector<int>& top_level_columns) {
  FLOE_RETURN_IF_ERROR(BeginRead(index));
  std::vector<int> fields = top_level_columns;
  if (fields.empty()) {
    for (size_t i = 0; i < schema_.schema.size(); ++i) fields.push_back(static_cast<int>(i));
  }
  const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(index)];
  RecordBatch batch;
  batch.num_rows = row_group.num_rows;
  for (int field : fields) {
    if (field < 0 || static_cast<size_t>(field) >= schema_.schema.size()) {
      return Status::InvalidArgument(path() + ": column index " + std::to_string(field) + " is out of range");
    }
    Result<Column> column = Guarded(field, [&] { return ReadField(row_group, field); });
    if (!column.ok()) return column.status().WithContext(path() + ": row group " + std::to_string(index));
    batch.schema.push_back(schema_.schema[static_cast<size_t>(field)]);
    batch.columns.push_back(std::move(*column));
  }
  scratch_->ReleaseLargerThan(kMaxKeptScratchBytes);
  return batch;
}

Result<RecordBatch> ParquetFileReader::ReadRowGroupRows(int index, const std::vector<int64_t>& rows,
                                                        const std::vector<int>& top_level_columns) {
  FLOE_RETURN_IF_ERROR(BeginRead(index));
  std::vector<int> fields = top_level_columns;
  if (fields.empty()) {
    for (size_t i = 0; i < schema_.schema.size(); ++i) fields.push_back(static_cast<int>(i));
  }
  const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(index)];
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= row_group.num_rows || (i > 0 && rows[i] <= rows[i - 1])) {
      return Status::InvalidArgument(path() + ": row group " + std::to_string(index) + ": row " +
                                     std::to_string(rows[i]) + " is not an ascending row of its " +
                                     std::to_string(row_group.num_rows));
    }
  }
  for (int field : fields) {
    if (field < 0 || static_cast<size_t>(field) >= schema_.schema.size()) {
      return Status::InvalidArgument(path() + ": column index " + std::to_string(field) + " is out of range");
    }
  }
  auto offset_indexes = ReadOffsetIndexes(index, fields);
  if (!offset_indexes.ok()) {
    return offset_indexes.status().WithContext(path() + ": row group " + std::to_string(index));
  }
  RecordBatch batch;
  batch.num_rows = static_cast<int64_t>(rows.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const int field = fields[i];
    const OffsetIndex* offset_index = (*offset_indexes)[i] ? &*(*offset_indexes)[i] : nullptr;
    Result<Column> column =
        Guarded(field, [&] { return ReadFieldRows(row_group, field, rows, offset_index); });
    if (!column.ok()) return column.status().WithContext(path() + ": row group " + std::to_string(index));
    batch.schema.push_back(schema_.schema[static_cast<size_t>(field)]);
    batch.columns.push_back(std::move(*column));
  }
  scratch_->ReleaseLargerThan(kMaxKeptScratchBytes);
  return batch;
}

bool ParquetFileReader::HasPageIndexedLeaf(const RowGroup& row_group, size_t field) const {
  const int leaf = schema_.first_leaf[field];
  if (schema_.first_leaf[field + 1] != leaf + 1 ||
      !IsFlatLeaf(schema_.leaves[static_cast<size_t>(leaf)], schema_.assembly[field]) ||
      static_cast<size_t>(leaf) >= row_group.columns.size())
    return false;
  const ColumnChunk& chunk = row_group.columns[static_cast<size_t>(leaf)];
  return chunk.offset_index_offset && chunk.offset_index_length;
}

bool ParquetFileReader::ReadsRowsByPage(int index) const {
  if (index < 0 || index >= num_row_groups() || schema_.schema.empty()) return false;
  const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(index)];
  for (size_t field = 0; field < schema_.schema.size(); ++field) {
    if (!HasPageIndexedLeaf(row_group, field)) return false;
  }
  return true;
}

int64_t ParquetFileReader::EstimatedDecodedBytes(int index) const {
  if (index < 0 || index >= num_row_groups()) return 0;
  const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(index)];
  const int64_t rows = std::max<int64_t>(row_group.num_rows, 0);
  // Saturating: the footer's sizes are untrusted.
  constexpr int64_t kCap = int64_t{1} << 50;
  int64_t total = 0;
  for (size_t leaf = 0; leaf < schema_.leaves.size() && leaf < row_group.columns.size(); ++leaf) {
    const ColumnDescriptor& descriptor = schema_.leaves[leaf];
    const ColumnChunk& chunk = row_group.columns[leaf];
    const int64_t uncompressed =
        chunk.meta_data ? std::clamp<int64_t>(chunk.meta_data->total_uncompressed_size, 0, kCap) : 0;
    const int64_t width = PhysicalSpecFor(descriptor.physical_type, descriptor.type_length).width;
    int64_t bytes = 0;
    if (width == 0) {
      bytes = uncompressed + std::min(rows, kCap) * 8;  // string bytes (at least) and offsets
    } else {
      bytes = std::min(rows, kCap / 16) * std::max<int64_t>(width, descriptor.type.fixed_width());
    }
    if (descriptor.max_def_level > 0) bytes += rows / 8 + 1;
    total = std::min(kCap, total + bytes);
  }
  return std::max(total, std::clamp<int64_t>(row_group.total_byte_size, 0, kCap));
}

Result<std::vector<int64_t>> ParquetFileReader::PageFirstRows(int index, int field) {
  if (index < 0 || index >= num_row_groups() || field < 0 ||
      static_cast<size_t>(field) >= schema_.schema.size()) {
    return Status::InvalidArgument(path() + ": no row group " + std::to_string(index) + " or field " +
                                   std::to_string(field));
  }
  FLOE_ASSIGN_OR_RETURN(auto offset_indexes, ReadOffsetIndexes(index, {field}));
  std::vector<int64_t> first_rows;
  if (!offset_indexes.front()) return first_rows;
  for (const PageLocation& page : offset_indexes.front()->page_locations)
    first_rows.push_back(page.first_row_index);
  return first_rows;
}

}  // namespace floe::parquet
