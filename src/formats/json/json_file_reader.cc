#include "formats/json/json_file_reader.h"

#include <algorithm>
#include <cstring>

namespace floe::json {
namespace {

constexpr size_t kScanBlock = size_t{256} << 10;
// The bytes of JSON lines read and decoded at a time: small enough to stay
// in a core's L2 cache between the read and the decode.
constexpr int64_t kDecodeBlock = int64_t{256} << 10;

}  // namespace

Result<std::unique_ptr<JsonFileReader>> JsonFileReader::Open(std::shared_ptr<InputFile> file,
                                                             JsonReadOptions options) {
  std::unique_ptr<JsonFileReader> reader(new JsonFileReader());
  const std::string path = file->path();
  if (options.format == "jsonl" || options.format == "ndjson") {
    if (options.strip_outer_array) {
      return Status::InvalidArgument(path + ": strip_outer_array needs format \"json\", not \"" +
                                     options.format + "\"");
    }
    reader->layout_ = JsonLayout::kLines;
  } else if (options.format == "json") {
    reader->layout_ = options.strip_outer_array ? JsonLayout::kArray : JsonLayout::kValues;
  } else {
    return Status::InvalidArgument("JSON format '" + options.format + "' is not jsonl or json");
  }
  if (options.limits.chunk_rows < 1 || options.limits.chunk_bytes < 1 ||
      options.limits.max_record_bytes < 1) {
    return Status::InvalidArgument("chunk_rows, chunk_bytes and max_record_bytes must be positive");
  }
  options.decode.location.unit = path;
  options.decode.max_document_bytes = options.limits.max_record_bytes;
  reader->options_ = std::move(options);
  FLOE_ASSIGN_OR_RETURN(reader->bytes_,
                        formats::UnitBytes::Open(std::move(file), reader->options_.compression));
  formats::UnitBytes& bytes = *reader->bytes_;

  // One pass over the file: record boundaries and chunks.
  formats::TextChunker chunker(reader->options_.limits, bytes.data_start(), 1);
  JsonRecordScanner scanner(reader->layout_, &chunker, bytes.data_start(), path);
  {
    std::string block(kScanBlock, '\0');
    int64_t skip = bytes.data_start();
    while (true) {
      FLOE_ASSIGN_OR_RETURN(size_t got, bytes.Read(reinterpret_cast<uint8_t*>(block.data()), block.size()));
      if (got == 0) break;
      std::string_view view(block.data(), got);
      if (skip > 0) {
        const size_t drop = static_cast<size_t>(std::min<int64_t>(skip, static_cast<int64_t>(got)));
        view.remove_prefix(drop);
        skip -= static_cast<int64_t>(drop);
      }
      FLOE_RETURN_IF_ERROR(scanner.Scan(view));
    }
    FLOE_RETURN_IF_ERROR(scanner.Finish());
  }
  reader->chunks_ = chunker.Finish();
  reader->rows_ = chunker.rows();

  // The schema from a sample of whole chunks.
  JsonDecodeOptions sample_options = reader->options_.decode;
  sample_options.on_broken = BadDataPolicy::kRescue;
  sample_options.on_mismatch = BadDataPolicy::kRescue;
  sample_options.columns.reset();
  sample_options.always_rescued_column = false;
  FLOE_ASSIGN_OR_RETURN(auto sampler, JsonDocumentDecoder::Make(sample_options));
  const int64_t sample_bytes = reader->options_.schema_sample_bytes;
  int64_t sampled = 0;
  bool any_oversized = false;
  size_t next = 0;
  // With the schema fixed (no inference) a partial sample decides nothing:
  // _rescued_data is in the schema either way. Skip decoding it.
  int64_t total_bytes = 0;
  for (const formats::TextChunk& chunk : reader->chunks_) total_bytes += chunk.length;
  const bool decode_sample =
      sample_options.infer_new_fields || sample_bytes == 0 || sample_bytes >= total_bytes;
  for (; decode_sample && next < reader->chunks_.size(); ++next) {
    if (sample_bytes > 0 && sampled >= sample_bytes) break;
    const formats::TextChunk& chunk = reader->chunks_[next];
    if (chunk.oversized) {
      any_oversized = true;
      continue;
    }
    FLOE_RETURN_IF_ERROR(reader->DecodeChunk(chunk, sampler.get()));
    sampled += chunk.length;
  }
  for (size_t k = next; k < reader->chunks_.size(); ++k) any_oversized |= reader->chunks_[k].oversized;
  reader->sampled_all_ = next == reader->chunks_.size();
  FLOE_ASSIGN_OR_RETURN(RecordBatch sample, sampler->Finish());
  bool saw_rescue = false;
  for (Field& field : sample.schema) {
    if (formats::IsRescuedDataField(field)) {
      saw_rescue = true;
      continue;
    }
    reader->schema_.push_back(std::move(field));
  }
  const JsonDecodeOptions& decode = reader->options_.decode;
  const bool may_rescue =
      decode.on_mismatch == BadDataPolicy::kRescue || decode.on_broken == BadDataPolicy::kRescue;
  if (may_rescue && (saw_rescue || any_oversized || !reader->sampled_all_)) {
    reader->schema_.push_back(MakeField(std::string(formats::kRescuedDataColumn), String()));
  }
  return reader;
}

Status JsonFileReader::DecodeChunk(const formats::TextChunk& chunk, JsonDocumentDecoder* decoder) {
  const size_t padding = JsonDocumentPadding();
  auto add = [&](std::string_view record, int64_t line) {
    const size_t after =
        static_cast<size_t>(buffer_.data() + buffer_.size() - (record.data() + record.size()));
    return decoder->Add(record, line, after);
  };
  if (layout_ != JsonLayout::kLines) {
    buffer_.resize(static_cast<size_t>(chunk.length) + padding);
    std::fill(buffer_.begin() + chunk.length, buffer_.end(), ' ');
    FLOE_RETURN_IF_ERROR(
        bytes_->ReadRange(chunk.offset, chunk.length, reinterpret_cast<uint8_t*>(buffer_.data())));
    return SplitJsonRecords(layout_, std::string_view(buffer_.data(), static_cast<size_t>(chunk.length)),
                            chunk.first_line, add);
  }
  // Lines are decoded a block at a time while the block is in cache; the
  // unfinished line at a block's end moves to the front for the next one.
  int64_t offset = chunk.offset;
  int64_t remaining = chunk.length;
  int64_t line = chunk.first_line;
  size_t carried = 0;
  while (remaining > 0) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(remaining, kDecodeBlock));
    if (buffer_.size() < carried + want + padding) buffer_.resize(carried + want + padding);
    FLOE_RETURN_IF_ERROR(bytes_->ReadRange(offset, static_cast<int64_t>(want),
                                           reinterpret_cast<uint8_t*>(buffer_.data() + carried)));
    offset += static_cast<int64_t>(want);
    remaining -= static_cast<int64_t>(want);
    const std::string_view filled(buffer_.data(), carried + want);
    size_t whole = filled.size();  // the chunk's end is a record boundary
    if (remaining > 0) {
      // Only the new bytes can hold a line end (the carried ones have none),
      // so a line longer than many blocks is neither searched nor moved again.
      const size_t last_newline = filled.substr(carried).rfind('\n');
      whole = last_newline == std::string_view::npos ? 0 : carried + last_newline + 1;
    }
    if (whole == 0) {
      carried = filled.size();
      continue;
    }
    const size_t readable_after = buffer_.size() - whole;
    FLOE_RETURN_IF_ERROR(decoder->AddLines(filled.substr(0, whole), line, readable_after, &line));
    carried = filled.size() - whole;
    if (carried > 0) std::memmove(buffer_.data(), buffer_.data() + whole, carried);
  }
  return Status::OK();
}

