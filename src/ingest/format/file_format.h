// FileFormat: the format axis of the source model for units that are files —
// how a file's bytes become a formats::ChunkedReader, and which listed names
// are files of the format.
//
// Contract: Open decodes nothing beyond what the format needs to know the
// schema and the chunks (a Parquet footer); errors name the file. A format
// knows nothing about where the bytes come from (local disk, S3) or what the
// rows mean (change conventions come after it). Implementations are
// immutable after construction: Open and IsDataFile are thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "formats/chunked_reader.h"
#include "ingest/config/config.h"
#include "io/file_io.h"

namespace floe::ingest {

class FileFormat {
 public:
  virtual ~FileFormat() = default;
  // The [source] format value ("parquet", ...).
  virtual const char* name() const = 0;
  // `table_columns`: the target table's primitive top-level columns when the
  // unit's rows are the table's rows (see UnitOpener); a format that infers
  // types (JSON, CSV) reads a column of one of these names with its type, so
  // a value that does not fit is rescued alone, with its file and line,
  // instead of the whole column drifting. [source] schema_hints win. Other
  // formats ignore it. `source_table`: the unit's source table, for settings
  // given per table (CSV column_names).
  virtual Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                               const Schema& table_columns,
                                                               const std::string& source_table) const = 0;
  // Whether a listed file (its path or name) holds data of this format: what a
  // prefix discovery picks before include/exclude apply ("*.parquet").
  virtual bool IsDataFile(std::string_view path) const = 0;
};

// The format [source] names; `memory_budget_bytes` ([performance]) bounds
// what one unit's metadata may take.
Result<std::unique_ptr<FileFormat>> MakeFileFormat(const SourceConfig& config, int64_t memory_budget_bytes);

}  // namespace floe::ingest
