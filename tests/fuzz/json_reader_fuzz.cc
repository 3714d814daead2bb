// Fuzzes the JSON paths: JsonDocumentDecoder over the input's lines and
// JsonFileReader over the input as a file (JSON lines, top-level values, an
// outer array; compressed when the bytes say so). The first byte picks the
// options (inference, known columns, nested_as_json, layout). Properties
// beyond "no crash, no leak, no hang":
// - every batch is internally consistent (Column::Validate) and has the rows
//   the reader's index promised (an Internal error is a finding);
// - a document the decoder did not rescue as broken is valid JSON for
//   simdjson's fully validating DOM parser (on-demand parsing is lazy: a
//   value the decoder skipped must still have been checked), numbers too
//   large for the DOM's doubles and integers aside;
// - reading a chunk's first column alone yields the same values as reading
//   the whole chunk (projections never change rows);
// - the flat fast path and simdjson decode every document to the same rows;
// - AddLines (whose flat scan finds each line's end) decodes the input as
//   JSON lines to the rows, line numbers and errors of SplitJsonRecords
//   and Add record by record on the general path.
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "columnar/json_format.h"
#include "formats/json/json_document_decoder.h"
#include "formats/json/json_file_reader.h"
#include "formats/json/json_records.h"
#include "fuzz_checks.h"
#include "io/memory_file.h"

using namespace floe;

namespace {

void CheckBatch(const RecordBatch& batch) {
  CHECK_PROPERTY(batch.schema.size() == batch.columns.size());
  for (const Column& column : batch.columns) {
    CHECK_PROPERTY(column.length == batch.num_rows);
    CHECK_PROPERTY(column.Validate().empty());
  }
}

json::JsonDecodeOptions DecodeOptions(uint8_t mode) {
  json::JsonDecodeOptions options;
  options.inference.infer_column_types = mode & 1;
  options.nested_as_json = mode & 2;
  options.max_depth = 16;
  options.max_document_bytes = 1 << 16;
  options.location.unit = "fuzz.jsonl";
  if (mode & 4) {
    options.known = {
        MakeField("a", Int64()), MakeField("b", Decimal(9, 2)),
        MakeField("c", Struct({MakeField("x", Timestamp(TimeUnit::kMicro, true)), MakeField("y", Binary())})),
        MakeField("d", List(MakeField("element", Float64()))),
        MakeField("e", Map(MakeField("key", Int32(), false), MakeField("value", Date()))),
        // Top-level scalars the flat scan reads itself (short numbers, timestamps).
        MakeField("f", Float64()), MakeField("g", Decimal(38, 20)),
        MakeField("t", Timestamp(TimeUnit::kMilli, false))};
  }
  return options;
}

std::string BatchText(const RecordBatch& batch) {
  std::string text = SchemaToString(batch.schema);
  for (const Column& column : batch.columns) text += fuzzing::ColumnText(column);
  return text;
}

void FuzzDecoder(std::string_view text, uint8_t mode) {
  auto decoder = json::JsonDocumentDecoder::Make(DecodeOptions(mode));
  CHECK_PROPERTY(decoder.ok());
  json::JsonDecodeOptions general_options = DecodeOptions(mode);
  general_options.flat_fast_path = false;
  auto general = json::JsonDocumentDecoder::Make(general_options);
  CHECK_PROPERTY(general.ok());
  simdjson::dom::parser validator;
  std::vector<std::string_view> documents;
  size_t start = 0;
  int64_t line = 1;
  while (start <= text.size() && documents.size() < 2000) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view document = text.substr(start, end - start);
    documents.push_back(document);
    CHECK_PROPERTY((*decoder)->Add(document, line).ok());
    CHECK_PROPERTY((*general)->Add(document, line).ok());
    ++line;
    start = end + 1;
  }
  auto batch = (*decoder)->Finish();
  CHECK_PROPERTY(batch.ok());
  CheckBatch(*batch);
  auto general_batch = (*general)->Finish();
  CHECK_PROPERTY(general_batch.ok());
  CHECK_PROPERTY(BatchText(*batch) == BatchText(*general_batch));
  CHECK_PROPERTY(batch->num_rows == static_cast<int64_t>(documents.size()));
  const Column* rescued = nullptr;
  for (size_t k = 0; k < batch->schema.size(); ++k) {
    if (batch->schema[k].name == "_rescued_data") rescued = &batch->columns[k];
  }
  for (size_t r = 0; r < documents.size(); ++r) {
    const bool broken = rescued && rescued->IsValid(static_cast<int64_t>(r)) &&
                        rescued->StringAt(static_cast<int64_t>(r)).rfind("{\"_raw\":", 0) == 0;
    if (broken) continue;
    simdjson::dom::element element;
    const simdjson::error_code error = validator.parse(documents[r].data(), documents[r].size()).get(element);
    // Numbers the grammar allows but a double or 64-bit integer cannot hold
    // are values the decoder rescues, not broken documents.
    CHECK_PROPERTY(error == simdjson::SUCCESS || error == simdjson::NUMBER_ERROR ||
                   error == simdjson::NUMBER_OUT_OF_RANGE);
  }
}

