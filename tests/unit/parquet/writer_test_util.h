// Helpers for the Parquet writer tests: write batches to a temporary file,
// read them back with ParquetFileReader, and render values exactly (fixed
// width values as hex of their bytes) so round trips compare bit for bit.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "column_builders.h"
#include "columnar/column.h"
#include "common/strings.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "io/file_io.h"
#include "test_util.h"

namespace floe::parquet::testing {

inline void AppendHex(const uint8_t* p, size_t n, std::string* out) {
  floe::AppendHex(std::string_view(reinterpret_cast<const char*>(p), n), out);
}

// An exact rendering of slot `i` of `c`.
inline std::string RenderValue(const Column& c, int64_t i) {
  if (c.IsNull(i)) return "null";
  std::string out;
  switch (c.type.id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view s = c.StringAt(i);
      out = "\"";
      AppendHex(reinterpret_cast<const uint8_t*>(s.data()), s.size(), &out);
      return out + "\"";
    }
    case TypeId::kStruct:
      out = "{";
      for (size_t k = 0; k < c.children.size(); ++k) out += (k ? "," : "") + RenderValue(c.children[k], i);
      return out + "}";
    case TypeId::kList:
      out = "[";
      for (int64_t j = c.offsets[i]; j < c.offsets[i + 1]; ++j) {
        out += (j > c.offsets[i] ? "," : "") + RenderValue(c.children[0], j);
      }
      return out + "]";
    case TypeId::kMap:
      out = "<";
      for (int64_t j = c.offsets[i]; j < c.offsets[i + 1]; ++j) {
        out += (j > c.offsets[i] ? "," : "") + RenderValue(c.children[0], j) + ":" +
               RenderValue(c.children[1], j);
      }
      return out + ">";
    default: {
      size_t w = static_cast<size_t>(c.type.fixed_width());
      AppendHex(c.values.data() + static_cast<size_t>(i) * w, w, &out);
      return out;
    }
  }
}

inline std::vector<std::string> RenderRows(const RecordBatch& batch) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    std::string row;
    for (const Column& c : batch.columns) row += RenderValue(c, r) + "|";
    rows.push_back(row);
  }
  return rows;
}

inline Result<WrittenParquetFile> WriteFile(const std::string& path, const Schema& schema,
                                            const std::vector<RecordBatch>& batches,
                                            ParquetWriterOptions options = {}) {
  auto io = MakeLocalFileIO();
  FLOE_ASSIGN_OR_RETURN(auto out, io->Create(path));
  FLOE_ASSIGN_OR_RETURN(auto writer, ParquetFileWriter::Open(std::move(out), schema, std::move(options)));
  for (const RecordBatch& batch : batches) FLOE_RETURN_IF_ERROR(writer->Write(batch));
  return writer->Close();
}

struct ReadBack {
  Schema schema;
  FileMetaData metadata;
  std::vector<std::string> rows;
  std::vector<RecordBatch> row_groups;
};

inline Result<ReadBack> ReadFile(const std::string& path) {
  auto io = MakeLocalFileIO();
  FLOE_ASSIGN_OR_RETURN(auto in, io->OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(in))));
  ReadBack result;
  result.schema = reader->schema();
  result.metadata = reader->metadata();
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(g));
    for (auto& row : RenderRows(batch)) result.rows.push_back(std::move(row));
    result.row_groups.push_back(std::move(batch));
  }
  return result;
}

inline RecordBatch MakeBatch(Schema schema, std::vector<Column> columns) {
  RecordBatch batch;
  batch.num_rows = columns.empty() ? 0 : columns[0].length;
  batch.schema = std::move(schema);
  batch.columns = std::move(columns);
  return batch;
}

using floe::testing::MakeColumn;
using floe::testing::MakeStrings;

// The leaf's chunk metadata of row group `g`.
inline const ColumnMetaData& ChunkMeta(const FileMetaData& m, size_t g, size_t leaf) {
  return *m.row_groups[g].columns[leaf].meta_data;
}

template <typename T>
std::string Plain(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace floe::parquet::testing
