// The bad-rows table of a target table, <table>__bad_rows in the same
// namespace: the source rows ([schema] on_bad_row = "table") that could not
// be changes — a null key or ordering value, an unknown operation code —
// with the file, the row and the reason, so the rest of their file lands.
//
// Contract: AppendBadRows creates the table when missing (columns `file`
// string, `row` long, `reason` string, all required, and `recorded_at`
// timestamptz; unpartitioned, format version 2) and commits the rows as one
// Parquet data file in ONE append snapshot carrying floe.pipeline and
// floe.batch-id = the batch they came from. It is idempotent per batch:
// when a snapshot of the table already carries this pipeline's batch id it
// commits nothing (a crash after that commit and before the ledger forgot
// the rows must not write them twice). The pipeline records a batch's bad
// rows in the ledger before the target table's commit and calls this after
// it (pipeline_bad_rows.cc), so a bad row is never lost nor duplicated.
// Errors name the bad-rows table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "ingest/state/ledger.h"

namespace floe::ingest {

inline constexpr const char* kBadRowsTableSuffix = "__bad_rows";

// <ns>.<name>__bad_rows for the target table <ns>.<name>.
catalog::TableIdentifier BadRowsTableOf(const catalog::TableIdentifier& target);

// Returns the committed snapshot id, or nullopt when the batch was already in the table.
Result<std::optional<int64_t>> AppendBadRows(catalog::Catalog& catalog,
                                             const catalog::TableIdentifier& target,
                                             const std::string& pipeline, int64_t batch_id,
                                             const std::vector<LedgerBadRow>& rows, int64_t now_ms);

}  // namespace floe::ingest
