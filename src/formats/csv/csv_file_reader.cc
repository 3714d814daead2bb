#include "formats/csv/csv_file_reader.h"

#include <algorithm>
#include <set>

#include "formats/csv/csv_sniffer.h"
#include "formats/text_encoding.h"

namespace floe::csv {
namespace {

constexpr size_t kScanBlock = size_t{4} << 20;

// One character, a backslash escape ("\t"), or "tab"; "" when `allow_none`.
Result<char> CharOption(const std::string& name, const std::string& text, bool allow_none) {
  if (text.empty()) {
    if (allow_none) return '\0';
    return Status::InvalidArgument(name + " must be one character");
  }
  if (text.size() == 1) return text[0];
  if (text == "\\t" || text == "tab") return '\t';
  if (text == "\\\\") return '\\';
  return Status::InvalidArgument(name + " '" + text + "' must be one character");
}

}  // namespace

Result<std::unique_ptr<CsvFileReader>> CsvFileReader::Open(std::shared_ptr<InputFile> file,
                                                           CsvReadOptions options) {
  std::unique_ptr<CsvFileReader> reader(new CsvFileReader());
  const std::string path = file->path();
  if (options.encoding == "latin-1" || options.encoding == "latin1" || options.encoding == "iso-8859-1") {
    reader->latin1_ = true;
  } else if (options.encoding != "utf-8" && options.encoding != "utf8") {
    return Status::InvalidArgument("encoding '" + options.encoding + "' is not utf-8 or latin-1");
  }
  if (options.skip_rows < 0) return Status::InvalidArgument("skip_rows must not be negative");
  if (options.limits.chunk_rows < 1 || options.limits.chunk_bytes < 1 ||
      options.limits.max_record_bytes < 1) {
    return Status::InvalidArgument("chunk_rows, chunk_bytes and max_record_bytes must be positive");
  }
  SniffHints hints;
  if (options.delimiter) {
    FLOE_ASSIGN_OR_RETURN(hints.delimiter, CharOption("delimiter", *options.delimiter, false));
  }
  if (options.quote) {
    FLOE_ASSIGN_OR_RETURN(hints.quote, CharOption("quote", *options.quote, true));
  }
  if (options.escape) {
    FLOE_ASSIGN_OR_RETURN(hints.escape, CharOption("escape", *options.escape, true));
  }
  if (options.quote && !options.escape) hints.escape = hints.quote;
  hints.header = options.header;
  if (hints.delimiter && (*hints.delimiter == '\n' || *hints.delimiter == '\r')) {
    return Status::InvalidArgument("the delimiter cannot be a line break");
  }
  if (hints.delimiter && hints.quote && *hints.quote != '\0' && *hints.quote == *hints.delimiter) {
    return Status::InvalidArgument("the quote and the delimiter must differ");
  }
  if (hints.delimiter && hints.escape && *hints.escape != '\0' && *hints.escape == *hints.delimiter) {
    return Status::InvalidArgument("the escape and the delimiter must differ");
  }
  for (const std::optional<char>& c : {hints.quote, hints.escape}) {
    if (c && (*c == '\n' || *c == '\r'))
      return Status::InvalidArgument("the quote and escape cannot be line breaks");
  }
  reader->options_ = std::move(options);
  FLOE_ASSIGN_OR_RETURN(reader->inference_, formats::TextInference::Make(reader->options_.inference));
  FLOE_ASSIGN_OR_RETURN(reader->bytes_,
                        formats::UnitBytes::Open(std::move(file), reader->options_.compression));
  formats::UnitBytes& bytes = *reader->bytes_;
  std::string block(kScanBlock, '\0');
  auto read_block = [&]() -> Result<std::string_view> {
    FLOE_ASSIGN_OR_RETURN(size_t got, bytes.Read(reinterpret_cast<uint8_t*>(block.data()), block.size()));
    return std::string_view(block.data(), got);
  };

  // skip_rows: whole lines before anything else.
  int64_t start = bytes.data_start();
  int64_t line = 1;
  FLOE_RETURN_IF_ERROR(bytes.Seek(start));
  for (int64_t skipped = 0; skipped < reader->options_.skip_rows;) {
    FLOE_ASSIGN_OR_RETURN(std::string_view view, read_block());
    if (view.empty()) break;
    size_t i = 0;
    for (; i < view.size() && skipped < reader->options_.skip_rows; ++i) {
      if (view[i] == '\n') ++skipped;
    }
    start += static_cast<int64_t>(i);
    if (i < view.size()) break;
  }
  line += reader->options_.skip_rows;

  // The dialect: given options, the rest sniffed from a sample.
  {
    FLOE_RETURN_IF_ERROR(bytes.Seek(start));
    std::string sample;
    bool complete = false;
    while (static_cast<int64_t>(sample.size()) < reader->options_.sniff_bytes) {
      FLOE_ASSIGN_OR_RETURN(std::string_view view, read_block());
      if (view.empty()) {
        complete = true;
        break;
      }
      sample.append(view.substr(0, static_cast<size_t>(std::min<int64_t>(
                                       static_cast<int64_t>(view.size()),
                                       reader->options_.sniff_bytes - static_cast<int64_t>(sample.size())))));
    }
    if (reader->latin1_) {
      std::string converted;
      formats::Latin1ToUtf8(sample, &converted);
      sample = std::move(converted);
    }
    const SniffedDialect sniffed = SniffCsvDialect(sample, complete, hints, *reader->inference_);
    reader->dialect_ = sniffed.dialect;
    reader->header_ = sniffed.header;
    for (int c = 0; c < sniffed.columns; ++c) reader->names_.push_back("column" + std::to_string(c));
  }

  // One pass over the file: record boundaries and chunks.
  formats::TextChunker chunker(reader->options_.limits, start, line);
  CsvRecordScanner scanner(reader->dialect_, &chunker, start, line, reader->header_);
  FLOE_RETURN_IF_ERROR(bytes.Seek(start));
  for (int rescans = 0;; ++rescans) {
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::string_view view, read_block());
      if (view.empty()) break;
      scanner.Scan(view);
    }
    const int64_t again = scanner.Finish();
    if (again < 0) break;
    if (rescans > 64) return Status::Internal(path + ": the CSV scan did not settle");
    FLOE_RETURN_IF_ERROR(bytes.Seek(again));
  }
  reader->chunks_ = chunker.Finish();
  reader->rows_ = chunker.rows();

  // Column names from the header record.
  if (reader->header_) {
    reader->names_.clear();
    if (scanner.header_start() >= 0) {
      std::string header(static_cast<size_t>(scanner.header_end() - scanner.header_start()), '\0');
      FLOE_RETURN_IF_ERROR(bytes.ReadRange(scanner.header_start(), static_cast<int64_t>(header.size()),
                                           reinterpret_cast<uint8_t*>(header.data())));
      if (reader->latin1_) {
        std::string converted;
        formats::Latin1ToUtf8(header, &converted);
        header = std::move(converted);
      }
      CsvTokenizer tokenizer(reader->dialect_, header, line);
      CsvRecord record;
      if (tokenizer.Next(&record)) {
        std::set<std::string> taken;
        for (size_t c = 0; c < record.fields.size(); ++c) {
          std::string name(record.fields[c]);
          if (name.empty()) name = "column" + std::to_string(c);
          std::string unique = name;
          for (int n = 1; taken.count(unique); ++n) unique = name + "_" + std::to_string(n);
          taken.insert(unique);
          reader->names_.push_back(unique);
        }
      }
    }
  }

  if (!reader->header_ && !reader->options_.column_names.empty()) {
    const std::vector<std::string>& names = reader->options_.column_names;
    if (reader->names_.size() > names.size()) {
      return Status::InvalidArgument(path + ": its records have " + std::to_string(reader->names_.size()) +
                                     " fields, but column_names names " + std::to_string(names.size()) +
                                     " columns");
    }
    reader->names_.assign(names.end() - static_cast<std::ptrdiff_t>(reader->names_.size()), names.end());
  }

  FLOE_RETURN_IF_ERROR(reader->InferTypes());
  return reader;
}

