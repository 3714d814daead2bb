// Printing what a file holds, shared by `floe file ...` and `floe parquet
// ...`: the rows of any ChunkedReader as JSON lines or CSV, and a schema as
// an indented field list.
//
// Contract (PrintRows): `columns` is a comma-separated list of top-level names (empty =
// all; an unknown name is InvalidArgument); `format` is "jsonl" (columnar
// json_format.h rows) or "csv" (a header line, then RFC 4180 rows); at most
// `limit` rows are printed (negative = all). Output is written to `out` in
// pieces of about 1 MiB; rows printed before a read error stay printed and
// the error is returned.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/chunked_reader.h"

namespace floe::cli {

struct RowsOutputOptions {
  std::string columns;
  std::string format = "jsonl";
  int64_t limit = -1;
};

Status PrintRows(formats::ChunkedReader& reader, const RowsOutputOptions& options, std::ostream& out);

// One line per field, "name: type[ not null][ (field_id N)]", nested
// members indented two more spaces under their parent.
void PrintSchemaFields(const std::vector<Field>& fields, int indent, std::ostream& out);

}  // namespace floe::cli
