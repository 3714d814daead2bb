#include "maintenance/property_util.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "common/strings.h"

namespace floe::maintenance {

int64_t LongProperty(const iceberg::TableMetadata& metadata, const char* key, int64_t fallback) {
  const std::string text = metadata.Property(key, "");
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 0) return fallback;
  return value;
}

int IntProperty(const iceberg::TableMetadata& metadata, const char* key, int fallback) {
  const int64_t value = LongProperty(metadata, key, fallback);
  return value > std::numeric_limits<int>::max() ? fallback : static_cast<int>(value);
}

Result<Codec> ParquetCodecFromProperties(const iceberg::TableMetadata& metadata) {
  const std::string name = AsciiLower(metadata.Property(kCompressionCodecProperty, "zstd"));
  if (name == "zstd") return Codec::kZstd;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "gzip") return Codec::kGzip;
  if (name == "brotli") return Codec::kBrotli;
  if (name == "lz4") return Codec::kLz4Raw;
  if (name == "uncompressed" || name == "none") return Codec::kNone;
  return Status::InvalidArgument(std::string("table property ") + kCompressionCodecProperty +
                                 ": unknown codec '" + name +
                                 "' (zstd, snappy, gzip, brotli, lz4, uncompressed)");
}

}  // namespace floe::maintenance
