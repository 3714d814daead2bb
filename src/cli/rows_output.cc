#include "cli/rows_output.h"

#include <sstream>
#include <vector>

#include "columnar/json_format.h"

namespace floe::cli {
namespace {

Result<std::vector<int>> SelectColumns(const Schema& schema, const std::string& list) {
  std::vector<int> selected;
  if (list.empty()) return selected;
  std::stringstream stream(list);
  std::string name;
  while (std::getline(stream, name, ',')) {
    int index = -1;
    for (size_t i = 0; i < schema.size(); ++i) {
      if (schema[i].name == name) index = static_cast<int>(i);
    }
    if (index < 0) return Status::InvalidArgument("no column named '" + name + "'");
    selected.push_back(index);
  }
  return selected;
}

}  // namespace

void PrintSchemaFields(const std::vector<Field>& fields, int indent, std::ostream& out) {
  for (const auto& field : fields) {
    out << std::string(static_cast<size_t>(indent), ' ') << field.name << ": " << field.type.ToString()
        << (field.nullable ? "" : " not null");
    if (field.field_id) out << " (field_id " << *field.field_id << ")";
    out << "\n";
    if (field.type.is_nested()) PrintSchemaFields(field.type.children, indent + 2, out);
  }
}

Status PrintRows(formats::ChunkedReader& reader, const RowsOutputOptions& options, std::ostream& out) {
  if (options.format != "jsonl" && options.format != "csv") {
    return Status::InvalidArgument("unknown format '" + options.format + "' (expected jsonl or csv)");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<int> selected, SelectColumns(reader.schema(), options.columns));
  const bool csv = options.format == "csv";
  std::string text;
  if (csv) {
    Schema header;
    if (selected.empty()) header = reader.schema();
    for (int i : selected) header.push_back(reader.schema()[static_cast<size_t>(i)]);
    AppendCsvHeader(header, &text);
  }
  int64_t remaining = options.limit;
  Status status;
  for (int chunk = 0; chunk < reader.num_chunks() && remaining != 0; ++chunk) {
    auto batch = reader.ReadChunk(chunk, selected);
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    for (int64_t row = 0; row < batch->num_rows && remaining != 0; ++row) {
      if (csv) {
        AppendCsvRow(*batch, row, &text);
      } else {
        AppendJsonRow(*batch, row, &text);
        text.push_back('\n');
      }
      if (remaining > 0) --remaining;
      if (text.size() > (1 << 20)) {
        out << text;
        text.clear();
      }
    }
  }
  out << text;
  out.flush();
  if (!status.ok()) return status;
  if (!out) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

}  // namespace floe::cli
