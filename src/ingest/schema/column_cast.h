// Value conversion of one source column into a table column type, used by
// ConformBatch after Reconcile has accepted the pair.
//
// Contract: CastColumn returns a column of exactly `target` with the source's
// length and validity. Integers widen (signed and unsigned 8/16/32-bit into
// int32/int64 as the target needs), uint64 becomes decimal(20,0), float16 and
// float32 widen, decimals are retagged (same scale, values already 16-byte
// unscaled), times and timestamps convert unit (coarser -> finer multiplies,
// an overflow is OutOfRange naming the value index; finer -> coarser rounds
// toward negative infinity), strings/binary/fixed/uuid/date/bool copy.
// Structs match members by name (name_match.h): target members the source
// lacks are null; a source member the target lacks is an error. Lists and maps
// convert their children. Any other pair is InvalidArgument naming the column
// and both types. Errors name the column by `name`; callers add the file.
#pragma once

#include <string>

#include "columnar/column.h"
#include "common/status.h"

namespace floe::ingest::internal {

Result<Column> CastColumn(const Column& source, const DataType& target, const std::string& name);

// A column of `length` nulls of `type` (struct members null too, lists empty).
Column MakeNullColumn(const DataType& type, int64_t length);

// Checks that no value of a non-nullable field (at any depth, where its
// parent is present) is null; the error names the column and value index.
Status CheckRequiredValues(const Column& column, const Field& field, const std::string& name);

}  // namespace floe::ingest::internal
