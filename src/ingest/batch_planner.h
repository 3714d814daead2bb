// Batch planning: cuts a table's pending files into the batches the
// pipeline applies one commit at a time.
//
// Contract: PlanBatches keeps the files in the order given (the ledger's
// order_key order) and starts a new batch whenever adding the next file
// would exceed `max_files` files or `max_bytes` bytes; a single file larger
// than `max_bytes` forms a batch of its own, so every file lands in exactly
// one non-empty batch and no file is ever split or reordered. A limit <= 0
// means "no limit" for that dimension. Negative file sizes (never produced
// by a source) count as 0.
//
// SplitAtBudgetCut re-plans a batch the ingestor cut short because its
// change map outgrew the memory budget: the files before `cut`, then the
// rest in parts of as many files as that first part kept (the files of a
// source are alike, so the rest is not scanned and cut again part by part;
// a part still too large is cut again), all without the files in
// `set_aside` (quarantined meanwhile; when every file before the cut was,
// the rest stays whole). Empty parts are dropped, order is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ingest/units/source_unit.h"

namespace floe::ingest {

struct BatchLimits {
  int64_t max_files = 0;
  int64_t max_bytes = 0;
};

std::vector<std::vector<SourceUnit>> PlanBatches(const std::vector<SourceUnit>& files,
                                                 const BatchLimits& limits);

std::vector<std::vector<SourceUnit>> SplitAtBudgetCut(const std::vector<SourceUnit>& batch, size_t cut,
                                                      const std::set<std::string>& set_aside);

}  // namespace floe::ingest
