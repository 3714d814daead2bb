#include "formats/parquet/file_writer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "formats/parquet/writer/column_chunk_writer.h"
#include "formats/parquet/writer/value_statistics.h"

namespace floe::parquet {

namespace {

constexpr uint8_t kMagic[4] = {'P', 'A', 'R', '1'};
// Rows shredded at a time, so the byte limit of a row group is checked often.
constexpr int64_t kShredSliceRows = 64 * 1024;

bool SupportedCodec(Codec codec) {
  switch (codec) {
    case Codec::kNone:
    case Codec::kSnappy:
    case Codec::kGzip:
    case Codec::kBrotli:
    case Codec::kZstd:
    case Codec::kLz4Raw: return true;
    default: return false;
  }
}

}  // namespace

ParquetFileWriter::ParquetFileWriter(std::unique_ptr<OutputFile> file, Schema schema,
                                     ParquetWriterOptions options,
                                     std::unique_ptr<WriterSchema> writer_schema)
    : file_(std::move(file)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      writer_schema_(std::move(writer_schema)) {
  buffers_.resize(writer_schema_->leaves.size());
  stats_.resize(writer_schema_->leaves.size());
  for (size_t i = 0; i < stats_.size(); ++i) stats_[i].path = writer_schema_->leaves[i].path;
}

ParquetFileWriter::~ParquetFileWriter() {
  if (state_ != State::kClosed) Abort();
}

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(std::unique_ptr<OutputFile> file,
                                                                   const Schema& schema,
                                                                   ParquetWriterOptions options) {
  if (!file) return Status::InvalidArgument("Parquet writer needs an output file");
  auto fail = [&](Status status) {
    file->Abort();
    return status.WithContext(file->path());
  };
  if (!SupportedCodec(options.codec)) {
    return fail(
        Status::InvalidArgument(std::string("codec ") + CodecName(options.codec) +
                                " cannot compress Parquet pages (use none, snappy, gzip, brotli, zstd, "
                                "lz4_raw)"));
  }
  if (options.data_page_version != 1 && options.data_page_version != 2) {
    return fail(Status::InvalidArgument("data page version must be 1 or 2, not " +
                                        std::to_string(options.data_page_version)));
  }
  if (options.row_group_max_rows < 1 || options.row_group_max_bytes < 1 || options.page_max_bytes < 1 ||
      options.page_max_rows < 1) {
    return fail(Status::InvalidArgument("row group and page limits must be positive"));
  }
  auto built = BuildWriterSchema(schema);
  if (!built.ok()) return fail(built.status());
  auto writer_schema = std::make_unique<WriterSchema>(std::move(built).value());
  Status magic = file->Write(std::span<const uint8_t>(kMagic, 4));
  if (!magic.ok()) return fail(magic);
  auto writer = std::unique_ptr<ParquetFileWriter>(
      new ParquetFileWriter(std::move(file), schema, std::move(options), std::move(writer_schema)));
  writer->metadata_.version = writer->options_.data_page_version == 2 ? 2 : 1;
  writer->metadata_.schema = writer->writer_schema_->elements;
  writer->metadata_.key_value_metadata = writer->options_.key_value_metadata;
  writer->metadata_.created_by = writer->options_.created_by;
  writer->metadata_.column_orders.assign(writer->writer_schema_->leaves.size(), true);
  return writer;
}

Status ParquetFileWriter::CheckBatch(const RecordBatch& batch) const {
  if (batch.columns.size() != schema_.size()) {
    return Status::InvalidArgument("batch has " + std::to_string(batch.columns.size()) +
                                   " columns, the Parquet schema " + std::to_string(schema_.size()));
  }
  for (size_t i = 0; i < schema_.size(); ++i) {
    const Column& column = batch.columns[i];
    if (!(column.type == schema_[i].type)) {
      return Status::InvalidArgument("column '" + schema_[i].name + "' has type " + column.type.ToString() +
                                     ", the Parquet schema says " + schema_[i].type.ToString());
    }
    if (column.length != batch.num_rows) {
      return Status::InvalidArgument("column '" + schema_[i].name + "' has " + std::to_string(column.length) +
                                     " values, the batch " + std::to_string(batch.num_rows) + " rows");
    }
    std::string problem = column.Validate();
    if (!problem.empty()) return Status::InvalidArgument("column '" + schema_[i].name + "': " + problem);
  }
  return Status::OK();
}

int64_t ParquetFileWriter::BufferedBytes() const {
  int64_t total = 0;
  for (const LeafValues& b : buffers_) total += b.EstimatedBytes();
  return total;
}

int64_t ParquetFileWriter::EstimatedFileSize() const {
  const int64_t written = file_ ? file_->Position() : 0;
  const int64_t buffered = BufferedBytes();
  if (flushed_estimated_bytes_ <= 0 || flushed_compressed_bytes_ <= 0) return written + buffered;
  const double ratio =
      static_cast<double>(flushed_compressed_bytes_) / static_cast<double>(flushed_estimated_bytes_);
  return written + static_cast<int64_t>(static_cast<double>(buffered) * ratio);
}

Status ParquetFileWriter::Write(const RecordBatch& batch) {
  if (state_ != State::kOpen) return Status::InvalidArgument("Parquet writer is closed or failed");
  FLOE_RETURN_IF_ERROR(CheckBatch(batch));
  const std::vector<WriteLeaf>& leaves = writer_schema_->leaves;
  int64_t row = 0;
  while (row < batch.num_rows) {
    if (buffered_rows_ == 0) {
      // A new row group: its buffers are sized for the rows this batch will
      // put in it, so they do not grow (and copy) slice after slice.
      const int64_t group_rows = std::min(batch.num_rows - row, options_.row_group_max_rows);
      for (size_t i = 0; i < leaves.size(); ++i) {
        ReserveForRows(leaves[i], batch.columns[static_cast<size_t>(leaves[i].top_level_field)], row,
                       row + group_rows, options_.row_group_max_bytes, &buffers_[i]);
      }
    }
    int64_t slice =
        std::min({batch.num_rows - row, options_.row_group_max_rows - buffered_rows_, kShredSliceRows});
    if (buffered_rows_ > 0) {
      // More rows for an open row group: rows keep coming, so a buffer that
      // must grow is sized for the rows the group is projected to hold when
      // it closes (at its byte limit, at the bytes per row buffered so far).
      const int64_t buffered_bytes = std::max<int64_t>(BufferedBytes(), 1);
      const double by_bytes = static_cast<double>(buffered_rows_) *
                              static_cast<double>(options_.row_group_max_bytes) /
                              static_cast<double>(buffered_bytes);
      const int64_t projected_rows =
          static_cast<int64_t>(std::min(static_cast<double>(options_.row_group_max_rows), by_bytes * 1.0625));
      for (size_t i = 0; i < leaves.size(); ++i) {
        ReserveForRows(leaves[i], batch.columns[static_cast<size_t>(leaves[i].top_level_field)], row,
                       row + slice, options_.row_group_max_bytes, &buffers_[i], projected_rows);
      }
    }
    // Each leaf shreds into its own buffer; the first error in leaf order wins.
    TaskGroup shredding(leaves.size() > 1 ? options_.pool : nullptr);
    for (size_t i = 0; i < leaves.size(); ++i) {
      shredding.Run([this, &leaves, &batch, row, slice, i] {
        const WriteLeaf& leaf = leaves[i];
        return ShredRows(leaf, batch.columns[static_cast<size_t>(leaf.top_level_field)], row, row + slice,
                         &buffers_[i]);
      });
    }
    Status status = shredding.Wait();
    if (!status.ok()) {
      state_ = State::kFailed;  // rows of this batch are partly buffered, partly maybe written
      return status.WithContext(file_->path());
    }
    buffered_rows_ += slice;
    row += slice;
    if (buffered_rows_ >= options_.row_group_max_rows || BufferedBytes() >= options_.row_group_max_bytes) {
      FLOE_RETURN_IF_ERROR(WriteRowGroupOrFail());
    }
  }
  return Status::OK();
}

Status ParquetFileWriter::FlushRowGroup() {
  if (state_ != State::kOpen) return Status::InvalidArgument("Parquet writer is closed or failed");
  return WriteRowGroupOrFail();
}

Status ParquetFileWriter::WriteRowGroupOrFail() {
  if (buffered_rows_ == 0) return Status::OK();
  const int64_t estimated = BufferedBytes();
  const std::vector<WriteLeaf>& leaves = writer_schema_->leaves;
  RowGroup group;
  group.num_rows = buffered_rows_;
  group.ordinal = static_cast<int16_t>(std::min<size_t>(metadata_.row_groups.size(), INT16_MAX));
  std::vector<std::optional<ColumnIndex>> column_indexes;
  std::vector<OffsetIndex> offset_indexes;
  int64_t compressed = 0;
  // Chunks are encoded independently (concurrently with a pool), each into
  // its own memory, then written in column order: the bytes are the same
  // as encoding them one after another.
  std::vector<EncodedColumnChunk> encoded(leaves.size());
  TaskGroup encoding(leaves.size() > 1 ? options_.pool : nullptr);
  for (size_t i = 0; i < leaves.size(); ++i) {
    encoding.Run([this, &leaves, &encoded, i]() -> Status {
      FLOE_ASSIGN_OR_RETURN(encoded[i], EncodeColumnChunk(leaves[i], buffers_[i], options_));
      buffers_[i].Clear();
      return Status::OK();
    });
  }
  Status encoded_status = encoding.Wait();
  if (!encoded_status.ok()) {
    state_ = State::kFailed;
    return encoded_status.WithContext(file_->path());
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto written = WriteEncodedColumnChunk(std::move(encoded[i]), file_.get());
    if (!written.ok()) {
      state_ = State::kFailed;
      return written.status().WithContext(file_->path());
    }
    ColumnChunkResult& r = written.value();
    const ColumnMetaData& meta = *r.chunk.meta_data;
    if (i == 0) group.file_offset = r.chunk.file_offset;
    group.total_byte_size += meta.total_uncompressed_size;
    compressed += meta.total_compressed_size;
    ColumnWriteStats& s = stats_[i];
    s.num_values += meta.num_values;
    s.null_count += r.null_count;
    s.nan_count += r.stats.nan_count;
    ValueStats merged{s.min, s.max, 0};
    MergeValueStats(leaves[i].order, r.stats, &merged);
    s.min = std::move(merged.min);
    s.max = std::move(merged.max);
    s.compressed_bytes += meta.total_compressed_size;
    s.uncompressed_bytes += meta.total_uncompressed_size;
    column_indexes.push_back(std::move(r.column_index));
    offset_indexes.push_back(std::move(r.offset_index));
    group.columns.push_back(std::move(r.chunk));
  }
  group.total_compressed_size = compressed;
  flushed_estimated_bytes_ += estimated;
  flushed_compressed_bytes_ += compressed;
  metadata_.row_groups.push_back(std::move(group));
  metadata_.num_rows += buffered_rows_;
  rows_written_ += buffered_rows_;
  buffered_rows_ = 0;
  column_indexes_.push_back(std::move(column_indexes));
  offset_indexes_.push_back(std::move(offset_indexes));
  return Status::OK();
}

Status ParquetFileWriter::WritePageIndex() {
  if (!options_.write_page_index) return Status::OK();
  std::vector<uint8_t> buffer;
  for (size_t g = 0; g < metadata_.row_groups.size(); ++g) {
    for (size_t c = 0; c < column_indexes_[g].size(); ++c) {
      if (!column_indexes_[g][c]) continue;
      buffer.clear();
      SerializeColumnIndex(*column_indexes_[g][c], &buffer);
      ColumnChunk& chunk = metadata_.row_groups[g].columns[c];
      chunk.column_index_offset = file_->Position();
      chunk.column_index_length = static_cast<int32_t>(buffer.size());
      FLOE_RETURN_IF_ERROR(file_->Write(buffer));
    }
  }
  for (size_t g = 0; g < metadata_.row_groups.size(); ++g) {
    for (size_t c = 0; c < offset_indexes_[g].size(); ++c) {
      buffer.clear();
      SerializeOffsetIndex(offset_indexes_[g][c], &buffer);
      ColumnChunk& chunk = metadata_.row_groups[g].columns[c];
      chunk.offset_index_offset = file_->Position();
      chunk.offset_index_length = static_cast<int32_t>(buffer.size());
      FLOE_RETURN_IF_ERROR(file_->Write(buffer));
    }
  }
  return Status::OK();
}

Result<WrittenParquetFile> ParquetFileWriter::Close() {
  if (state_ == State::kClosed) return Status::InvalidArgument("Parquet writer already closed");
  if (state_ == State::kFailed) {
    Abort();
    return Status::IOError("Parquet writer failed earlier; the file was discarded")
        .WithContext(file_->path());
  }
  auto fail = [&](const Status& status) {
    Abort();
    return status.WithContext(file_->path());
  };
  Status status = WriteRowGroupOrFail();
  if (!status.ok()) return fail(status);
  status = WritePageIndex();
  if (!status.ok()) return fail(status);
  std::vector<uint8_t> footer;
  SerializeFileMetaData(metadata_, &footer);
  const uint32_t footer_length = static_cast<uint32_t>(footer.size());
  uint8_t length_bytes[4];
  std::memcpy(length_bytes, &footer_length, 4);
  footer.insert(footer.end(), length_bytes, length_bytes + 4);
  footer.insert(footer.end(), kMagic, kMagic + 4);
  status = file_->Write(footer);
  if (!status.ok()) return fail(status);
  const int64_t expected_size = file_->Position();
  auto closed = file_->Close();
  if (!closed.ok()) return fail(closed.status());
  state_ = State::kClosed;
  if (*closed != expected_size) {
    return Status::IOError("file size after close is " + std::to_string(*closed) + " bytes, expected " +
                           std::to_string(expected_size))
        .WithContext(file_->path());
  }
  WrittenParquetFile result;
  result.file_size = *closed;
  result.num_rows = metadata_.num_rows;
  for (const RowGroup& group : metadata_.row_groups)
    result.row_group_offsets.push_back(group.file_offset.value_or(4));
  result.metadata = std::move(metadata_);
  result.columns = std::move(stats_);
  return result;
}

void ParquetFileWriter::Abort() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  if (file_) file_->Abort();
}

}  // namespace floe::parquet
