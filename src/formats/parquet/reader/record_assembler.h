// Record assembly: rebuilds a top-level floe column (struct/list/map nested
// to any depth, nulls at every level) from the definition/repetition levels
// and dense values of its leaves, following the LevelNode plan of schema.h.
//
// Contract: consumes (moves from) the leaves' values. Inconsistent levels
// between leaves of one field (children of different lengths, list offsets
// not matching their elements) are Corruption, never a malformed Column.
#pragma once

#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/reader/column_chunk_reader.h"
#include "formats/parquet/schema.h"

namespace floe::parquet {

// `leaves[k]` holds leaf number first_leaf + k of the schema.
Result<Column> AssembleField(const Field& field, const LevelNode& node, std::vector<LeafData>* leaves,
                             int first_leaf);

}  // namespace floe::parquet
