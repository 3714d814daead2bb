// CsvFileReader: a CSV file as a ChunkedReader.
//
// Contract:
// - The grammar is csv_records.h's. Options the user leaves unset
//   (delimiter, quote, escape, header) are sniffed from the first
//   sniff_bytes after skip_rows (csv_sniffer.h). skip_rows drops that many
//   lines (line breaks, quotes not considered) before the header or data.
//   encoding "utf-8" (a BOM is skipped) or "latin-1" (converted to UTF-8);
//   gzip/zstd/lz4/bzip2 input by magic bytes (unit_bytes.h).
// - Columns are the header's names (an empty name becomes "column<i>", a
//   repeated one gets "_<n>" appended) or, without a header, the last n of
//   `column_names` (n the sniffed common field count; more fields than names
//   is an error naming both counts), else column0, column1, ...; their count
//   is the header's, or the sniffed common field count.
//   A column's type: its `known` type (matched by name), else its
//   schema_hints type, else, with infer_column_types, the join of its
//   values' types over the first schema_sample_bytes of records (whole
//   chunks; 0 = all), else string. An unquoted field equal to null_string
//   is null (a quoted one never is: "" is the empty string).
// - A value that does not fit its column is null there and rescued as
//   {"<column>": "<text>"}; a bad record (csv_records.h's errors, a number
//   of fields other than the column count, invalid UTF-8) has every column
//   null and its raw text rescued; per on_mismatch / on_bad_record the
//   reader fails instead, naming the file, the line and the column.
//   `_rescued_data` ends the schema when a policy rescues and something may
//   need it (as for JSON: the sample rescued, a record is oversized, or the
//   sample did not cover the file).
// - Open scans the whole file once (record boundaries, chunks); memory is
//   bounded as for JsonFileReader: one chunk's bytes and its batch, the
//   chunk index, the decompressor. The same chunk always decodes to the
//   same rows, whichever columns are asked for.
// Not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/chunked_reader.h"
#include "formats/csv/csv_records.h"
#include "formats/rescued_data.h"
#include "formats/schema_hints.h"
#include "formats/text_chunks.h"
#include "formats/text_conversion.h"
#include "formats/text_inference.h"
#include "formats/unit_bytes.h"
#include "io/file_io.h"

namespace floe::csv {

struct CsvReadOptions {
  // One character each ("\t" is a tab); quote and escape may be "" (none).
  // Unset: sniffed (escape defaults to the quote, i.e. doubled quotes).
  std::optional<std::string> delimiter;
  std::optional<std::string> quote;
  std::optional<std::string> escape;
  std::optional<bool> header;
  // The columns of a headerless file; one with fewer fields takes the last
  // ones (AWS DMS writes Op first in CDC files only).
  std::vector<std::string> column_names;
  std::string null_string;
  int64_t skip_rows = 0;
  std::string encoding = "utf-8";  // or "latin-1"
  formats::TypeInferenceOptions inference;
  formats::SchemaHints schema_hints;
  Schema known;
  formats::BadDataPolicy on_mismatch = formats::BadDataPolicy::kRescue;
  formats::BadDataPolicy on_bad_record = formats::BadDataPolicy::kRescue;
  int64_t schema_sample_bytes = int64_t{16} << 20;  // 0 = the whole file
  int64_t sniff_bytes = int64_t{1} << 20;
  formats::TextChunkLimits limits;
  formats::CompressionChoice compression;
};

class CsvFileReader final : public formats::ChunkedReader {
 public:
  static Result<std::unique_ptr<CsvFileReader>> Open(std::shared_ptr<InputFile> file, CsvReadOptions options);

  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return static_cast<int>(chunks_.size()); }
  int64_t chunk_rows(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].rows; }
  int64_t chunk_bytes(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].length; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override;

  const CsvDialect& dialect() const { return dialect_; }
  bool header() const { return header_; }
  int64_t num_rows() const { return rows_; }

 private:
  // Decodes chunk bytes into every built column (`build[c]`) and the rescue builder.
  Status Decode(const formats::TextChunk& chunk, const std::vector<bool>& build, std::vector<Column>* columns,
                formats::RescuedDataBuilder* rescued, int64_t* rows);
  Status LoadChunk(const formats::TextChunk& chunk);
  Status InferTypes();

  CsvReadOptions options_;
  std::shared_ptr<const formats::TextInference> inference_;
  std::unique_ptr<formats::UnitBytes> bytes_;
  CsvDialect dialect_;
  bool header_ = false;
  bool latin1_ = false;
  std::vector<formats::TextChunk> chunks_;
  std::vector<std::string> names_;
  Schema schema_;                                   // names_ (+ _rescued_data)
  std::vector<formats::TextConverter> converters_;  // one per column
  int64_t rows_ = 0;
  std::string buffer_;              // the chunk being decoded (UTF-8)
  std::string raw_;                 // its bytes before a Latin-1 conversion
  std::vector<size_t> data_bytes_;  // per column: the most string bytes a chunk produced
};

}  // namespace floe::csv