Result<RecordBatch> JsonFileReader::OversizedChunk(const formats::TextChunk& chunk,
                                                   const std::vector<std::string>& names) {
  const std::string reason = formats::OversizedRecordReason(chunk, options_.limits.max_record_bytes);
  const std::string where = bytes_->name() + ": " +
                            (layout_ == JsonLayout::kLines ? "line " : "record at line ") +
                            std::to_string(chunk.first_line);
  if (options_.decode.on_broken == BadDataPolicy::kFail) return Status::Corruption(where + ": " + reason);
  std::string prefix(static_cast<size_t>(std::min(chunk.length, formats::kOversizedPrefixBytes)), '\0');
  FLOE_RETURN_IF_ERROR(bytes_->ReadRange(chunk.offset, static_cast<int64_t>(prefix.size()),
                                         reinterpret_cast<uint8_t*>(prefix.data())));
  formats::RescuedDataBuilder rescued(options_.decode.location);
  rescued.AddBroken(0, chunk.first_line, prefix, reason);
  RecordBatch batch;
  batch.num_rows = 1;
  for (const std::string& name : names) {
    for (const Field& field : schema_) {
      if (field.name != name) continue;
      batch.schema.push_back(field);
      if (formats::IsRescuedDataField(field)) {
        batch.columns.push_back(rescued.Finish(1));
      } else {
        Column column = MakeEmptyColumn(field.type);
        column.AppendNull();
        batch.columns.push_back(std::move(column));
      }
    }
  }
  return batch;
}

Result<RecordBatch> JsonFileReader::ReadChunk(int chunk_index, const std::vector<int>& columns) {
  if (chunk_index < 0 || chunk_index >= num_chunks()) {
    return Status::InvalidArgument(bytes_->name() + ": chunk " + std::to_string(chunk_index) + " of " +
                                   std::to_string(num_chunks()));
  }
  std::vector<std::string> names;
  if (columns.empty()) {
    for (const Field& field : schema_) names.push_back(field.name);
  } else {
    for (int c : columns) {
      if (c < 0 || static_cast<size_t>(c) >= schema_.size()) {
        return Status::InvalidArgument(bytes_->name() + ": no column " + std::to_string(c));
      }
      names.push_back(schema_[static_cast<size_t>(c)].name);
    }
  }
  const formats::TextChunk& chunk = chunks_[static_cast<size_t>(chunk_index)];
  if (chunk.oversized) return OversizedChunk(chunk, names);
  if (!decoder_ || decoder_columns_ != names) {
    JsonDecodeOptions decode = options_.decode;
    decode.known.clear();
    for (const Field& field : schema_) {
      if (!formats::IsRescuedDataField(field)) decode.known.push_back(field);
    }
    decode.infer_new_fields = false;
    decode.columns = names;
    FLOE_ASSIGN_OR_RETURN(decoder_, JsonDocumentDecoder::Make(std::move(decode)));
    decoder_columns_ = names;
  }
  Status read = DecodeChunk(chunk, decoder_.get());
  if (!read.ok()) {
    decoder_.reset();  // it holds part of the chunk
    return read;
  }
  FLOE_ASSIGN_OR_RETURN(RecordBatch batch, decoder_->Finish());
  if (batch.num_rows != chunk.rows) {
    return Status::Internal(bytes_->name() + ": chunk " + std::to_string(chunk_index) + " decoded " +
                            std::to_string(batch.num_rows) + " rows, its index says " +
                            std::to_string(chunk.rows));
  }
  return batch;
}

}  // namespace floe::json
