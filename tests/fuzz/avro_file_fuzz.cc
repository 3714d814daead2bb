// Fuzzes AvroFileReader: the container header, the block index, codecs and
// AvroColumnarDecoder's decoding of every type into columns. Properties
// beyond "no crash, no leak, no hang":
// - every batch is internally consistent (Column::Validate) and holds the
//   rows the block heads promised;
// - the columnar reader and the record reader (AvroContainerReader) agree:
//   when every chunk decodes, the record reader decodes the same number of
//   records without error;
// - reading one column alone yields the same values as reading all.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "columnar/json_format.h"
#include "formats/avro/avro_file_reader.h"
#include "formats/avro/container_reader.h"
#include "fuzz_checks.h"
#include "io/memory_file.h"

using namespace floe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  avro::AvroFileReadOptions options;
  options.chunk_rows = 3;
  options.max_block_bytes = 1 << 20;
  auto file = std::make_shared<MemoryInputFile>("fuzz.avro", bytes);
  auto reader = avro::AvroFileReader::Open(file, options);
  if (!reader.ok()) return 0;
  int64_t rows = 0;
  bool all_ok = true;
  for (int c = 0; c < (*reader)->num_chunks() && c < 256; ++c) {
    auto batch = (*reader)->ReadChunk(c, {});
    if (!batch.ok()) {
      all_ok = false;
      continue;
    }
    CHECK_PROPERTY(batch->num_rows == (*reader)->chunk_rows(c));
    for (const Column& column : batch->columns) {
      CHECK_PROPERTY(column.length == batch->num_rows);
      CHECK_PROPERTY(column.Validate().empty());
    }
    rows += batch->num_rows;
    if (!(*reader)->schema().empty()) {
      auto one = (*reader)->ReadChunk(c, {0});
      CHECK_PROPERTY(one.ok());
      CHECK_PROPERTY(fuzzing::ColumnText(one->columns[0]) == fuzzing::ColumnText(batch->columns[0]));
    }
  }
  if (all_ok && (*reader)->num_chunks() <= 256) {
    avro::AvroReadOptions record_options;
    record_options.max_block_bytes = options.max_block_bytes;
    auto records = avro::AvroContainerReader::OpenBuffer(bytes, "fuzz.avro", record_options);
    CHECK_PROPERTY(records.ok());
    int64_t count = 0;
    while (true) {
      avro::AvroValue value;
      auto more = (*records)->Next(&value);
      CHECK_PROPERTY(more.ok());
      if (!*more) break;
      ++count;
    }
    CHECK_PROPERTY(count == rows);
  }
  return 0;
}
