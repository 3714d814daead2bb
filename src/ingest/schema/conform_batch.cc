// ConformBatch (declared in schema_reconcile.h): source batch -> batch of the
// table schema, with rescued values collected as JSON.
#include <string_view>
#include <utility>

#include "columnar/json_format.h"
#include "ingest/schema/column_cast.h"
#include "ingest/schema/name_match.h"
#include "ingest/schema/schema_reconcile.h"

namespace floe::ingest {

namespace {

using internal::NameMatch;

// The JSON text of `name` as an object key (escaped as json_format.h escapes strings).
std::string JsonKey(const std::string& name) {
  Column text(String());
  text.AppendBytes(name);
  std::string out;
  AppendJsonValue(text, 0, &out);
  return out;
}

// One string per row: {"<column>": <value>, ...} of the non-null rescued values, or null.
// `own` (>= 0) is the file's own _rescued_data column (a text reader's, one
// JSON object per row or null): its members come first in the same object.
Column BuildRescuedColumn(const RecordBatch& source, const std::vector<size_t>& rescued_columns,
                          const DataType& type, int own) {
  std::vector<std::string> keys;
  for (size_t c : rescued_columns) keys.push_back(JsonKey(source.schema[c].name));
  Column out(type);
  std::string row_text;
  for (int64_t row = 0; row < source.num_rows; ++row) {
    row_text.clear();
    if (own >= 0 && !source.columns[static_cast<size_t>(own)].IsNull(row)) {
      const std::string_view text = source.columns[static_cast<size_t>(own)].StringAt(row);
      if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
        row_text.assign(text.data(), text.size() - 1);  // without the closing brace
        if (row_text == "{") row_text.clear();
      } else {
        // Not an object (written by another tool): kept whole under its own name.
        row_text = "{" + JsonKey(std::string(kRescuedDataColumn)) + ":";
        AppendJsonValue(source.columns[static_cast<size_t>(own)], row, &row_text);
      }
    }
    for (size_t k = 0; k < rescued_columns.size(); ++k) {
      const Column& column = source.columns[rescued_columns[k]];
      if (column.IsNull(row)) continue;
      row_text.push_back(row_text.empty() ? '{' : ',');
      row_text += keys[k];
      row_text.push_back(':');
      AppendJsonValue(column, row, &row_text);
    }
    if (row_text.empty()) {
      out.AppendNull();
    } else {
      row_text.push_back('}');
      out.AppendBytes(row_text);
    }
  }
  return out;
}

Status CheckSourceShape(const RecordBatch& source) {
  if (source.columns.size() != source.schema.size()) {
    return Status::InvalidArgument("batch has " + std::to_string(source.columns.size()) + " columns but " +
                                   std::to_string(source.schema.size()) + " schema fields");
  }
  if (source.num_rows < 0) return Status::InvalidArgument("batch has a negative row count");
  for (size_t i = 0; i < source.columns.size(); ++i) {
    const Column& column = source.columns[i];
    if (column.length != source.num_rows) {
      return Status::InvalidArgument("column " + source.schema[i].name + ": " +
                                     std::to_string(column.length) + " values in a batch of " +
                                     std::to_string(source.num_rows) + " rows");
    }
    std::string problem = column.Validate();
    if (!problem.empty()) return Status::InvalidArgument("column " + source.schema[i].name + ": " + problem);
  }
  return Status::OK();
}

// `owned`: null, or `source` itself, whose columns that need no cast may be
// moved out (ConformBatch's rvalue overload).
Result<RecordBatch> Conform(const RecordBatch& source, RecordBatch* owned, const FileMapping& mapping,
                            const iceberg::Schema& target) {
  const std::string& uri = mapping.file_uri;
  auto with_file = [&](const Status& s) { return s.WithContext(uri); };
  if (Status s = CheckSourceShape(source); !s.ok()) return with_file(s);
  auto target_schema = iceberg::ToFloeSchema(target);
  if (!target_schema.ok()) return with_file(target_schema.status().WithContext("table schema"));

  std::vector<std::string_view> target_names;
  for (const Field& f : *target_schema) target_names.emplace_back(f.name);
  std::vector<std::string_view> source_names;
  for (const Field& f : source.schema) source_names.emplace_back(f.name);
  auto matches = internal::MatchNames(target_names, source_names);
  if (!matches.ok()) return with_file(matches.status());

  std::vector<bool> is_rescued(source.schema.size(), false);
  std::vector<size_t> rescued_columns;
  for (const std::string& name : mapping.rescued) {
    size_t found = source.schema.size();
    for (size_t i = 0; i < source.schema.size(); ++i) {
      if (source.schema[i].name == name) found = i;
    }
    if (found == source.schema.size()) {
      return Status::InvalidArgument(uri + ": column " + name +
                                     ": rescued by the mapping but not in the batch");
    }
    if (!is_rescued[found]) rescued_columns.push_back(found);
    is_rescued[found] = true;
  }

  int rescued_target = -1;
  for (size_t t = 0; t < target_schema->size(); ++t) {
    if ((*target_schema)[t].name == kRescuedDataColumn) rescued_target = static_cast<int>(t);
  }
  std::vector<int> source_of(target_schema->size(), -1);
  for (size_t i = 0; i < source.schema.size(); ++i) {
    if (is_rescued[i]) continue;
    const NameMatch& match = (*matches)[i];
    if (!match.matched()) {
      return Status::InvalidArgument(uri + ": column " + source.schema[i].name +
                                     ": not in the table schema (evolve the schema first)");
    }
    if (match.table_index == rescued_target && !rescued_columns.empty() &&
        source.schema[i].type.id != TypeId::kString) {
      return Status::InvalidArgument(uri + ": column " + source.schema[i].name + ": the file's own " +
                                     kRescuedDataColumn + " column is not a string, so it cannot take " +
                                     "rescued values as well");
    }
    source_of[static_cast<size_t>(match.table_index)] = static_cast<int>(i);
  }
  if (!rescued_columns.empty() &&
      (rescued_target < 0 ||
       (*target_schema)[static_cast<size_t>(rescued_target)].type.id != TypeId::kString)) {
    return Status::InvalidArgument(uri + ": the table schema has no string column " +
                                   std::string(kRescuedDataColumn) + " for the rescued columns");
  }

  RecordBatch out;
  out.num_rows = source.num_rows;
  out.schema = std::move(target_schema).value();
  out.columns.reserve(out.schema.size());
  for (size_t t = 0; t < out.schema.size(); ++t) {
    const Field& field = out.schema[t];
    if (static_cast<int>(t) == rescued_target && !rescued_columns.empty()) {
      out.columns.push_back(BuildRescuedColumn(source, rescued_columns, field.type, source_of[t]));
    } else if (source_of[t] < 0) {
      out.columns.push_back(internal::MakeNullColumn(field.type, source.num_rows));
    } else {
      const size_t s = static_cast<size_t>(source_of[t]);
      const Column& column = source.columns[s];
      if (owned != nullptr && !column.type.is_nested() && column.type == field.type) {
        // Already the table's type: CastColumn would copy it as it is.
        out.columns.push_back(std::move(owned->columns[s]));
      } else {
        auto cast = internal::CastColumn(column, field.type, field.name);
        if (!cast.ok()) return with_file(cast.status());
        out.columns.push_back(std::move(cast).value());
      }
    }
    if (Status s = internal::CheckRequiredValues(out.columns.back(), field, field.name); !s.ok()) {
      return with_file(s);
    }
  }
  return out;
}

}  // namespace

Result<RecordBatch> ConformBatch(const RecordBatch& source, const FileMapping& mapping,
                                 const iceberg::Schema& target) {
  return Conform(source, nullptr, mapping, target);
}

Result<RecordBatch> ConformBatch(RecordBatch&& source, const FileMapping& mapping,
                                 const iceberg::Schema& target) {
  return Conform(source, &source, mapping, target);
}

}  // namespace floe::ingest