Status CsvFileReader::InferTypes() {
  const size_t n = names_.size();
  std::vector<DataType> types(n, String());
  std::vector<bool> infer(n, false);
  for (size_t c = 0; c < n; ++c) {
    bool fixed = false;
    for (const Field& field : options_.known) {
      if (field.name == names_[c]) {
        types[c] = field.type;
        fixed = true;
      }
    }
    if (!fixed) {
      if (const DataType* hinted = options_.schema_hints.FindTopLevel(names_[c])) {
        types[c] = *hinted;
        fixed = true;
      }
    }
    infer[c] = !fixed && options_.inference.infer_column_types;
  }
  // The sample: whole chunks up to schema_sample_bytes.
  std::vector<size_t> sample;
  bool any_oversized = false;
  int64_t sampled = 0;
  size_t next = 0;
  for (; next < chunks_.size(); ++next) {
    if (options_.schema_sample_bytes > 0 && sampled >= options_.schema_sample_bytes) break;
    if (chunks_[next].oversized) {
      any_oversized = true;
      continue;
    }
    sample.push_back(next);
    sampled += chunks_[next].length;
  }
  for (size_t k = next; k < chunks_.size(); ++k) any_oversized |= chunks_[k].oversized;
  const bool sampled_all = next == chunks_.size();

  std::vector<formats::InferredType> inferred(n);
  if (std::find(infer.begin(), infer.end(), true) != infer.end()) {
    for (size_t index : sample) {
      FLOE_RETURN_IF_ERROR(LoadChunk(chunks_[index]));
      CsvTokenizer tokenizer(dialect_, buffer_, chunks_[index].first_line);
      CsvRecord record;
      while (tokenizer.Next(&record)) {
        if (!record.error.empty() || record.fields.size() != n) continue;
        for (size_t c = 0; c < n; ++c) {
          if (!infer[c]) continue;
          const std::string_view field = record.fields[c];
          if (!record.quoted[c] && field == options_.null_string) continue;
          inference_->Widen(&inferred[c], inference_->Classify(field));
        }
      }
    }
  }
  schema_.clear();
  converters_.clear();
  for (size_t c = 0; c < n; ++c) {
    if (infer[c]) types[c] = inference_->ToDataType(inferred[c]);
    const auto formats = infer[c] ? inference_->FormatsOf(inferred[c]) : inference_->ConfiguredFormats();
    auto converter = formats::TextConverter::Make(types[c], formats);
    if (!converter.ok()) return converter.status().WithContext(bytes_->name() + ": column " + names_[c]);
    converters_.push_back(std::move(*converter));
    schema_.push_back(MakeField(names_[c], types[c]));
  }
  // Whether anything in the sample needs _rescued_data (when the sample is
  // partial the column is in the schema anyway: no need to look).
  bool saw_rescue = false;
  const std::vector<bool> all(n, true);
  for (size_t index : sample) {
    if (saw_rescue || !sampled_all) break;
    FLOE_RETURN_IF_ERROR(LoadChunk(chunks_[index]));
    std::vector<Column> columns;
    for (const Field& field : schema_) columns.push_back(MakeEmptyColumn(field.type));
    formats::RescuedDataBuilder rescued({bytes_->name()});
    CsvReadOptions& options = options_;
    const auto mismatch = options.on_mismatch, bad = options.on_bad_record;
    options.on_mismatch = options.on_bad_record = formats::BadDataPolicy::kRescue;
    int64_t rows = 0;
    Status st = Decode(chunks_[index], all, &columns, &rescued, &rows);
    options.on_mismatch = mismatch;
    options.on_bad_record = bad;
    FLOE_RETURN_IF_ERROR(st);
    saw_rescue = !rescued.empty();
  }
  const bool may_rescue = options_.on_mismatch == formats::BadDataPolicy::kRescue ||
                          options_.on_bad_record == formats::BadDataPolicy::kRescue;
  if (may_rescue && (saw_rescue || any_oversized || !sampled_all)) {
    schema_.push_back(MakeField(std::string(formats::kRescuedDataColumn), String()));
  }
  data_bytes_.assign(n, 0);
  return Status::OK();
}

