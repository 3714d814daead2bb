#include "formats/avro/container_reader.h"

#include <algorithm>
#include <cstring>

#include "formats/avro/container_blocks.h"
#include "formats/avro/decoder.h"

namespace floe::avro {

namespace {

// An InputFile over bytes held in memory (for OpenBuffer and fuzzing).
class BufferInputFile : public InputFile {
 public:
  BufferInputFile(std::vector<uint8_t> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  const std::string& path() const override { return name_; }
  Result<int64_t> Size() override { return static_cast<int64_t>(bytes_.size()); }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > bytes_.size() ||
        static_cast<uint64_t>(length) > bytes_.size() - static_cast<uint64_t>(offset)) {
      return Status::IOError(name_ + ": read of " + std::to_string(length) + " bytes at " +
                             std::to_string(offset) + " is past the end (" + std::to_string(bytes_.size()) +
                             " bytes)");
    }
    if (length > 0) std::memcpy(out, bytes_.data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  std::vector<uint8_t> bytes_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<AvroContainerReader>> AvroContainerReader::Open(std::unique_ptr<InputFile> file,
                                                                       AvroReadOptions options) {
  std::unique_ptr<AvroContainerReader> reader(new AvroContainerReader(std::move(file), std::move(options)));
  FLOE_RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

Result<std::unique_ptr<AvroContainerReader>> AvroContainerReader::OpenBuffer(std::span<const uint8_t> bytes,
                                                                             std::string name,
                                                                             AvroReadOptions options) {
  auto file =
      std::make_unique<BufferInputFile>(std::vector<uint8_t>(bytes.begin(), bytes.end()), std::move(name));
  return Open(std::move(file), std::move(options));
}

AvroContainerReader::AvroContainerReader(std::unique_ptr<InputFile> file, AvroReadOptions options)
    : file_(std::move(file)), options_(std::move(options)) {}

AvroContainerReader::~AvroContainerReader() = default;

Status AvroContainerReader::Error(const std::string& message) const {
  return Status::Corruption(name_ + ": " + message);
}

std::optional<std::string> AvroContainerReader::Metadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Status AvroContainerReader::ReadHeader() {
  name_ = file_->path();
  FLOE_ASSIGN_OR_RETURN(file_size_, file_->Size());
  FLOE_ASSIGN_OR_RETURN(AvroContainerHeader header,
                        ReadAvroContainerHeader(*file_, file_size_, options_.max_header_bytes));
  metadata_ = std::move(header.metadata);
  sync_ = header.sync;
  next_block_offset_ = header.length;

  auto schema_text = Metadata("avro.schema");
  if (!schema_text) return Error("header has no avro.schema");
  auto schema = AvroSchema::Parse(*schema_text);
  if (!schema.ok()) return schema.status().WithContext(name_ + ": avro.schema");
  writer_schema_ = std::move(*schema);
  auto codec = ParseAvroCodec(Metadata("avro.codec").value_or("null"));
  if (!codec.ok()) return codec.status().WithContext(name_);
  codec_ = *codec;
  if (options_.reader_schema) {
    auto projection = AvroProjection::Make(writer_schema_, *options_.reader_schema);
    if (!projection.ok())
      return projection.status().WithContext(name_ + ": projecting onto the reader schema");
    projection_ = std::move(*projection);
  }
  return Status::OK();
}

Status AvroContainerReader::LoadBlock() {
  decoder_.reset();
  records_left_in_block_ = 0;
  if (next_block_offset_ >= file_size_) {
    at_end_ = true;
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RETURN(AvroBlockHead head, ReadAvroBlockHead(*file_, next_block_offset_, block_index_ + 1,
                                                              file_size_, options_.max_block_bytes));
  FLOE_RETURN_IF_ERROR(
      ReadAvroBlockData(*file_, head, sync_, codec_, options_.max_block_bytes, &block_data_));
  next_block_offset_ = head.end();
  block_index_ = head.number;
  records_left_in_block_ = head.records;
  decoder_ = std::make_unique<AvroDecoder>(block_data_);
  return Status::OK();
}

Result<bool> AvroContainerReader::Next(AvroValue* out) {
  if (!failure_.ok()) return failure_;
  while (records_left_in_block_ == 0) {
    if (at_end_) return false;
    if (decoder_ && decoder_->remaining() > 0) {
      failure_ = Error("block " + std::to_string(block_index_) + ": " +
                       std::to_string(decoder_->remaining()) + " bytes left after its records");
      return failure_;
    }
    Status st = LoadBlock();
    if (!st.ok()) {
      failure_ = st;
      return failure_;
    }
  }
  const std::string where = "block " + std::to_string(block_index_);
  Status st = decoder_->ChargeItem();
  if (st.ok()) {
    if (projection_) {
      AvroValue written;
      st = decoder_->Decode(writer_schema_.root(), &written);
      if (st.ok()) st = projection_->Project(written, out);
    } else {
      st = decoder_->Decode(writer_schema_.root(), out);
    }
  }
  if (!st.ok()) {
    failure_ = st.WithContext(name_ + ": " + where);
    return failure_;
  }
  --records_left_in_block_;
  return true;
}

Result<std::vector<AvroValue>> AvroContainerReader::ReadAll() {
  std::vector<AvroValue> records;
  while (true) {
    AvroValue record;
    FLOE_ASSIGN_OR_RETURN(bool more, Next(&record));
    if (!more) return records;
    records.push_back(std::move(record));
  }
}

}  // namespace floe::avro