void FuzzLines(std::string_view text, uint8_t mode) {
  json::JsonDecodeOptions options = DecodeOptions(mode);
  if (mode & 32) options.on_broken = json::BadDataPolicy::kFail;
  if (mode & 64) options.on_mismatch = json::BadDataPolicy::kFail;
  auto lines = json::JsonDocumentDecoder::Make(options);
  CHECK_PROPERTY(lines.ok());
  options.flat_fast_path = false;
  auto records = json::JsonDocumentDecoder::Make(options);
  CHECK_PROPERTY(records.ok());
  int64_t lines_next = 0, records_next = 0;
  const Status by_lines = (*lines)->AddLines(text, 1, 0, &lines_next);
  const Status by_records = json::SplitJsonRecords(
      json::JsonLayout::kLines, text, 1,
      [&](std::string_view record, int64_t line) { return (*records)->Add(record, line); }, &records_next);
  CHECK_PROPERTY(by_lines.ToString() == by_records.ToString());
  if (!by_lines.ok()) return;
  CHECK_PROPERTY(lines_next == records_next);
  auto lines_batch = (*lines)->Finish();
  auto records_batch = (*records)->Finish();
  CHECK_PROPERTY(lines_batch.ok() && records_batch.ok());
  CheckBatch(*lines_batch);
  CHECK_PROPERTY(BatchText(*lines_batch) == BatchText(*records_batch));
}

void FuzzReader(std::string_view text, uint8_t mode) {
  json::JsonReadOptions options;
  options.decode = DecodeOptions(mode);
  options.format = (mode & 8) ? "json" : "jsonl";
  options.strip_outer_array = (mode & 24) == 24;
  options.limits.chunk_rows = 1 + (mode >> 5);
  options.limits.chunk_bytes = 256;
  options.limits.max_record_bytes = 4096;
  options.schema_sample_bytes = (mode & 16) ? 0 : 64;
  auto file = std::make_shared<MemoryInputFile>("fuzz.json", std::vector<uint8_t>(text.begin(), text.end()));
  auto reader = json::JsonFileReader::Open(file, options);
  if (!reader.ok()) {
    CHECK_PROPERTY(reader.status().kind() != ErrorKind::kInternal);
    return;
  }
  for (int c = (*reader)->num_chunks() - 1; c >= 0 && c >= (*reader)->num_chunks() - 64; --c) {
    auto batch = (*reader)->ReadChunk(c, {});
    CHECK_PROPERTY(batch.ok() || batch.status().kind() != ErrorKind::kInternal);
    if (!batch.ok()) continue;
    CheckBatch(*batch);
    CHECK_PROPERTY(batch->num_rows == (*reader)->chunk_rows(c));
    if (!(*reader)->schema().empty()) {
      auto first = (*reader)->ReadChunk(c, {0});
      CHECK_PROPERTY(first.ok());
      CHECK_PROPERTY(fuzzing::ColumnText(first->columns[0]) == fuzzing::ColumnText(batch->columns[0]));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  FuzzDecoder(text, mode);
  FuzzLines(text, mode);
  FuzzReader(text, mode);
  return 0;
}
