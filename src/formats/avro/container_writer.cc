#include "formats/avro/container_writer.h"

#include <random>

#include "formats/avro/encoder.h"

namespace floe::avro {

Result<std::unique_ptr<AvroContainerWriter>> AvroContainerWriter::Open(std::unique_ptr<OutputFile> file,
                                                                       AvroSchema schema,
                                                                       AvroMetadata metadata,
                                                                       AvroWriteOptions options) {
  if (options.block_bytes <= 0) return Status::InvalidArgument("avro writer: block_bytes must be positive");
  for (const auto& [key, value] : metadata) {
    if (key.rfind("avro.", 0) == 0) {
      return Status::InvalidArgument("avro writer: metadata key '" + key + "' is reserved");
    }
  }
  std::unique_ptr<AvroContainerWriter> writer(
      new AvroContainerWriter(std::move(file), std::move(schema), options));
  if (options.sync_marker) {
    writer->sync_ = *options.sync_marker;
  } else {
    std::random_device random;
    for (size_t i = 0; i < kSyncSize; i += 4) {
      const uint32_t word = random();
      for (size_t j = 0; j < 4; ++j) writer->sync_[i + j] = static_cast<uint8_t>(word >> (8 * j));
    }
  }
  Status st = writer->WriteHeader(metadata);
  if (!st.ok()) {
    writer->failed_ = true;
    return st.WithContext(writer->file_->path());
  }
  return writer;
}

AvroContainerWriter::~AvroContainerWriter() {
  if (!closed_ && file_) file_->Abort();
}

Status AvroContainerWriter::WriteHeader(const AvroMetadata& metadata) {
  std::vector<uint8_t> header(kContainerMagic.begin(), kContainerMagic.end());
  AvroEncoder encoder(&header);
  encoder.WriteLong(static_cast<int64_t>(metadata.size()) + 2);
  encoder.WriteString("avro.schema");
  encoder.WriteString(schema_.ToJson());
  encoder.WriteString("avro.codec");
  encoder.WriteString(AvroCodecName(options_.codec));
  for (const auto& [key, value] : metadata) {
    encoder.WriteString(key);
    encoder.WriteString(value);
  }
  encoder.WriteLong(0);
  encoder.WriteRaw(sync_);
  return file_->Write(header);
}

Status AvroContainerWriter::Append(const AvroValue& record) {
  if (closed_ || failed_) return Status::InvalidArgument("avro writer: append after close or failure");
  const size_t mark = pending_.size();
  AvroEncoder encoder(&pending_);
  Status st = encoder.Encode(schema_.root(), record);
  if (!st.ok()) {
    pending_.resize(mark);
    return st.WithContext(file_->path() + ": record " + std::to_string(records_written_ + pending_records_));
  }
  ++pending_records_;
  if (static_cast<int64_t>(pending_.size()) >= options_.block_bytes) {
    st = FlushBlock();
    if (!st.ok()) failed_ = true;
  }
  return st;
}

Status AvroContainerWriter::FlushBlock() {
  if (pending_records_ == 0) return Status::OK();
  std::vector<uint8_t> compressed;
  Status st = CompressBlock(options_.codec, pending_, options_.compression_level, &compressed);
  if (!st.ok()) return st.WithContext(file_->path());
  std::vector<uint8_t> block;
  AvroEncoder encoder(&block);
  encoder.WriteLong(pending_records_);
  encoder.WriteLong(static_cast<int64_t>(compressed.size()));
  block.insert(block.end(), compressed.begin(), compressed.end());
  block.insert(block.end(), sync_.begin(), sync_.end());
  FLOE_RETURN_IF_ERROR(file_->Write(block));
  records_written_ += pending_records_;
  pending_records_ = 0;
  pending_.clear();
  return Status::OK();
}

Result<int64_t> AvroContainerWriter::Close() {
  if (closed_) return Status::InvalidArgument("avro writer: closed twice");
  if (failed_) return Status::InvalidArgument("avro writer: close after a failed write");
  Status st = FlushBlock();
  if (!st.ok()) {
    failed_ = true;
    return st;
  }
  auto size = file_->Close();
  closed_ = true;
  return size;
}

}  // namespace floe::avro
