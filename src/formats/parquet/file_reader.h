// ParquetFileReader: opens a Parquet file through an InputFile and reads it
// one row group at a time into floe RecordBatches.
//
// Contract: Open reads the footer with at most two ranged reads, checks the
// "PAR1" magic at both ends (the leading one on the first ReadRowGroup when
// the footer read did not cover it) (encrypted "PARE" files and encrypted columns are
// NotSupported), parses the metadata and maps the schema (schema.h). Every
// error names the file; errors in column data also name the column path and
// row group. ReadRowGroup reads one column chunk at a time, so memory is
// bounded by the row group's decoded size plus one compressed chunk (and one
// page), whose buffers the reader keeps and reuses. Not thread-safe: use one
// reader per thread.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/reader/column_chunk_reader.h"
#include "formats/parquet/schema.h"
#include "formats/parquet/thrift/parquet_types.h"
#include "io/file_io.h"

namespace floe::parquet {

class ParquetFileReader {
 public:
  static Result<std::unique_ptr<ParquetFileReader>> Open(std::shared_ptr<InputFile> file,
                                                         ReaderLimits limits = {});

  const FileMetaData& metadata() const { return metadata_; }
  const Schema& schema() const { return schema_.schema; }
  const ParquetSchema& parquet_schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  const std::string& path() const { return file_->path(); }
  const ReaderLimits& limits() const { return limits_; }

  // Reads row group `index`; `top_level_columns` selects fields by index
  // (empty = all), in the order given.
  Result<RecordBatch> ReadRowGroup(int index, const std::vector<int>& top_level_columns = {});
  // Reads rows `rows` (ascending, distinct row indexes within row group
  // `index`) of the selected fields: the batch holds those rows in that
  // order. A flat field (IsFlatLeaf) whose chunk has an offset index decodes
  // only the pages holding the rows (and its dictionary page); any other
  // field is decoded whole and the rows taken. Rows out of range or out of
  // order are InvalidArgument.
  Result<RecordBatch> ReadRowGroupRows(int index, const std::vector<int64_t>& rows,
                                       const std::vector<int>& top_level_columns = {});

  // Whether every field of row group `index` is a flat leaf whose chunk has
  // an offset index, so ReadRowGroupRows of any rows decodes only the pages
  // holding them (from the footer alone; no read).
  bool ReadsRowsByPage(int index) const;
  // An estimate of row group `index`'s size once decoded: the values'
  // decoded widths (strings: their uncompressed bytes plus offsets) and
  // validity, and at least the footer's uncompressed size. The footer is
  // untrusted: the estimate is never negative.
  int64_t EstimatedDecodedBytes(int index) const;
  // The first row of each page of field `field`'s chunk in row group
  // `index`, from its offset index (one ranged read); empty when the field
  // has none or is not a flat leaf.
  Result<std::vector<int64_t>> PageFirstRows(int index, int field);

 private:
  ParquetFileReader(std::shared_ptr<InputFile> file, int64_t file_size, ReaderLimits limits)
      : file_(std::move(file)), file_size_(file_size), limits_(limits) {}
  Status ReadFooter();
  Status CheckLeadingMagic(const uint8_t* head);
  Status BeginRead(int index);
  Result<Column> ReadField(const RowGroup& row_group, int field);
  // Rows `rows` of the field; `offset_index` is its flat leaf's, or null.
  Result<Column> ReadFieldRows(const RowGroup& row_group, int field, const std::vector<int64_t>& rows,
                               const OffsetIndex* offset_index);
  // Runs `read` with allocation failures turned into OutOfRange naming the field.
  template <typename ReadFn>
  Result<Column> Guarded(int field, ReadFn read);
  // Whether top-level field `field` is one flat leaf (IsFlatLeaf) whose
  // chunk in `row_group` has an offset index (from the footer alone).
  bool HasPageIndexedLeaf(const RowGroup& row_group, size_t field) const;
  // The offset indexes of the fields' chunks in row group `index` that
  // ReadFieldRows can use (HasPageIndexedLeaf), by field; read with one
  // ranged read.
  Result<std::vector<std::optional<OffsetIndex>>> ReadOffsetIndexes(int index,
                                                                    const std::vector<int>& fields);

  std::shared_ptr<InputFile> file_;
  int64_t file_size_;
  ReaderLimits limits_;
  FileMetaData metadata_;
  ParquetSchema schema_;
  int64_t legacy_chunk_padding_ = 0;  // see ReadColumnChunk's extra_tail_bytes
  bool leading_magic_checked_ = false;
  std::unique_ptr<ChunkScratch> scratch_ = std::make_unique<ChunkScratch>();
};

}  // namespace floe::parquet
