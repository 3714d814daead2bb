#include "ingest/transform/row_transform.h"

#include <algorithm>
#include <utility>

#include "columnar/column_rows.h"
#include "common/strings.h"
#include "ingest/schema/column_cast.h"

namespace floe::ingest {

namespace {

// The column of `schema` named `name` ignoring ASCII case (the exact
// spelling first), or -1.
int FindColumn(const Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    if (EqualsIgnoreAsciiCase(schema[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return EqualsIgnoreAsciiCase(n, name); });
}

// How strongly an action acts on a failing row (0: the row failed nothing).
uint8_t ActionLevel(ExpectationAction action) {
  switch (action) {
    case ExpectationAction::kWarn: return 1;
    case ExpectationAction::kDrop: return 2;
    case ExpectationAction::kQuarantine: return 3;
    case ExpectationAction::kFail: return 4;
  }
  return 1;
}

Result<expr::Expression> BindPredicate(const std::string& text, const Schema& schema,
                                       const std::string& where) {
  auto bound = expr::Expression::Bind(text, schema);
  if (!bound.ok()) return Status::InvalidArgument(where + ": " + bound.status().message());
  if (bound->type().id != TypeId::kBool) {
    return Status::InvalidArgument(where + ": expression \"" + text + "\" is " + bound->type().ToString() +
                                   ", not a predicate (true or false)");
  }
  return bound;
}

// Rows `rows` (ascending) of the columns `filled` of `batch`; other columns
// stay empty. An int32 row list as TrueRows returns it.
Result<RecordBatch> TakeFilled(RecordBatch batch, const std::vector<int>& filled,
                               const std::vector<int64_t>& rows) {
  for (int index : filled) {
    Column& column = batch.columns[static_cast<size_t>(index)];
    FLOE_ASSIGN_OR_RETURN(column, TakeRows(column, rows));
  }
  batch.num_rows = static_cast<int64_t>(rows.size());
  return batch;
}

Column SourceRowsColumn(int64_t first_row, const std::vector<int64_t>& rows) {
  Column column(Int64());
  column.values.resize(rows.size() * sizeof(int64_t));
  auto* values = reinterpret_cast<int64_t*>(column.values.data());
  for (size_t i = 0; i < rows.size(); ++i) values[i] = first_row + rows[i];
  column.length = static_cast<int64_t>(rows.size());
  return column;
}

}  // namespace

void BoundTransform::AddMissingColumns(RecordBatch& batch) const {
  batch.schema = source_schema_;
  batch.columns.resize(source_schema_.size(), Column(Int32()));
  for (size_t i = image_schema_.size(); i < source_schema_.size(); ++i) {
    batch.columns[i] = Column(source_schema_[i].type);
  }
  for (int index : used_missing_) {
    batch.columns[static_cast<size_t>(index)] =
        internal::MakeNullColumn(source_schema_[static_cast<size_t>(index)].type, batch.num_rows);
  }
}

Result<RowChecks> BoundTransform::Check(RecordBatch image, const std::vector<int64_t>* candidates,
                                        const expr::EvalContext& base_context,
                                        bool list_every_failure) const {
  RowChecks checks;
  const int64_t chunk_rows = image.num_rows;
  checks.outcomes.assign(static_cast<size_t>(chunk_rows), RowOutcome::kKeep);
  checks.tallies.assign(expectations_.size(), ExpectationTally{});
  if (!checks_rows()) return checks;
  // `rows`: the chunk row of each batch row (empty while every row is in the batch).
  std::vector<int64_t> rows;
  bool every_row = candidates == nullptr || static_cast<int64_t>(candidates->size()) == chunk_rows;
  if (!every_row) {
    rows = *candidates;
    if (rows.empty()) return checks;
  }
  auto chunk_row = [&](int64_t i) { return every_row ? i : rows[static_cast<size_t>(i)]; };

  RecordBatch batch;
  batch.num_rows = chunk_rows;
  batch.columns.resize(image_schema_.size(), Column(Int32()));
  for (size_t i = 0; i < image_schema_.size(); ++i) batch.columns[i] = Column(image_schema_[i].type);
  for (int index : check_columns_)
    batch.columns[static_cast<size_t>(index)] = std::move(image.columns[static_cast<size_t>(index)]);
  image = RecordBatch{};
  if (!every_row) {
    FLOE_ASSIGN_OR_RETURN(batch, TakeFilled(std::move(batch), check_columns_, rows));
  }
  AddMissingColumns(batch);
  std::vector<int> filled = check_columns_;
  filled.insert(filled.end(), used_missing_.begin(), used_missing_.end());

  expr::EvalContext context = base_context;
  Column source_rows;
  auto point_context_at_rows = [&]() {
    if (every_row) return;
    source_rows = SourceRowsColumn(base_context.first_source_row, rows);
    context.source_row_column = &source_rows;
  };
  point_context_at_rows();

  if (filter_) {
    FLOE_ASSIGN_OR_RETURN(std::vector<int32_t> kept, filter_->TrueRows(batch, context));
    if (static_cast<int64_t>(kept.size()) < batch.num_rows) {
      std::vector<int64_t> kept_rows;  // batch rows
      kept_rows.reserve(kept.size());
      size_t next = 0;
      for (int64_t i = 0; i < batch.num_rows; ++i) {
        if (next < kept.size() && kept[next] == i) {
          kept_rows.push_back(i);
          ++next;
          continue;
        }
        checks.outcomes[static_cast<size_t>(chunk_row(i))] = RowOutcome::kFiltered;
        ++checks.filtered;
      }
      std::vector<int64_t> kept_chunk_rows(kept_rows.size());
      for (size_t k = 0; k < kept_rows.size(); ++k) kept_chunk_rows[k] = chunk_row(kept_rows[k]);
      FLOE_ASSIGN_OR_RETURN(batch, TakeFilled(std::move(batch), filled, kept_rows));
      rows = std::move(kept_chunk_rows);
      every_row = false;
      point_context_at_rows();
    }
  }
  if (expectations_.empty() || batch.num_rows == 0) return checks;

  // The row as expectations see it: derived columns in place.
  std::vector<Column> derived_values(derived_.size());
  for (size_t k = 0; k < derived_.size(); ++k) {
    if (!derived_[k].used_by_expectations) continue;
    FLOE_ASSIGN_OR_RETURN(derived_values[k], derived_[k].expression.Evaluate(batch, context));
  }
  for (size_t k = 0; k < derived_.size(); ++k) {
    const int replaces = derived_[k].replaces;
    Column value = derived_[k].used_by_expectations ? std::move(derived_values[k]) : Column(Int32());
    if (replaces >= 0) {
      if (derived_[k].used_by_expectations) batch.columns[static_cast<size_t>(replaces)] = std::move(value);
    } else {
      batch.columns.push_back(std::move(value));
    }
  }
  batch.schema = expectation_schema_;

  const int64_t n = batch.num_rows;
  std::vector<uint8_t> worst(static_cast<size_t>(n), 0);
  std::vector<std::vector<uint8_t>> passed(expectations_.size());
  for (size_t e = 0; e < expectations_.size(); ++e) {
    FLOE_ASSIGN_OR_RETURN(std::vector<int32_t> true_rows,
                          expectations_[e].expression.TrueRows(batch, context));
    std::vector<uint8_t>& pass = passed[e];
    pass.assign(static_cast<size_t>(n), 0);
    for (int32_t row : true_rows) pass[static_cast<size_t>(row)] = 1;
    checks.tallies[e].checked = n;
    checks.tallies[e].failed = n - static_cast<int64_t>(true_rows.size());
    if (checks.tallies[e].failed == 0) continue;
    const uint8_t level = ActionLevel(expectations_[e].action);
    for (int64_t i = 0; i < n; ++i) {
      if (!pass[static_cast<size_t>(i)] && worst[static_cast<size_t>(i)] < level)
        worst[static_cast<size_t>(i)] = level;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t level = worst[static_cast<size_t>(i)];
    if (level == 0) continue;
    RowOutcome& outcome = checks.outcomes[static_cast<size_t>(chunk_row(i))];
    if (level == 2) {
      outcome = RowOutcome::kDropped;
      ++checks.dropped;
    } else if (level == 3) {
      outcome = RowOutcome::kQuarantined;
      ++checks.quarantined;
    } else if (level == 4) {
      outcome = RowOutcome::kFailed;
      ++checks.failed;
    }
    if (level < 3 && !list_every_failure) continue;
    FailedRow failed{chunk_row(i), {}};
    for (size_t e = 0; e < expectations_.size(); ++e) {
      if (!passed[e][static_cast<size_t>(i)]) failed.expectations.push_back(static_cast<uint32_t>(e));
    }
    checks.failed_rows.push_back(std::move(failed));
  }
  return checks;
}

Result<RecordBatch> BoundTransform::Apply(RecordBatch image, const expr::EvalContext& context) const {
  if (identity_) return image;
  RecordBatch batch = std::move(image);
  AddMissingColumns(batch);
  std::vector<Column> derived_values(derived_.size());
  for (size_t k = 0; k < derived_.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(derived_values[k], derived_[k].expression.Evaluate(batch, context));
  }
  RecordBatch out;
  out.schema = output_schema_;
  out.num_rows = batch.num_rows;
  out.columns.reserve(output_sources_.size());
  for (int source : output_sources_) {
    if (source >= 0) {
      out.columns.push_back(std::move(batch.columns[static_cast<size_t>(source)]));
    } else {
      out.columns.push_back(std::move(derived_values[static_cast<size_t>(-1 - source)]));
    }
  }
  return out;
}

RowTransform::RowTransform(TransformConfig transform, std::vector<ExpectationConfig> expectations,
                           std::string table)
    : transform_(std::move(transform)), expectations_(std::move(expectations)), table_(std::move(table)) {}

Result<std::unique_ptr<BoundTransform>> RowTransform::Bind(const Schema& image_schema,
                                                           const Schema& table_columns) const {
  auto bound = std::make_unique<BoundTransform>();
  BoundTransform& b = *bound;
  b.image_schema_ = image_schema;
  b.source_schema_ = image_schema;
  for (const Field& column : table_columns) {
    if (FindColumn(image_schema, column.name) < 0)
      b.source_schema_.push_back(MakeField(column.name, column.type, true));
  }
  const int image_size = static_cast<int>(image_schema.size());
  const int source_size = static_cast<int>(b.source_schema_.size());
  const std::string where = "table " + table_ + ": ";
  std::vector<int> inputs;  // of the source schema, by filter and derived columns
  if (!transform_.filter.empty()) {
    FLOE_ASSIGN_OR_RETURN(b.filter_,
                          BindPredicate(transform_.filter, b.source_schema_, where + "[transform] filter"));
    inputs.insert(inputs.end(), b.filter_->input_columns().begin(), b.filter_->input_columns().end());
  }
  // Expectations see the row with its derived columns: redefined columns in
  // place, new ones appended.
  b.expectation_schema_ = b.source_schema_;
  std::vector<int> appended_at;  // per derived column: its index in expectation_schema_, or -1
  for (const DerivedColumn& column : transform_.columns) {
    auto expression = expr::Expression::Bind(column.expr, b.source_schema_);
    if (!expression.ok()) {
      return Status::InvalidArgument(where + "[transform.columns] " + column.name + ": " +
                                     expression.status().message());
    }
    const int replaces = FindColumn(image_schema, column.name);
    const Field field = MakeField(column.name, expression->type(), true);
    if (replaces >= 0) {
      b.expectation_schema_[static_cast<size_t>(replaces)] =
          MakeField(image_schema[static_cast<size_t>(replaces)].name, expression->type(), true);
      appended_at.push_back(-1);
    } else {
      appended_at.push_back(static_cast<int>(b.expectation_schema_.size()));
      b.expectation_schema_.push_back(field);
    }
    b.derived_.push_back({std::move(expression).value(), replaces, false});
  }
  std::vector<int> check_inputs = inputs;  // the filter's
  for (const ExpectationConfig& expectation : expectations_) {
    FLOE_ASSIGN_OR_RETURN(expr::Expression expression,
                          BindPredicate(expectation.expr, b.expectation_schema_,
                                        where + "[[expectations]] \"" + expectation.name + "\""));
    for (int input : expression.input_columns()) {
      bool derived = false;
      for (size_t k = 0; k < b.derived_.size(); ++k) {
        if (input == b.derived_[k].replaces || input == appended_at[k]) {
          b.derived_[k].used_by_expectations = true;
          derived = true;
        }
      }
      if (!derived) check_inputs.push_back(input);
    }
    b.expectations_.push_back({std::move(expression), expectation.action});
  }
  for (const BoundTransform::Derived& derived : b.derived_) {
    const auto& reads = derived.expression.input_columns();
    inputs.insert(inputs.end(), reads.begin(), reads.end());
    if (derived.used_by_expectations) check_inputs.insert(check_inputs.end(), reads.begin(), reads.end());
  }
  inputs.insert(inputs.end(), check_inputs.begin(), check_inputs.end());
  auto sorted_unique = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  for (int input : sorted_unique(check_inputs)) {
    if (input < image_size) b.check_columns_.push_back(input);
  }
  for (int input : sorted_unique(inputs)) {
    if (input >= image_size && input < source_size) b.used_missing_.push_back(input);
  }

  // The output row: image columns (redefined ones computed) minus dropped
  // ones, then new derived columns; renamed.
  auto output_name = [&](const std::string& name) {
    for (const auto& [from, to] : transform_.rename) {
      if (EqualsIgnoreAsciiCase(from, name)) return to;
    }
    return name;
  };
  bool changed = !transform_.columns.empty();
  for (int i = 0; i < image_size; ++i) {
    const Field& field = image_schema[static_cast<size_t>(i)];
    if (Contains(transform_.drop, field.name)) {
      changed = true;
      continue;
    }
    int source = i;
    Field out = field;
    for (size_t k = 0; k < b.derived_.size(); ++k) {
      if (b.derived_[k].replaces == i) {
        source = -1 - static_cast<int>(k);
        out = MakeField(field.name, b.derived_[k].expression.type(), true);
      }
    }
    out.name = output_name(field.name);
    changed = changed || out.name != field.name;
    b.output_sources_.push_back(source);
    b.output_schema_.push_back(std::move(out));
  }
  for (size_t k = 0; k < b.derived_.size(); ++k) {
    if (b.derived_[k].replaces >= 0) continue;
    b.output_sources_.push_back(-1 - static_cast<int>(k));
    b.output_schema_.push_back(
        MakeField(output_name(transform_.columns[k].name), b.derived_[k].expression.type(), true));
  }
  for (size_t i = 0; i < b.output_schema_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (EqualsIgnoreAsciiCase(b.output_schema_[i].name, b.output_schema_[j].name)) {
        return Status::InvalidArgument(
            where + "[transform]: the transformed row has two columns named " + b.output_schema_[i].name +
            " (a derived or renamed column meets another column; names are compared "
            "ignoring case)");
      }
    }
  }
  b.identity_ = !changed;
  return bound;
}

Schema RowTransform::SourceColumns(const Schema& table_columns) const {
  Schema columns;
  for (const Field& column : table_columns) {
    bool derived = false;
    for (const DerivedColumn& d : transform_.columns)
      derived = derived || EqualsIgnoreAsciiCase(d.name, column.name);
    if (derived) continue;
    Field source = column;
    for (const auto& [from, to] : transform_.rename) {
      if (EqualsIgnoreAsciiCase(to, column.name)) source.name = from;
    }
    columns.push_back(std::move(source));
  }
  return columns;
}

}  // namespace floe::ingest
