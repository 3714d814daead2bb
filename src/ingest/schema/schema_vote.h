// SchemaVote: the schema a new table gets from a sample of the units of its
// first batch, so that one odd file that sorts first cannot give the table
// its types (a `revenue string` that would send every good file's revenue
// into _rescued_data).
//
// Contract: columns are matched by name ignoring ASCII case and listed in
// the order they are first seen (the first spelling wins). A column's type
// is the one most sample schemas agree on, where types that widen into each
// other (int and long, float and double, decimals of one scale, timestamps
// of one zone kind: ingest/schema/type_compat.h) count together as the
// widest of them; a tie goes to the type seen first. Nested types count
// together only when equal. Every column is nullable. The units whose type
// lost are the ones the reconciliation later rescues or quarantines, each
// named in its message.
#pragma once

#include <vector>

#include "columnar/types.h"

namespace floe::ingest {

floe::Schema VoteNewTableSchema(const std::vector<floe::Schema>& samples, int format_version);

}  // namespace floe::ingest
