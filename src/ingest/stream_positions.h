// Stream positions kept in the table: the durable form of "which records of
// a stream this table holds", for when the ledger is gone (a lost or
// replaced state directory).
//
// Contract:
// - Every ingest commit of a batch of stream ranges carries, in its snapshot
//   summary, floe.stream-ends.<pipeline> = "<stream>/<partition>/<last>,..."
//   (StreamEndsSummaryKey / FormatStreamEnds): per partition (or shard) the
//   last position of every range the table has committed so far — the
//   previous commit's ends advanced by the batch's ranges, so the newest
//   snapshot alone says everything. Commits that do not know the key carry
//   it over from their parent: floe's maintenance commits (compaction,
//   manifest rewrite: maintenance::kCarriedSummaryPrefix) and every ingest
//   commit (other pipelines' keys). Snapshot expiry never removes the
//   current snapshot, so it never loses the marker.
// - TableStreamEnds reads them back from the newest snapshot of the current
//   ancestry that has the pipeline's key (a commit by another engine on top
//   hides nothing while its parent is kept); a malformed value is an error
//   naming the snapshot.
// - The pipeline raises the ledger's ends to the table's before a stream
//   table's first discovery (pipeline.cc), so a lost ledger resumes after
//   what the table holds: nothing applied twice, nothing skipped.
// Positions are decimal strings compared by ComparePositions. Pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "ingest/stream/stream_lag_report.h"
#include "ingest/units/source_unit.h"

namespace floe::ingest {

// "floe.stream-ends.<pipeline>".
std::string StreamEndsSummaryKey(const std::string& pipeline);

std::string FormatStreamEnds(const StreamEnds& ends);
Result<StreamEnds> ParseStreamEnds(const std::string& text);

// Per partition, `into`'s end raised to `from`'s where that is later; true
// when any end moved.
bool RaiseStreamEnds(const StreamEnds& from, StreamEnds* into);

// `ends` advanced past the stream ranges of `batch`.
void AdvanceStreamEnds(const std::vector<SourceUnit>& batch, StreamEnds* ends);

// See the contract; empty when no snapshot carries the key.
Result<StreamEnds> TableStreamEnds(const iceberg::TableMetadata& table, const std::string& pipeline);

}  // namespace floe::ingest
