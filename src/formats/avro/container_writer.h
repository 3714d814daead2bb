// AvroContainerWriter: writes an Avro object container file.
//
// Contract: the header carries avro.schema (the schema's ToJson), avro.codec,
// then the caller's metadata in the given order (keys starting "avro." are
// reserved and rejected). Records are encoded as they are appended and a block
// is compressed and written whenever the buffered records reach block_bytes,
// and on Close. Close publishes the file and returns its exact size (what
// Iceberg records as manifest_length). A writer destroyed without a successful
// Close aborts the output, leaving nothing at the path.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "common/status.h"
#include "formats/avro/container.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"
#include "io/file_io.h"

namespace floe::avro {

struct AvroWriteOptions {
  AvroCodec codec = AvroCodec::kDeflate;  // Iceberg Java's default
  int compression_level = 0;              // 0 = the codec's default
  int64_t block_bytes = int64_t{64} << 10;
  // A fixed sync marker makes output reproducible; otherwise it is random.
  std::optional<SyncMarker> sync_marker;
};

class AvroContainerWriter {
 public:
  static Result<std::unique_ptr<AvroContainerWriter>> Open(std::unique_ptr<OutputFile> file,
                                                           AvroSchema schema, AvroMetadata metadata,
                                                           AvroWriteOptions options = {});
  ~AvroContainerWriter();

  // Encodes one record; InvalidArgument (naming the field) if it does not
  // match the schema, in which case nothing of it is written.
  Status Append(const AvroValue& record);
  // Flushes the last block and publishes the file; returns its size in bytes.
  Result<int64_t> Close();

  const AvroSchema& schema() const { return schema_; }
  int64_t records_written() const { return records_written_; }

 private:
  AvroContainerWriter(std::unique_ptr<OutputFile> file, AvroSchema schema, AvroWriteOptions options)
      : file_(std::move(file)), schema_(std::move(schema)), options_(options) {}

  Status WriteHeader(const AvroMetadata& metadata);
  Status FlushBlock();

  std::unique_ptr<OutputFile> file_;
  AvroSchema schema_;
  AvroWriteOptions options_;
  SyncMarker sync_{};
  std::vector<uint8_t> pending_;  // encoded records of the open block
  int64_t pending_records_ = 0;
  int64_t records_written_ = 0;
  bool closed_ = false;
  bool failed_ = false;
};

}  // namespace floe::avro
