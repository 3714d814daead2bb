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
  const bool every_candidate =
      candidates == nullptr || static_cast<int64_t>(candidates->size()) == chunk_rows;
  if (!every_candidate && candidates->empty()) return checks;
  // Expressions that cannot fail run over every row of the chunk in place
  // and only active rows (candidates the filter kept) count; others run over
  // copies of the active rows alone, so neither a delete's values nor a
  // filtered row's raise an error. `rows`: the chunk row of each batch row,
  // empty while they are equal.
  const bool in_place = every_candidate || !checks_can_error_;
  std::vector<int64_t> rows;
  std::vector<uint8_t> active(static_cast<size_t>(chunk_rows), every_candidate ? 1 : 0);
  if (!every_candidate) {
    if (in_place) {
      for (int64_t row : *candidates) active[static_cast<size_t>(row)] = 1;
    } else {
      rows = *candidates;
      active.assign(rows.size(), 1);
    }
  }
  auto chunk_row = [&](int64_t i) { return rows.empty() ? i : rows[static_cast<size_t>(i)]; };

  RecordBatch batch;
  batch.num_rows = chunk_rows;
  batch.columns.resize(image_schema_.size(), Column(Int32()));
  for (size_t i = 0; i < image_schema_.size(); ++i) batch.columns[i] = Column(image_schema_[i].type);
  for (int index : check_columns_) {
    batch.columns[static_cast<size_t>(index)] = std::move(image.columns[static_cast<size_t>(index)]);
  }
  image = RecordBatch{};
  if (!rows.empty()) {
    FLOE_ASSIGN_OR_RETURN(batch, TakeFilled(std::move(batch), check_columns_, rows));
  }
  AddMissingColumns(batch);
  std::vector<int> filled = check_columns_;
  filled.insert(filled.end(), used_missing_.begin(), used_missing_.end());

  expr::EvalContext context = base_context;
  Column source_rows;
  auto point_context_at_rows = [&]() {
    if (rows.empty()) return;
    source_rows = SourceRowsColumn(base_context.first_source_row, rows);
    context.source_row_column = &source_rows;
  };
  point_context_at_rows();
  // Marks the active batch rows outside `kept` (ascending) with `on_row`.
  auto for_each_active_outside = [&](const std::vector<int32_t>& kept, const auto& on_row) {
    size_t next = 0;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      const bool in = next < kept.size() && kept[next] == i;
      if (in) ++next;
      if (!in && active[static_cast<size_t>(i)]) on_row(i);
    }
  };

  if (filter_) {
    FLOE_ASSIGN_OR_RETURN(std::vector<int32_t> kept, filter_->TrueRows(batch, context));
    for_each_active_outside(kept, [&](int64_t i) {
      checks.outcomes[static_cast<size_t>(chunk_row(i))] = RowOutcome::kFiltered;
      active[static_cast<size_t>(i)] = 0;
      ++checks.filtered;
    });
    if (checks_can_error_ && checks.filtered > 0) {
      // Later expressions that may fail must not see the filtered rows.
      std::vector<int64_t> kept_rows(kept.begin(), kept.end());
      std::vector<int64_t> kept_chunk_rows(kept_rows.size());
      for (size_t k = 0; k < kept_rows.size(); ++k) kept_chunk_rows[k] = chunk_row(kept_rows[k]);
      FLOE_ASSIGN_OR_RETURN(batch, TakeFilled(std::move(batch), filled, kept_rows));
      rows = std::move(kept_chunk_rows);
      active.assign(rows.size(), 1);
      point_context_at_rows();
    }
  }
  const int64_t n = batch.num_rows;
  const int64_t checked = std::count(active.begin(), active.end(), uint8_t{1});
  if (expectations_.empty() || checked == 0) return checks;

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

  // Per row the strongest action of the expectations it failed (0: none).
  std::vector<uint8_t> worst(static_cast<size_t>(n), 0);
  std::vector<std::vector<uint8_t>> failed(expectations_.size());
  for (size_t e = 0; e < expectations_.size(); ++e) {
    FLOE_ASSIGN_OR_RETURN(std::vector<int32_t> true_rows,
                          expectations_[e].expression.TrueRows(batch, context));
    const uint8_t level = ActionLevel(expectations_[e].action);
    int64_t failures = 0;
    for_each_active_outside(true_rows, [&](int64_t i) {
      if (failed[e].empty()) failed[e].assign(static_cast<size_t>(n), 0);
      failed[e][static_cast<size_t>(i)] = 1;
      uint8_t& strongest = worst[static_cast<size_t>(i)];
      if (strongest < level) strongest = level;
      ++failures;
    });
    checks.tallies[e].checked = checked;
    checks.tallies[e].failed = failures;
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
    FailedRow row{chunk_row(i), {}};
    for (size_t e = 0; e < expectations_.size(); ++e) {
      if (!failed[e].empty() && failed[e][static_cast<size_t>(i)])
        row.expectations.push_back(static_cast<uint32_t>(e));
    }
    checks.failed_rows.push_back(std::move(row));
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

namespace {

// Names, types and nullability of `fields`, nested ones included: what a binding depends on.
void AppendSchemaKey(const std::vector<Field>& fields, std::string* key) {
  for (const Field& field : fields) {
    *key += field.name;
    *key += '\0';
    *key += field.type.ToString();
    *key += field.nullable ? "?" : "!";
    *key += '(';
    AppendSchemaKey(field.type.children, key);
    *key += ')';
  }
}

}  // namespace

Result<std::shared_ptr<const BoundTransform>> RowTransform::Bind(const Schema& image_schema,
                                                                 const Schema& table_columns) const {
  std::string key;
  AppendSchemaKey(image_schema, &key);
  key += '\1';
  AppendSchemaKey(table_columns, &key);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bound_.find(key);
    if (it != bound_.end()) return it->second;
  }
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const BoundTransform> bound, BindAnew(image_schema, table_columns));
  std::lock_guard<std::mutex> lock(mutex_);
  constexpr size_t kMaxBindings = 64;  // schemas of a table seen lately; more only with constant drift
  if (bound_.size() >= kMaxBindings) bound_.clear();
  bound_.emplace(std::move(key), bound);
  return bound;
}

Result<std::shared_ptr<const BoundTransform>> RowTransform::BindAnew(const Schema& image_schema,
                                                                     const Schema& table_columns) const {
  auto bound = std::make_shared<BoundTransform>();
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
  b.checks_can_error_ = b.filter_ && b.filter_->can_error();
  for (const BoundTransform::Expectation& e : b.expectations_)
    b.checks_can_error_ |= e.expression.can_error();
  for (const BoundTransform::Derived& d : b.derived_) {
    b.checks_can_error_ |= d.used_by_expectations && d.expression.can_error();
  }
  return std::shared_ptr<const BoundTransform>(std::move(bound));
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
