#include "ingest/source_reads.h"

#include <algorithm>
#include <utility>

#include "iceberg/writer/column_rows.h"

namespace floe::ingest {

ScannedSource ScanSource(FileIO& io, const SourceUnit& source, size_t index, const MergeConfig& merge) {
  ScannedSource scanned;
  scanned.index = index;
  auto opened = io.OpenRead(source.uri);
  if (!opened.ok()) {
    scanned.failure = opened.status();
    return scanned;
  }
  scanned.input = std::move(opened).value();
  auto reader = parquet::ParquetFileReader::Open(scanned.input);
  if (!reader.ok()) {
    scanned.failure = reader.status();
    return scanned;
  }
  scanned.reader = std::move(reader).value();
  auto columns = LocateChangeColumns(scanned.reader->schema(), merge);
  if (!columns.ok()) {
    scanned.failure = columns.status();
    return scanned;
  }
  scanned.columns = std::move(columns).value();
  for (const auto& row_group : scanned.reader->metadata().row_groups) {
    scanned.row_group_bytes.push_back(std::max<int64_t>(row_group.total_byte_size, 0));
  }
  scanned.scan.emplace(ScanFile(*scanned.reader, scanned.columns, static_cast<int32_t>(index), merge));
  return scanned;
}

SourceRowGroupReader::SourceRowGroupReader(FileIO& io, const iceberg::Schema& table_schema,
                                           ReconcileOptions reconcile, const MergeConfig& merge,
                                           std::vector<FileToRead> files)
    : io_(io),
      table_schema_(table_schema),
      reconcile_(std::move(reconcile)),
      merge_(merge),
      files_(std::move(files)) {
  open_.reserve(files_.size());
  for (size_t i = 0; i < files_.size(); ++i) open_.push_back(std::make_unique<OpenFile>());
}

void SourceRowGroupReader::Open(const FileToRead& file, OpenFile* open) {
  open->attempted = true;
  auto input = io_.OpenRead(file.uri);
  if (!input.ok()) {
    open->status = input.status();
    return;
  }
  auto reader = parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input).value()));
  if (!reader.ok()) {
    open->status = reader.status();
    return;
  }
  auto mapping = Reconcile(table_schema_, (*reader)->schema(), file.uri, reconcile_);
  if (!mapping.ok()) {
    open->status = mapping.status();
    return;
  }
  if (!mapping->evolution.empty()) {
    open->status = Status::Internal(file.uri + ": the evolved table schema still lacks columns of this file");
    open->file_fault = false;
    return;
  }
  if (static_cast<size_t>((*reader)->num_row_groups()) != file.row_groups) {
    open->status = Status::Corruption("row groups changed between reads");
    return;
  }
  open->reader = std::move(reader).value();
  open->mapping = std::move(mapping).value();
}

DecodedRowGroup SourceRowGroupReader::Read(const RowGroupRead& read) {
  DecodedRowGroup decoded;
  const FileToRead& file = files_[read.file];
  OpenFile& open = *open_[read.file];
  Result<RecordBatch> batch = Status::Internal("row group not read");
  {
    std::lock_guard<std::mutex> lock(open.mutex);
    if (!open.attempted) Open(file, &open);
    if (!open.status.ok()) {
      decoded.status = open.status;
      decoded.file_fault = open.file_fault;
      return decoded;
    }
    if (read.row_group < 0) return decoded;
    batch = open.reader->ReadRowGroup(read.row_group);
  }
  // Taking and conforming rows need no lock: the mapping is fixed once opened.
  if (!batch.ok()) {
    decoded.status = batch.status();
    return decoded;
  }
  decoded.rows = batch->num_rows;
  if (batch->num_rows != read.rows) {
    decoded.status =
        Status::Corruption("row group " + std::to_string(read.row_group) + " changed between reads");
    return decoded;
  }
  if (read.take) {
    decoded.take = *read.take;
  } else if (file.operation_column >= 0) {
    const Column& operation = batch->columns[static_cast<size_t>(file.operation_column)];
    const std::vector<int64_t>& ignore_codes = merge_.ignore_values;
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      const bool ignored = operation.IsValid(row) &&
                           std::find(ignore_codes.begin(), ignore_codes.end(), IntegerAt(operation, row)) !=
                               ignore_codes.end();
      if (!ignored) decoded.take.push_back(row);
    }
  } else {
    decoded.take.resize(static_cast<size_t>(batch->num_rows));
    for (int64_t row = 0; row < batch->num_rows; ++row) decoded.take[static_cast<size_t>(row)] = row;
  }
  if (decoded.take.empty()) return decoded;
  RecordBatch taken;
  if (static_cast<int64_t>(decoded.take.size()) == batch->num_rows) {
    taken = std::move(batch).value();
  } else {
    auto rows = iceberg::TakeBatchRows(*batch, decoded.take);
    if (!rows.ok()) {
      decoded.status = rows.status();
      return decoded;
    }
    taken = std::move(rows).value();
  }
  auto conformed = ConformBatch(taken, *open.mapping, table_schema_);
  if (!conformed.ok()) {
    decoded.status = conformed.status();
    return decoded;
  }
  decoded.conformed = std::move(conformed).value();
  return decoded;
}

void SourceRowGroupReader::Release(size_t file) {
  OpenFile& open = *open_[file];
  std::lock_guard<std::mutex> lock(open.mutex);
  open.reader.reset();
  open.mapping.reset();
}

}  // namespace floe::ingest
