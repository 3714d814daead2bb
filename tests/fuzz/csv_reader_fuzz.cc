// Fuzzes the CSV path: CsvFileReader over the input as a file, sniffing the
// dialect or using one the first byte picks, with small chunks so records
// straddle chunk and scan-block boundaries. Properties beyond "no crash, no
// leak, no hang":
// - the scan that cuts chunks and the tokenizer that decodes them agree:
//   every chunk decodes to exactly chunk_rows rows (an Internal error, which
//   the reader returns when they differ, is a finding);
// - every batch is internally consistent (Column::Validate);
// - reading one column alone yields the same values as reading every column.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "columnar/json_format.h"
#include "formats/csv/csv_file_reader.h"
#include "fuzz_checks.h"
#include "io/memory_file.h"

using namespace floe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  csv::CsvReadOptions options;
  options.inference.infer_column_types = mode & 1;
  if (mode & 2) {
    static const char* kDelimiters[] = {",", ";", "\t", "|"};
    options.delimiter = kDelimiters[(mode >> 2) & 3];
    options.quote = (mode & 16) ? "'" : "\"";
    if (mode & 32) options.escape = "\\";
    options.header = (mode & 64) != 0;
  }
  if (mode & 128) options.encoding = "latin-1";
  options.skip_rows = data[1] % 3;
  options.limits.chunk_rows = 1 + data[1] % 7;
  options.limits.chunk_bytes = 64;
  options.limits.max_record_bytes = 2048;
  options.schema_sample_bytes = 128;
  options.sniff_bytes = 4096;
  options.null_string = "NA";
  auto file = std::make_shared<MemoryInputFile>("fuzz.csv", std::vector<uint8_t>(data + 2, data + size));
  auto reader = csv::CsvFileReader::Open(file, options);
  if (!reader.ok()) {
    CHECK_PROPERTY(reader.status().kind() != ErrorKind::kInternal);
    return 0;
  }
  for (int c = 0; c < (*reader)->num_chunks() && c < 128; ++c) {
    auto batch = (*reader)->ReadChunk(c, {});
    CHECK_PROPERTY(batch.ok());  // rescue policies: only I/O could fail, and memory files do not
    CHECK_PROPERTY(batch->num_rows == (*reader)->chunk_rows(c));
    for (const Column& column : batch->columns) {
      CHECK_PROPERTY(column.length == batch->num_rows);
      CHECK_PROPERTY(column.Validate().empty());
    }
    if (!(*reader)->schema().empty()) {
      const int last = static_cast<int>((*reader)->schema().size()) - 1;
      auto one = (*reader)->ReadChunk(c, {last});
      CHECK_PROPERTY(one.ok());
      CHECK_PROPERTY(fuzzing::ColumnText(one->columns[0]) ==
                     fuzzing::ColumnText(batch->columns[static_cast<size_t>(last)]));
    }
  }
  return 0;
}
