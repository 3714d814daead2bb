// PrefixSource: discovers Parquet files under a prefix (format "parquet").
//
// Contract: lists the uri recursively and returns every "*.parquet" file
// whose path relative to the uri passes [source] include/exclude
// (GlobMode::kPath, so `**` crosses folders). Names and folders starting with
// '_' or '.' are skipped (Spark's _SUCCESS and _temporary/, .crc checksums).
// With hive_partitioning, every key=value folder between the uri and the
// file becomes a partition value, URL-decoded (%XX; an invalid escape stays
// as written), outermost first. A local file is returned only once
// now_ms - mtime_ms >= settle_ms (a writer may still be appending to it);
// object-store files appear when complete, so they are returned at once.
// The table is [source] table, else the last component of the uri.
// order_key is the relative path. No watermarks: the ledger's per-file
// records are the whole state of a prefix source.
#pragma once

#include <memory>

#include "ingest/source/source.h"

namespace floe::ingest {

class PrefixSource : public Source {
 public:
  // `table` is the source table name MakeSource resolved.
  PrefixSource(SourceConfig config, std::string table, std::shared_ptr<FileIO> io);

  Result<Discovery> Discover(const std::map<std::string, TableWatermark>& watermarks,
                             int64_t now_ms) override;
  FileIO& io() override { return *io_; }

  // The table name for a prefix uri with no [source] table: its last path
  // component ("s3://bucket/exports/orders/" -> "orders"), or "" if none.
  static std::string DefaultTableName(const std::string& uri);

 private:
  SourceConfig config_;
  std::string table_;
  std::shared_ptr<FileIO> io_;
};

// "%41b%2Fc" -> "Ab/c". Malformed escapes are kept literally.
std::string UrlDecode(std::string_view text);

}  // namespace floe::ingest
