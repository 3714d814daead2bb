// PrefixDiscovery: discovers the data files under a prefix (discovery
// "prefix"; format "parquet" and the other file formats).
//
// Contract: lists the uri recursively and returns every data file of the
// format (DataFilePredicate: "*.parquet" for Parquet) whose path relative to the uri passes [source]
// include/exclude (GlobMode::kPath, so `**` crosses folders). Names and folders starting with
// '_' or '.' are skipped (Spark's _SUCCESS and _temporary/, .crc checksums).
// A symbolic link to a file outside the uri (local zones) is left out with a
// warning unless [source] follow_links_outside_uri; links inside are taken,
// and links to directories are not followed.
// The table is [source] table, else the last component of the uri; with
// [source] table_from_path, the {table} the template captures from the
// file's path (table_path.h), and files it does not match are left out. Two
// schemas holding one table name is an error of that table (its files are
// left out; nothing merges two source tables into one).
// With hive_partitioning, every key=value folder between the uri (or the
// table's folder) and the file becomes a partition value, URL-decoded (%XX;
// an invalid escape stays as written), outermost first. A local file is
// returned only once now_ms - mtime_ms >= settle_ms (a writer may still be
// appending to it): the others are counted in DiscoveryResult::settling;
// object-store files appear when complete, so they are returned at once.
// order_key is the relative path; with [source] full_load_files, files whose
// name matches one of those globs come first ("0/" + path, the others
// "1/" + path). A local uri that does not exist is the returned error
// (NotFound naming it), or with allow_missing_uri a warning; an object-store
// prefix with no objects at all is a warning. No watermarks: the ledger's
// per-file records are the whole state of a prefix source.
#pragma once

#include <memory>
#include <optional>

#include "ingest/discovery/discovery.h"
#include "ingest/discovery/table_path.h"

namespace floe::ingest {

class PrefixDiscovery : public Discovery {
 public:
  // `table` is the source table name MakeSource resolved (unused with a template).
  PrefixDiscovery(SourceConfig config, std::string table, std::optional<TablePathTemplate> table_path,
                  std::shared_ptr<FileIO> io, DataFilePredicate is_data_file);

  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;

  // What one file under the uri is to this discovery: the body of a
  // listing, also applied to a file a notification names (which is
  // complete when notified, so `settle` is false for it).
  struct FileVerdict {
    enum class Kind {
      kUnit,         // `unit` is to be ingested
      kNotOurs,      // outside the uri, not a data file of the format, hidden, or not matched by a template
      kFilteredOut,  // left out by include/exclude
      kLinkOutside,  // a symbolic link leaving the uri (`warning` says so)
      kSettling,     // may still be written to: eligible at `eligible_at_ms`
    };
    Kind kind = Kind::kNotOurs;
    SourceUnit unit;
    // With table_from_path: the {schema} the file's path named (set for
    // every file the template matched, also when filtered out or settling).
    std::optional<std::string> schema;
    int64_t eligible_at_ms = 0;
    std::string warning;
  };
  FileVerdict Classify(const FileInfo& info, int64_t now_ms, bool settle) const;

  // With table_from_path, a source table must lie under one {schema}:
  // records that `table` lay under `schema` in `schema_of` and returns the
  // table's error when it already lay under another one.
  std::optional<std::string> CheckOneSchema(std::map<std::string, std::string>& schema_of,
                                            const std::string& table, const std::string& schema) const;

  // The table name for a prefix uri with no [source] table: its last path
  // component ("s3://bucket/exports/orders/" -> "orders"), or "" if none.
  static std::string DefaultTableName(const std::string& uri);

 private:
  SourceConfig config_;
  std::string table_;
  std::optional<TablePathTemplate> table_path_;
  std::shared_ptr<FileIO> io_;
  DataFilePredicate is_data_file_;
};

// "%41b%2Fc" -> "Ab/c". Malformed escapes are kept literally.
std::string UrlDecode(std::string_view text);

}  // namespace floe::ingest