Status CsvFileReader::LoadChunk(const formats::TextChunk& chunk) {
  std::string& target = latin1_ ? raw_ : buffer_;
  target.resize(static_cast<size_t>(chunk.length));
  FLOE_RETURN_IF_ERROR(
      bytes_->ReadRange(chunk.offset, chunk.length, reinterpret_cast<uint8_t*>(target.data())));
  if (latin1_) {
    buffer_.clear();
    formats::Latin1ToUtf8(raw_, &buffer_);
  }
  return Status::OK();
}

Status CsvFileReader::Decode(const formats::TextChunk& chunk, const std::vector<bool>& build,
                             std::vector<Column>* columns, formats::RescuedDataBuilder* rescued,
                             int64_t* rows) {
  const size_t n = names_.size();
  const bool check_utf8 = !latin1_ && !formats::IsValidUtf8(buffer_);
  CsvTokenizer tokenizer(dialect_, buffer_, chunk.first_line);
  CsvRecord record;
  int64_t row = 0;
  std::string error;
  while (tokenizer.Next(&record)) {
    error = record.error;
    if (error.empty() && record.fields.size() != n) {
      error = "expected " + std::to_string(n) + " fields, found " + std::to_string(record.fields.size());
    }
    if (error.empty() && check_utf8) {
      const size_t bad = formats::FindInvalidUtf8(record.raw);
      if (bad != std::string_view::npos) error = "invalid UTF-8 at byte " + std::to_string(bad + 1);
    }
    if (!error.empty()) {
      if (options_.on_bad_record == formats::BadDataPolicy::kFail) {
        return Status::Corruption(bytes_->name() + ": line " + std::to_string(record.line) + ": " + error);
      }
      for (size_t c = 0; c < n; ++c) {
        if (build[c]) (*columns)[c].AppendNull();
      }
      rescued->AddBroken(row, record.line, record.raw, error);
      ++row;
      continue;
    }
    for (size_t c = 0; c < n; ++c) {
      if (!build[c]) continue;
      Column& column = (*columns)[c];
      const std::string_view field = record.fields[c];
      if (!record.quoted[c] && field == options_.null_string) {
        column.AppendNull();
        continue;
      }
      if (converters_[c].Append(field, &column)) continue;
      if (options_.on_mismatch == formats::BadDataPolicy::kFail) {
        std::string shown(field.substr(0, 64));
        return Status::OutOfRange(bytes_->name() + ": line " + std::to_string(record.line) + ": column " +
                                  names_[c] + ": '" + shown + "' does not fit " + schema_[c].type.ToString());
      }
      column.AppendNull();
      rescued->AddText(row, record.line, names_[c], field);
    }
    ++row;
  }
  *rows = row;
  return Status::OK();
}

