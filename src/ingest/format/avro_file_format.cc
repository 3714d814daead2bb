#include "ingest/format/avro_file_format.h"

#include <utility>

#include "formats/avro/avro_file_reader.h"
#include "formats/unit_bytes.h"

namespace floe::ingest {

namespace {

// The index of the field named `name` (exactly: Avro names are case-sensitive), or -1.
int FindColumn(const Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// An Avro reader whose top-level fields carry the table column names their
// writer-schema aliases name (a renamed field keeps feeding its column).
class AliasedAvroReader final : public formats::ChunkedReader {
 public:
  AliasedAvroReader(std::unique_ptr<avro::AvroFileReader> reader, Schema schema)
      : reader_(std::move(reader)), schema_(std::move(schema)) {}
  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return reader_->num_chunks(); }
  int64_t chunk_rows(int chunk) const override { return reader_->chunk_rows(chunk); }
  int64_t chunk_bytes(int chunk) const override { return reader_->chunk_bytes(chunk); }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader_->ReadChunk(chunk, columns));
    for (size_t i = 0; i < batch.schema.size(); ++i) {
      const size_t field = columns.empty() ? i : static_cast<size_t>(columns[i]);
      batch.schema[i].name = schema_[field].name;
    }
    return batch;
  }

 private:
  std::unique_ptr<avro::AvroFileReader> reader_;
  Schema schema_;
};

}  // namespace

Result<std::unique_ptr<formats::ChunkedReader>> AvroFileFormat::Open(std::shared_ptr<InputFile> file,
                                                                     const Schema& table_columns,
                                                                     const std::string& source_table) const {
  (void)source_table;
  FLOE_ASSIGN_OR_RETURN(auto reader, avro::AvroFileReader::Open(std::move(file), {}));
  Schema schema = reader->schema();
  bool renamed = false;
  for (const avro::AvroFieldAliases& field : reader->field_aliases()) {
    if (field.path.size() != 1 || FindColumn(table_columns, field.path[0]) >= 0) continue;
    const int index = FindColumn(schema, field.path[0]);
    if (index < 0) continue;
    for (const std::string& alias : field.aliases) {
      // The first alias the table has, unless another field of the file
      // already has that name.
      if (FindColumn(table_columns, alias) < 0 || FindColumn(schema, alias) >= 0) continue;
      schema[static_cast<size_t>(index)].name = alias;
      renamed = true;
      break;
    }
  }
  if (!renamed) return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
  return std::unique_ptr<formats::ChunkedReader>(new AliasedAvroReader(std::move(reader), std::move(schema)));
}

bool AvroFileFormat::IsDataFile(std::string_view path) const {
  return any_name_ || formats::DataExtension(path) == "avro";
}

}  // namespace floe::ingest
