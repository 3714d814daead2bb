// The deletes of one batch — rows replaced by newer versions or deleted —
// written as position delete files (format v2) or deletion vectors (v3).
//
// Contract: `deletes` maps data file paths of the table's current snapshot
// to row positions. Each data file's partition and spec come from the
// snapshot's manifests (a path that is not a live data file there is
// Corruption: the key index and the table disagree). v2 writes one position
// delete file per (spec, partition) of the data files, next to the data
// (<location>/data/[<partition path>/]<prefix>-deletes-<n>.parquet). v3
// writes one Puffin file (<location>/data/<prefix>-deletes.puffin) with one
// deletion vector per data file, merged with that file's current vector,
// which the commit must then remove (`replaced`). Never equality deletes.
// On error every file written so far is deleted.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/writer/data_file_writer.h"
#include "io/file_io.h"

namespace floe::ingest {

struct BatchDeleteFiles {
  std::vector<iceberg::DataFile> added;     // delete files to add in the commit
  std::vector<iceberg::DataFile> replaced;  // v3: the vectors the added ones supersede
  std::vector<std::string> written_paths;   // what to delete if the commit definitely fails
  int64_t positions = 0;                    // new deleted positions (before merging old vectors)
};

struct BatchDeleteOptions {
  iceberg::DataFileWriterOptions file;  // Parquet options of v2 delete files
  std::string file_prefix;
};

Result<BatchDeleteFiles> WriteBatchDeletes(FileIO& io, const iceberg::TableMetadata& metadata,
                                           std::map<std::string, std::vector<int64_t>> deletes,
                                           const BatchDeleteOptions& options);

}  // namespace floe::ingest
