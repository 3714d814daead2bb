// CdaDiscovery: discovers the committed files of a Guidewire CDA export.
//
// Contract: reads <uri>/manifest.json through the FileIO, keeps the tables
// whose names pass [source] include/exclude (GlobMode::kName), lists
// <uri>/<table>/ and returns <table>/<fingerprint>/<ts>/<name>.parquet when
// the fingerprint is in the table's schemaHistory and the all-digit ts is <=
// lastSuccessfulWriteTimestamp. Hidden entries (.cda/batch-metrics.json,
// names or folders starting with '.' or '_') and non-Parquet files are
// ignored; a timestamp folder without Parquet files is normal. Parquet files
// in fingerprint folders missing from schemaHistory, or at unexpected depths,
// are ignored with one warning per folder. order_key is
// "<fingerprint start ms, 20 digits>/<ts, 20 digits>/<file name>".
//
// The export root in the config is authoritative: the manifest's
// dataFilesPath is informational only (a local or mirrored copy of an export
// still carries the producer's s3:// paths there) and is never used.
//
// Reset detection against the previous run's watermark of a table: the
// manifest's lastSuccessfulWriteTimestamp went backwards, or a fingerprint
// of the watermark is gone from schemaHistory. Without reload_on_reset the
// table gets a table_errors entry, no files and no new watermark; with it
// the table is listed in reset_tables, its new watermark is returned and its
// files are the whole current export. A table that has a watermark but is no
// longer in the manifest is a table error. A table in the manifest without a
// folder yet has no files.
//
// Incremental listing: with a previous watermark W (13-digit epoch ms, no
// reset), only folders after W are listed, per fingerprint, with a
// start-after listing (ListAfter: server-side on S3). Files of folders <= W
// were returned by the discovery that stored W (committed folders do not
// change), so a poll of a large export lists only what is new; a table whose
// lastSuccessfulWriteTimestamp is still W is not listed at all.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/discovery/cda_manifest.h"
#include "ingest/discovery/discovery.h"

namespace floe::ingest {

// A part file of a CDA export, as its path relative to the export root
// names it: <table>/<fingerprint>/<folder epoch ms>/<name>.parquet with no
// hidden part ('.' or '_'); nullopt for anything else (manifest.json,
// .cda/ metadata, other files). Whether the folder is committed is the
// manifest's to say.
struct CdaPartPath {
  std::string table;
  std::string fingerprint;
  int64_t folder_ms = 0;
};
std::optional<CdaPartPath> ParseCdaPartPath(std::string_view relative);

class CdaDiscovery : public Discovery {
 public:
  CdaDiscovery(SourceConfig config, std::shared_ptr<FileIO> io);

  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;

 private:
  // The table's files: all of them, or with a previous watermark only those
  // in folders after it.
  Result<std::vector<FileInfo>> ListTableFiles(const std::string& table_root, const CdaTableEntry& entry,
                                               std::optional<int64_t> listed_after);
  SourceConfig config_;
  std::shared_ptr<FileIO> io_;
};

}  // namespace floe::ingest
