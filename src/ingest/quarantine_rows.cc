#include "ingest/quarantine_rows.h"

#include <utility>

#include "ingest/lineage_columns.h"

namespace floe::ingest {

Result<RecordBatch> QuarantineRowsOf(const std::string& uri, QuarantinedRows rows,
                                     const std::vector<ExpectationConfig>& expectations) {
  const int64_t count = static_cast<int64_t>(rows.rows.size());
  if (rows.images.num_rows != count) {
    return Status::Internal("quarantined rows of " + uri + ": " + std::to_string(rows.images.num_rows) +
                            " images for " + std::to_string(count) + " rows");
  }
  RecordBatch out;
  out.num_rows = count;
  const DataType names_type = List(MakeField("element", String(), false));
  out.schema = {MakeField(kQuarantineFailedExpectations, names_type, false),
                MakeField(kLineageSourceFile, String(), false), MakeField(kLineageSourceRow, Int64(), false)};
  Column names = MakeEmptyColumn(names_type);
  Column files = MakeEmptyColumn(String());
  Column source_rows = MakeEmptyColumn(Int64());
  for (const FailedRow& row : rows.rows) {
    for (uint32_t index : row.expectations) {
      if (index < expectations.size()) names.children[0].AppendBytes(expectations[index].name);
    }
    names.AppendListEnd();
    files.AppendBytes(uri);
    source_rows.AppendValue<int64_t>(row.row);
  }
  out.columns = {std::move(names), std::move(files), std::move(source_rows)};
  for (size_t i = 0; i < rows.images.schema.size(); ++i) {
    const std::string& name = rows.images.schema[i].name;
    if (name == kQuarantineFailedExpectations || name == kLineageSourceFile || name == kLineageSourceRow)
      continue;
    Field field = rows.images.schema[i];
    field.nullable = true;  // a later row may lack what this one has
    field.field_id.reset();
    out.schema.push_back(std::move(field));
    out.columns.push_back(std::move(rows.images.columns[i]));
  }
  return out;
}

}  // namespace floe::ingest
