// Table properties maintenance reads (numbers and the Parquet codec), with
// the defaults Iceberg documents when a property is absent or unparsable.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "compression/codec.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::maintenance {

inline constexpr const char* kCompressionCodecProperty = "write.parquet.compression-codec";
inline constexpr const char* kCompressionLevelProperty = "write.parquet.compression-level";

// The property as a non-negative integer; `fallback` when absent or not a plain number.
int64_t LongProperty(const iceberg::TableMetadata& metadata, const char* key, int64_t fallback);
int IntProperty(const iceberg::TableMetadata& metadata, const char* key, int fallback);

// write.parquet.compression-codec (zstd, snappy, gzip, brotli, lz4, uncompressed);
// Iceberg's default zstd when absent; an unknown name is InvalidArgument.
Result<Codec> ParquetCodecFromProperties(const iceberg::TableMetadata& metadata);

}  // namespace floe::maintenance
