// Demo CDA export generator: writes a realistic Guidewire CDA export with
// floe's own Parquet writer, for the demo, the tests and the benchmarks. The
// layout is the one ingest/source/cda_source.h reads: <root>/manifest.json
// (per table lastSuccessfulWriteTimestamp and the schemaHistory of
// fingerprints, ingest/source/cda_manifest.h) and
// <root>/<table>/<fingerprint>/<timestamp ms>/part-*.parquet, with
// .cda/batch-metrics.json beside the part files.
//
// Contract: deterministic for a given seed and options. Several tables of
// 10+ columns (id bigint, publicid, createtime/updatetime timestamps,
// retired, beanversion, decimals, dates, UTF-8 strings with non-ASCII text,
// nulls, and the gwcbi___ change columns), many small part files per
// timestamp folder, inserts, updates that arrive out of order across
// folders, deletes followed by late older changes, several changes per id
// within one folder, a schema change (added columns and an int->bigint
// widening) under a second fingerprint, a folder holding only
// .cda/batch-metrics.json, and a folder newer than the manifest's
// lastSuccessfulWriteTimestamp (uncommitted). AppendFolders adds committed
// folders to an existing export and advances the manifest.
//
// Layout details: tables are taken in the order cc_claim, cc_exposure,
// cc_contact, cctl_lossType (a typelist), cc_check, and past five the same
// kinds again with their own data as cc_claim_2, cc_exposure_2, ... Folder k of table t is
// named start_ms + k * 5 min + t * 7 s. With schema_change, folders from
// folders/2 on use the second fingerprint (needs folders >= 2). The empty
// folder is folder max(1, folders/3) (needs folders >= 3). The uncommitted
// folder is the one after the last committed folder. Part files are Snappy
// Parquet written by floe's writer, one row group each, rows shuffled.
//
// State: GenerateDemoExport records its options in <root>/.floe-demo-state.json
// (and refuses a root that already has a manifest.json); AppendDemoFolders
// reads them back, replays the change stream of the earlier calls without
// writing, then writes the new folders. The previous uncommitted folder
// becomes committed; with uncommitted_folder a new one follows the new
// folders.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/file_io.h"

namespace floe::demo {

struct DemoExportOptions {
  uint64_t seed = 42;
  int64_t rows = 5000;  // ids per table at the end (roughly)
  int tables = 3;       // 1..50 (past 5: the same kinds again, named <name>_2, ...)
  int folders = 12;     // committed timestamp folders per table
  int files_per_folder = 3;
  double update_fraction = 0.4;  // changes that are updates of existing ids
  double delete_fraction = 0.05;
  bool schema_change = true;
  bool empty_folder = true;
  bool uncommitted_folder = true;
  int64_t start_ms = 1764547200000;  // 2025-12-01T00:00:00Z
};

struct DemoExportSummary {
  std::string root;
  std::vector<std::string> tables;
  int64_t files = 0;
  int64_t rows = 0;   // change rows written by this call, all folders (committed or not)
  int64_t bytes = 0;  // Parquet bytes written by this call
  // Whole export after this call: change rows in committed folders (what the
  // manifest's totalProcessedRecordsCount counts), and per table the rows a
  // correct consumer holds once it ingested every committed folder (newest
  // seqval per id wins, operation 3 ignored, a final delete removes the id).
  int64_t committed_rows = 0;
  std::map<std::string, int64_t> expected_rows;
};

Result<DemoExportSummary> GenerateDemoExport(FileIO& io, const std::string& root,
                                             const DemoExportOptions& options);
// Adds `folders` committed folders of new changes (same seed stream advanced
// by `round`) to an export made by GenerateDemoExport, then advances
// manifest.json. The export's recorded options are used (`options` is
// kept for callers' convenience and not consulted); rounds must increase from one call to the next
// (InvalidArgument otherwise). NotFound when root has no state file.
Result<DemoExportSummary> AppendDemoFolders(FileIO& io, const std::string& root,
                                            const DemoExportOptions& options, int round, int folders);

}  // namespace floe::demo
