// AvroContainerReader: streams the records of an Avro object container file.
//
// Contract: the file is untrusted. The header (magic, metadata, sync marker)
// is parsed on Open; blocks are then read one at a time: the record count and
// byte size are checked against the file size, the sync marker after every
// block must match the header's, the codec's output is bounded by
// max_block_bytes (snappy CRCs are verified), and every block must decode to
// exactly its record count with no bytes left over. Errors are Corruption (or
// NotSupported for an unknown codec) and name the file and the block, e.g.
// "m0.avro: block 3: sync marker mismatch". With a reader schema, records are
// projected onto it (see resolution.h); otherwise they have the writer's shape.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/avro/container.h"
#include "formats/avro/resolution.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"
#include "io/file_io.h"

namespace floe::avro {

class AvroDecoder;

struct AvroReadOptions {
  std::optional<AvroSchema> reader_schema;
  // Upper bound on one block's compressed and uncompressed size.
  int64_t max_block_bytes = int64_t{256} << 20;
  // Upper bound on the header (magic + metadata + sync).
  int64_t max_header_bytes = int64_t{64} << 20;
};

class AvroContainerReader {
 public:
  static Result<std::unique_ptr<AvroContainerReader>> Open(std::unique_ptr<InputFile> file,
                                                           AvroReadOptions options = {});
  // Reads a container held in memory; `name` is used in error messages. The
  // bytes are copied.
  static Result<std::unique_ptr<AvroContainerReader>> OpenBuffer(std::span<const uint8_t> bytes,
                                                                 std::string name,
                                                                 AvroReadOptions options = {});
  ~AvroContainerReader();

  const AvroSchema& writer_schema() const { return writer_schema_; }
  // The schema of the records Next returns: the reader schema when one was given.
  const AvroSchema& schema() const { return projection_ ? projection_->reader_schema() : writer_schema_; }
  AvroCodec codec() const { return codec_; }
  const SyncMarker& sync_marker() const { return sync_; }
  // Every metadata entry, in file order, including avro.schema and avro.codec.
  const AvroMetadata& metadata() const { return metadata_; }
  std::optional<std::string> Metadata(std::string_view key) const;

  // Reads the next record into *out; returns false at the end of the file.
  // After an error every later call returns the same error.
  Result<bool> Next(AvroValue* out);
  // Reads every remaining record.
  Result<std::vector<AvroValue>> ReadAll();

  // Blocks loaded so far; messages number blocks from 1.
  int64_t blocks_read() const { return block_index_; }

 private:
  AvroContainerReader(std::unique_ptr<InputFile> file, AvroReadOptions options);

  Status ReadHeader();
  // Loads the next block; sets at_end_ when the file has no more blocks.
  Status LoadBlock();
  Status Error(const std::string& message) const;

  std::unique_ptr<InputFile> file_;
  AvroReadOptions options_;
  std::string name_;  // the file name for messages
  int64_t file_size_ = 0;
  AvroSchema writer_schema_ = *AvroSchema::Parse("\"null\"");
  std::optional<AvroProjection> projection_;
  AvroCodec codec_ = AvroCodec::kNull;
  AvroMetadata metadata_;
  SyncMarker sync_{};

  int64_t next_block_offset_ = 0;
  int64_t block_index_ = 0;  // blocks loaded so far
  bool at_end_ = false;
  Status failure_;                   // the first error Next returned
  std::vector<uint8_t> block_data_;  // uncompressed data of the current block
  std::unique_ptr<AvroDecoder> decoder_;
  int64_t records_left_in_block_ = 0;
};

}  // namespace floe::avro
