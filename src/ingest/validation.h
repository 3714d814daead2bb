// Validation (`floe validate CONFIG`): a dry run of a pipeline over its
// pending units, after Snowflake's COPY INTO ... VALIDATION_MODE.
//
// Contract: ValidatePipeline discovers the source's units as `floe run`
// would (with the ledger's watermarks and stream ends), takes those the
// ledger does not know yet or holds as discovered, and puts each table's
// through the whole path — format, change convention, schema drift against
// the table as it is now, [transform] and [[expectations]] — in the
// batches `floe run` would cut, with TableIngestorOptions::dry_run. It
// writes, creates and commits nothing: the ledger is opened read-only (a
// pipeline that never ran has none: every discovered unit is pending), the
// catalog is opened without creating it (a catalog that does not exist yet
// holds no tables), no state or table directory is created, no key index
// is read. Each part of a batch cut by the memory budget is validated
// against the table as it is now, not as the earlier part would leave it.
// A report says, per table, what the run would count, the problems
// (units set aside, bad rows, rows failing expectations), the first
// `rows` output rows, and whether the run would fail (a unit quarantined,
// a `fail` expectation failing, an expression that does not bind or
// overflows, an incompatible schema under [schema] on_incompatible =
// "fail", a table error of the source).
// Each [[aggregates]] entry (of the table asked for, or every one) is
// checked against its table as it is now, writing nothing: bound to the
// target table's columns when it exists, and, when the aggregate table
// exists, checked as its catch-up checks it (columns, definition:
// AggregateTable::Inspect) and said how far behind it is. An aggregate
// that would not bind or does not match its table makes the report fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/table_ingestor.h"

namespace floe::ingest {

struct ValidateOptions {
  std::optional<std::string> table;  // a source table; unset: every table with pending units
  // > 0: keep (and Format prints) the first `rows` output rows per table
  // (--rows N); 0: Format prints every problem per file (--errors).
  int64_t rows = 0;
};

struct TableValidation {
  std::string source_table;
  std::string target;
  int64_t units = 0;  // pending units read
  BatchCounts counts;
  std::vector<QuarantinedFile> set_aside;  // units the run would quarantine
  std::vector<RowProblem> problems;
  std::vector<RecordBatch> rows;  // the first ValidateOptions::rows output rows
  std::string error;              // the table's batch would fail with this
  bool would_fail() const;
};

struct AggregateValidation {
  std::string name;    // the aggregate table, namespace.name (the config's name when no target)
  std::string source;  // the target table it reads
  std::string state;   // what the next run would do with it
  std::string error;   // the aggregate would not be kept, for this
  bool would_fail() const { return !error.empty(); }
};

struct ValidationReport {
  std::vector<TableValidation> tables;
  std::vector<AggregateValidation> aggregates;
  std::vector<std::string> notes;  // source warnings, a missing ledger or catalog
  bool would_fail() const;
  // Per table: with options.rows, its first rows as JSON lines (columnar
  // json_format.h); otherwise every problem, grouped by file; then its
  // counts and expectation counts, and what would fail. Then per
  // aggregate, its state and what would fail.
  std::string Format(const ValidateOptions& options) const;
};

Result<ValidationReport> ValidatePipeline(const PipelineConfig& config, const ValidateOptions& options);

}  // namespace floe::ingest
