// The Glue column list of an Iceberg table, typed the way Apache Iceberg's
// GlueCatalog (IcebergToGlueConverter) types it, so Athena, the Glue console
// and Lake Formation show the same columns whichever engine committed.
//
// Contract: the columns are the current schema's top-level fields in order
// (parameter iceberg.field.current = "true"), then the top-level fields of
// the other schemas in metadata order whose names are not yet listed
// ("false"); each carries iceberg.field.id and iceberg.field.optional. Types:
// boolean, int, bigint (long), float, double, date, string (string, uuid,
// time), timestamp (with or without zone), binary (binary, fixed),
// decimal(p,s), struct<name:type,...>, array<type>, map<key,value>, and the
// Iceberg type id in lower case for the rest (timestamp_nano, unknown).
// A column's comment is its field doc, else the comment the existing Glue
// column of that name had. The list is informational: readers take the
// schema from the metadata file. Pure functions: thread-safe.
#pragma once

#include <map>
#include <string>

#include "common/json.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/spec/types.h"

namespace floe::catalog::glue {

// "bigint", "decimal(9,2)", "struct<a:int,b:array<string>>".
std::string GlueTypeString(const iceberg::Type& type);

// The StorageDescriptor "Columns" array. `existing_comments` maps a column
// name to the Comment of the Glue table being replaced (may be empty).
json::Json GlueColumns(const iceberg::TableMetadata& metadata,
                       const std::map<std::string, std::string>& existing_comments);

}  // namespace floe::catalog::glue
