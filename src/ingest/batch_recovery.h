// Batch recovery: how a pipeline tells, from a table's history, whether one
// of its batches committed — the table side of exactly-once.
//
// Contract: every ingest commit carries floe.pipeline = <pipeline name> and
// floe.batch-id = <batch id> in its snapshot summary (plus the counts named
// below). FindCommittedBatch walks the current snapshot's ancestry (bounded
// by the snapshot count, so a parent cycle in foreign metadata cannot spin)
// and returns the id of the snapshot that carries the batch, or nullopt —
// also for a table that does not exist (nothing of the batch can have
// committed). Any other catalog error is returned: the caller cannot know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/table/catalog.h"
#include "common/status.h"

namespace floe::ingest {

inline constexpr const char* kSummaryPipeline = "floe.pipeline";
inline constexpr const char* kSummaryBatchId = "floe.batch-id";
inline constexpr const char* kSummarySourceFiles = "floe.source-files";
// Scale-out: the epoch of the table lease the committing worker held
// (worker_leases.h); within a table it never decreases along the history.
inline constexpr const char* kSummaryLeaseEpoch = "floe.lease-epoch";
// Streams: the offset ranges the commit covers, "<topic>/<partition>/<first>-<last>"
// comma-separated (audit: which records a snapshot holds).
inline constexpr const char* kSummaryStreamRanges = "floe.stream-ranges";
inline constexpr const char* kSummaryRowsInserted = "floe.rows-inserted";
inline constexpr const char* kSummaryRowsUpdated = "floe.rows-updated";
inline constexpr const char* kSummaryRowsDeleted = "floe.rows-deleted";
inline constexpr const char* kSummaryRowsStale = "floe.rows-stale";
// Tables with a row stage ([transform], [[expectations]]): change rows the
// filter left out, dropped and quarantined by expectations, and per
// expectation floe.expect.<name>.checked / .passed / .failed.
inline constexpr const char* kSummaryRowsFiltered = "floe.rows-filtered";
inline constexpr const char* kSummaryRowsDropped = "floe.rows-dropped";
inline constexpr const char* kSummaryRowsQuarantined = "floe.rows-quarantined";
inline constexpr const char* kSummaryExpectPrefix = "floe.expect.";

Result<std::optional<int64_t>> FindCommittedBatch(catalog::Catalog& catalog,
                                                  const catalog::TableIdentifier& table,
                                                  const std::string& pipeline, int64_t batch_id);

}  // namespace floe::ingest
