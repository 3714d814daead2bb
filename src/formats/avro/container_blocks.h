// The pieces of an Avro object container file, read one at a time: the
// header, a block's head (record count and byte size) and a block's data.
// AvroContainerReader (records as AvroValue) and AvroFileReader (records as
// columns) both read containers through these.
//
// Contract: the file is untrusted. Every count and size is checked against
// the file's size and the limits before anything is allocated; the sync
// marker after each block must equal the header's. Errors are Corruption
// (NotSupported for a codec floe lacks) naming the file and, for blocks, the
// block number (from 1) and offset: "m0.avro: block 3 at offset 812: sync
// marker mismatch". Stateless functions; safe from any thread for
// different files (InputFile reads are concurrent-safe).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/avro/container.h"
#include "io/file_io.h"

namespace floe::avro {

struct AvroContainerHeader {
  AvroMetadata metadata;
  SyncMarker sync{};
  int64_t length = 0;  // the offset of the first block

  std::optional<std::string> Metadata(std::string_view key) const;
};

// Parses the header (magic, metadata map, sync marker) of `file`, whose
// size is `file_size`, reading at most max_header_bytes.
Result<AvroContainerHeader> ReadAvroContainerHeader(InputFile& file, int64_t file_size,
                                                    int64_t max_header_bytes);
// The same over bytes in memory (no name in messages).
Result<AvroContainerHeader> ParseAvroContainerHeader(std::span<const uint8_t> bytes);

struct AvroBlockHead {
  int64_t offset = 0;  // where the block starts (its record count)
  int64_t number = 0;  // 1-based, for messages
  int64_t records = 0;
  int64_t data_size = 0;    // compressed bytes
  int64_t head_length = 0;  // bytes of the two varints
  // The offset just past the block's sync marker.
  int64_t end() const { return offset + head_length + data_size + static_cast<int64_t>(kSyncSize); }
};

// Reads the head of block `number` at `offset` (offset < file_size).
Result<AvroBlockHead> ReadAvroBlockHead(InputFile& file, int64_t offset, int64_t number, int64_t file_size,
                                        int64_t max_block_bytes);
// Reads a block's data and sync marker, checks the marker and decompresses
// the data into *out (at most max_block_bytes).
Status ReadAvroBlockData(InputFile& file, const AvroBlockHead& head, const SyncMarker& sync, AvroCodec codec,
                         int64_t max_block_bytes, std::vector<uint8_t>* out);

}  // namespace floe::avro
