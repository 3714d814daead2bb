// Avro object container files: constants and block codecs shared by the
// container reader and writer.
//
// Contract: a container is "Obj\x01", a metadata map<bytes> (avro.schema,
// avro.codec and user keys), a 16-byte sync marker, then blocks of
// {record count, byte size, data, sync marker}. Block data is compressed with
// the file's codec; "snappy" blocks carry a 4-byte big-endian CRC-32 of the
// uncompressed data after the raw snappy bytes, which DecompressBlock verifies.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace floe::avro {

inline constexpr std::array<uint8_t, 4> kContainerMagic = {'O', 'b', 'j', 1};
inline constexpr size_t kSyncSize = 16;
using SyncMarker = std::array<uint8_t, kSyncSize>;

// File metadata in file order (values are bytes; Iceberg's are JSON/UTF-8).
using AvroMetadata = std::vector<std::pair<std::string, std::string>>;

enum class AvroCodec : uint8_t { kNull, kDeflate, kSnappy, kZstandard };

// "null", "deflate", "snappy", "zstandard".
const char* AvroCodecName(AvroCodec codec);
// Accepts the names above (and "zstd"); other names (bzip2, xz, ...) are
// NotSupported naming the codec.
Result<AvroCodec> ParseAvroCodec(std::string_view name);

// Decompresses one block's data; the result is at most max_size bytes.
Status DecompressBlock(AvroCodec codec, std::span<const uint8_t> data, int64_t max_size,
                       std::vector<uint8_t>* out);
// Replaces *out with the compressed form of `data` (level 0 = codec default).
Status CompressBlock(AvroCodec codec, std::span<const uint8_t> data, int level, std::vector<uint8_t>* out);

}  // namespace floe::avro