Result<RecordBatch> CsvFileReader::ReadChunk(int chunk_index, const std::vector<int>& columns) {
  if (chunk_index < 0 || chunk_index >= num_chunks()) {
    return Status::InvalidArgument(bytes_->name() + ": chunk " + std::to_string(chunk_index) + " of " +
                                   std::to_string(num_chunks()));
  }
  std::vector<int> selected = columns;
  if (selected.empty()) {
    for (size_t c = 0; c < schema_.size(); ++c) selected.push_back(static_cast<int>(c));
  }
  const size_t n = names_.size();
  bool wants_rescued = false;
  std::vector<bool> build(n, false);
  for (int c : selected) {
    if (c < 0 || static_cast<size_t>(c) >= schema_.size()) {
      return Status::InvalidArgument(bytes_->name() + ": no column " + std::to_string(c));
    }
    if (static_cast<size_t>(c) >= n) {
      wants_rescued = true;
    } else {
      build[static_cast<size_t>(c)] = true;
    }
  }
  // _rescued_data depends on every column's values: build them all then.
  if (wants_rescued) build.assign(n, true);
  const formats::TextChunk& chunk = chunks_[static_cast<size_t>(chunk_index)];
  std::vector<Column> built(n, Column(Int32()));
  formats::RescuedDataBuilder rescued({bytes_->name()});
  int64_t rows = 0;
  if (chunk.oversized) {
    const std::string reason = formats::OversizedRecordReason(chunk, options_.limits.max_record_bytes);
    if (options_.on_bad_record == formats::BadDataPolicy::kFail) {
      return Status::Corruption(bytes_->name() + ": line " + std::to_string(chunk.first_line) + ": " +
                                reason);
    }
    std::string prefix(static_cast<size_t>(std::min(chunk.length, formats::kOversizedPrefixBytes)), '\0');
    FLOE_RETURN_IF_ERROR(bytes_->ReadRange(chunk.offset, static_cast<int64_t>(prefix.size()),
                                           reinterpret_cast<uint8_t*>(prefix.data())));
    for (size_t c = 0; c < n; ++c) {
      built[c] = MakeEmptyColumn(schema_[c].type);
      built[c].AppendNull();
    }
    rescued.AddBroken(0, chunk.first_line, prefix, reason);
    rows = 1;
  } else {
    for (size_t c = 0; c < n; ++c) {
      if (!build[c]) continue;
      built[c] = MakeEmptyColumn(schema_[c].type);
      const int32_t width = built[c].type.fixed_width();
      if (width > 0) built[c].values.reserve(static_cast<size_t>(chunk.rows) * static_cast<size_t>(width));
      if (built[c].type.is_binary_like()) {
        built[c].offsets.reserve(static_cast<size_t>(chunk.rows) + 1);
        built[c].data.reserve(data_bytes_[c] + data_bytes_[c] / 8);
      }
    }
    FLOE_RETURN_IF_ERROR(LoadChunk(chunk));
    FLOE_RETURN_IF_ERROR(Decode(chunk, build, &built, &rescued, &rows));
    for (size_t c = 0; c < n; ++c) data_bytes_[c] = std::max(data_bytes_[c], built[c].data.size());
  }
  if (rows != chunk.rows) {
    return Status::Internal(bytes_->name() + ": chunk " + std::to_string(chunk_index) + " decoded " +
                            std::to_string(rows) + " rows, its index says " + std::to_string(chunk.rows));
  }
  RecordBatch batch;
  batch.num_rows = rows;
  Column rescued_column = rescued.Finish(rows);
  for (int c : selected) {
    const Field& field = schema_[static_cast<size_t>(c)];
    batch.schema.push_back(field);
    if (formats::IsRescuedDataField(field)) {
      batch.columns.push_back(rescued_column);
    } else if (columns.empty() || std::count(selected.begin(), selected.end(), c) == 1) {
      batch.columns.push_back(std::move(built[static_cast<size_t>(c)]));
    } else {
      batch.columns.push_back(built[static_cast<size_t>(c)]);
    }
  }
  return batch;
}

}  // namespace floe::csv
