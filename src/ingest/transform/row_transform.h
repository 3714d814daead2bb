// RowTransform: a table's [transform] and [[expectations]] — the row stage
// every source's change rows go through between the change convention and
// the merge (docs/configuration.md has the keys, docs/expressions.md the
// language).
//
// Contract:
// - The stage sees change rows only: the row images of inserts and updates.
//   Deletes, ignored operations and bad rows pass through untouched (a
//   delete carries only its key and ordering value).
// - In order, for each change row:
//   1. `filter`: a row whose predicate is not TRUE (false or null) is
//      filtered. What that means is the caller's: in merge mode the change
//      becomes a delete of its key (the table holds the rows of the source
//      for which the filter is true), in append mode the row is left out.
//   2. `columns`: each derived column is computed from the source row (not
//      from other derived columns); one named like a source column
//      (ignoring ASCII case) redefines it in place, others are appended in
//      the file's order.
//   3. expectations, on the row with its derived columns: a row fails an
//      expectation whose predicate is not TRUE. Each expectation counts the
//      rows it checked and the rows that failed. The row's outcome is the
//      strongest action among those it failed: fail > quarantine > drop >
//      warn (warn keeps it).
//   4. `drop` leaves columns out, `rename` renames them (ignoring case;
//      columns a unit lacks are ignored, since older files may lack them).
// - Bind binds every expression against one unit's row image plus
//   `table_columns`, the table's columns as the source names them
//   (SourceColumns): a column the unit lacks but the table has reads as null
//   (schema drift); one neither has is an error. Bind errors are
//   InvalidArgument naming the table, the key ("[transform] filter",
//   "[transform.columns] usd", "[[expectations]] \"positive\"") and the
//   expression's own message (position, column).
// - Check (pass 1) evaluates the filter and the expectations column at a
//   time over a chunk's candidate rows; Apply (pass 2) turns row images
//   into output rows (derived columns, drop, rename). Evaluation errors
//   (overflow, a failing cast) name the expression, the row and the source
//   file and row from the EvalContext.
// RowTransform and BoundTransform are immutable: Check and Apply are
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "expr/eval_context.h"
#include "expr/expression.h"
#include "ingest/config/config.h"

namespace floe::ingest {

enum class RowOutcome : uint8_t { kKeep, kFiltered, kDropped, kQuarantined, kFailed };

// One expectation's rows of a chunk (passed = checked - failed).
struct ExpectationTally {
  int64_t checked = 0;
  int64_t failed = 0;
};

// A row that failed expectations: its chunk row and the indexes (into the
// table's expectations, ascending) of those it failed.
struct FailedRow {
  int64_t row = 0;
  std::vector<uint32_t> expectations;
};

struct RowChecks {
  std::vector<RowOutcome> outcomes;       // one per chunk row; kKeep for rows not checked
  std::vector<ExpectationTally> tallies;  // one per expectation
  int64_t filtered = 0;
  int64_t dropped = 0;
  int64_t quarantined = 0;
  int64_t failed = 0;  // rows failing a `fail` expectation
  // Rows quarantined or failed (with `list_every_failure`, also dropped and
  // warned ones), ascending.
  std::vector<FailedRow> failed_rows;
};

// The transform bound to one unit's row image.
class BoundTransform {
 public:
  // A filter or expectations to check in pass 1.
  bool checks_rows() const { return filter_.has_value() || !expectations_.empty(); }
  // Columns of the row image Check reads, ascending.
  const std::vector<int>& check_columns() const { return check_columns_; }
  // The schema of Apply's rows: what is reconciled with the table.
  const Schema& output_schema() const { return output_schema_; }
  // No derived, dropped or renamed column: Apply returns its input.
  bool identity() const { return identity_; }
  size_t expectation_count() const { return expectations_.size(); }

  // `image`: a chunk of row images (the image schema); only check_columns()
  // need be filled (others may be empty columns). `candidates`: the chunk
  // rows to check, ascending (nullptr: every row). `context`'s
  // first_source_row is the unit row of the chunk's first row.
  Result<RowChecks> Check(RecordBatch image, const std::vector<int64_t>* candidates,
                          const expr::EvalContext& context, bool list_every_failure) const;
  // Row images (every column of the image schema) to output rows. `context`
  // gives each row's source file and row.
  Result<RecordBatch> Apply(RecordBatch image, const expr::EvalContext& context) const;

 private:
  friend class RowTransform;
  struct Derived {
    expr::Expression expression;
    int replaces = -1;  // the image column it redefines, or -1 (appended)
    bool used_by_expectations = false;
  };
  struct Expectation {
    expr::Expression expression;
    ExpectationAction action;
  };
  // Builds the batch an expression of the source schema reads: `image`'s
  // columns plus null columns for the table columns the unit lacks.
  void AddMissingColumns(RecordBatch& batch) const;

  Schema image_schema_;
  Schema source_schema_;  // image + the table columns the unit lacks (read as null)
  // What expectations read: source_schema_ with redefined columns retyped,
  // then the appended derived columns.
  Schema expectation_schema_;
  std::vector<int> used_missing_;  // indexes into source_schema_ past the image that expressions read
  std::optional<expr::Expression> filter_;
  std::vector<Derived> derived_;
  std::vector<Expectation> expectations_;
  std::vector<int> check_columns_;
  // Output: per output column, the image column (>= 0) or derived column (-1 - k) it comes from.
  std::vector<int> output_sources_;
  Schema output_schema_;
  bool identity_ = true;
  // A filter, expectation or derived column they read may fail at run time.
  bool checks_can_error_ = false;
};

class RowTransform {
 public:
  // `table` names the table in errors.
  RowTransform(TransformConfig transform, std::vector<ExpectationConfig> expectations, std::string table);

  bool empty() const { return transform_.empty() && expectations_.empty(); }
  const std::vector<ExpectationConfig>& expectations() const { return expectations_; }

  // Bindings are kept per (image schema, table columns), so the units of a
  // batch that share a schema, and both passes, bind once. Thread-safe.
  Result<std::shared_ptr<const BoundTransform>> Bind(const Schema& image_schema,
                                                     const Schema& table_columns) const;

  // The table's columns (output names) as the source names them: derived
  // columns left out, renames undone.
  Schema SourceColumns(const Schema& table_columns) const;

 private:
  Result<std::shared_ptr<const BoundTransform>> BindAnew(const Schema& image_schema,
                                                         const Schema& table_columns) const;

  TransformConfig transform_;
  std::vector<ExpectationConfig> expectations_;
  std::string table_;
  mutable std::mutex mutex_;  // guards bound_
  mutable std::map<std::string, std::shared_ptr<const BoundTransform>> bound_;
};

}  // namespace floe::ingest
