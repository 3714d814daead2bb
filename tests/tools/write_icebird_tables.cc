// Writes Iceberg tables with real Parquet data files through floe's writers
// and Table API, for the icebird interop test (tests/interop/
// iceberg_icebird.test.mjs), and checks them with floe's own scan.
//
//   write_icebird_tables OUT_DIR
//
// OUT_DIR receives the SQLite catalog (catalog.db) and warehouse
// (warehouse/), and for every table <t> of namespace ns
// <t>.metadata_location (the current metadata file path) and
// <t>.expected.json: {"table": "ns.<t>", "columns": [names], "rows": [[cells]]}
// with the current snapshot's live rows sorted by id. Every cell is a string
// or null: long as decimal digits, string as is, decimal(10,2) as "-12.34",
// timestamp as microseconds since the epoch in decimal digits, boolean as
// "true"/"false". A column added after a file was written reads as null there.
// The tool fails (exit 1) when floe's scan of a table differs from what it
// wrote.
#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "columnar/column.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/schema.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "io/file_io.h"
#include "tool_main.h"

namespace floe::iceberg {
namespace {

using Cell = std::optional<std::string>;
using Row = std::vector<Cell>;

// 2024-03-01T00:00:00Z in microseconds; values stay whole milliseconds so a
// JavaScript Date holds them exactly.
constexpr int64_t kBaseMicros = 1709251200000000;
constexpr int64_t kHourMicros = 3600000000;

std::string Micros(int64_t hours_after_base, int64_t extra_ms = 0) {
  return std::to_string(kBaseMicros + hours_after_base * kHourMicros + extra_ms * 1000);
}

__int128 ParseDecimal(const std::string& text) {
  __int128 unscaled = 0;
  bool negative = false;
  for (char c : text) {
    if (c == '-') negative = true;
    if (c >= '0' && c <= '9') unscaled = unscaled * 10 + (c - '0');
  }
  return negative ? -unscaled : unscaled;
}

std::string RenderDecimal(__int128 unscaled, int32_t scale) {
  const bool negative = unscaled < 0;
  if (negative) unscaled = -unscaled;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(unscaled % 10)));
    unscaled /= 10;
  } while (unscaled != 0);
  while (static_cast<int32_t>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
  if (scale > 0) digits.insert(digits.end() - scale, '.');
  return negative ? "-" + digits : digits;
}

Result<RecordBatch> BuildBatch(const floe::Schema& schema, const std::vector<Row>& rows) {
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(rows.size());
  for (size_t c = 0; c < schema.size(); ++c) {
    Column column = MakeEmptyColumn(schema[c].type);
    for (const Row& row : rows) {
      const Cell& cell = row.at(c);
      if (!cell) {
        column.AppendNull();
        continue;
      }
      switch (schema[c].type.id) {
        case TypeId::kInt64:
        case TypeId::kTimestamp: column.AppendValue<int64_t>(std::stoll(*cell)); break;
        case TypeId::kBool: column.AppendValue<uint8_t>(*cell == "true" ? 1 : 0); break;
        case TypeId::kDecimal: column.AppendValue<__int128>(ParseDecimal(*cell)); break;
        case TypeId::kString: column.AppendBytes(*cell); break;
        default: return Status::Internal("unexpected column type " + schema[c].type.ToString());
      }
    }
    FLOE_RETURN_IF_ERROR(tools::Check(column.Validate().empty(), "column " + schema[c].name + " is valid"));
    batch.columns.push_back(std::move(column));
  }
  return batch;
}

std::vector<Row> RenderBatch(const RecordBatch& batch) {
  std::vector<Row> rows(static_cast<size_t>(batch.num_rows));
  for (const Column& column : batch.columns) {
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      Cell cell;
      if (column.IsValid(i)) {
        switch (column.type.id) {
          case TypeId::kInt64:
          case TypeId::kTimestamp: cell = std::to_string(column.Value<int64_t>(i)); break;
          case TypeId::kBool: cell = column.Value<uint8_t>(i) != 0 ? "true" : "false"; break;
          case TypeId::kDecimal: cell = RenderDecimal(column.Value<__int128>(i), column.type.scale); break;
          case TypeId::kString: cell = std::string(column.StringAt(i)); break;
          default: cell = "<unexpected type " + column.type.ToString() + ">";
        }
      }
      rows[static_cast<size_t>(i)].push_back(std::move(cell));
    }
  }
  return rows;
}

// Rows sorted by the id column (column 0).
std::vector<Row> SortedById(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return std::stoll(*a.at(0)) < std::stoll(*b.at(0)); });
  return rows;
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class IcebirdTables {
 public:
  explicit IcebirdTables(std::string out) : out_(std::move(out)), io_(MakeLocalFileIO()) {}

  Status Open() {
    FLOE_ASSIGN_OR_RETURN(
        catalog_, catalog::OpenSqlCatalog("sqlite://" + out_ + "/catalog.db", out_ + "/warehouse", io_));
    return catalog_->CreateNamespace({"ns"}, {});
  }

  Result<Table> Create(const std::string& name, const Schema& schema,
                       PartitionSpec spec = PartitionSpec::Unpartitioned()) {
    catalog::TableCreation creation;
    creation.schema = schema;
    creation.spec = std::move(spec);
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog_->CreateTable({{"ns"}, name}, creation));
    return Table::Load(ops);
  }

  // One Parquet data file of `rows` under the table's data directory.
  Result<DataFile> WriteDataFile(Table& table, const std::string& file_name, const std::vector<Row>& rows) {
    const Schema& schema = *table.metadata().CurrentSchema();
    FLOE_ASSIGN_OR_RETURN(floe::Schema floe_schema, ToFloeSchema(schema));
    FLOE_ASSIGN_OR_RETURN(
        auto writer, DataFileWriter::Open(*io_, table.metadata().location + "/data/" + file_name, schema, {},
                                          DataFileWriterOptions{}));
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, BuildBatch(floe_schema, rows));
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
    return writer->Close();
  }

  // Scans the current snapshot with floe, checks the rows against
  // `expected` and writes the table's output files.
  Status Finish(Table& table, const std::string& name, const std::vector<Row>& expected) {
    FLOE_ASSIGN_OR_RETURN(auto scan, TableScan::Make(table.metadata(), io_));
    FLOE_ASSIGN_OR_RETURN(auto tasks, scan->PlanFiles());
    std::vector<Row> scanned;
    for (const auto& task : tasks) {
      FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(task));
      while (true) {
        FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
        if (!batch) break;
        for (Row& row : RenderBatch(*batch)) scanned.push_back(std::move(row));
      }
    }
    const std::vector<Row> want = SortedById(expected);
    FLOE_RETURN_IF_ERROR(
        tools::Check(SortedById(scanned) == want, "floe's scan of ns." + name + " returns the rows written"));

    std::string json = "{\"table\": \"ns." + name + "\", \"columns\": [";
    const Schema& schema = *table.metadata().CurrentSchema();
    for (size_t i = 0; i < schema.fields.size(); ++i)
      json += (i ? ", " : "") + JsonString(schema.fields[i].name);
    json += "],\n \"rows\": [";
    for (size_t r = 0; r < want.size(); ++r) {
      json += r ? ",\n  [" : "\n  [";
      for (size_t c = 0; c < want[r].size(); ++c)
        json += (c ? ", " : "") + (want[r][c] ? JsonString(*want[r][c]) : std::string("null"));
      json += "]";
    }
    json += "]}\n";
    std::ofstream(out_ + "/" + name + ".expected.json") << json;
    std::ofstream(out_ + "/" + name + ".metadata_location") << table.metadata_location();
    return Status::OK();
  }

  Status Appends();
  Status Deletes();
  Status Evolved();
  Status Partitioned();

 private:
  std::string out_;
  std::shared_ptr<FileIO> io_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

Schema CommonSchema() {
  Schema s;
  s.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
  s.fields.push_back(MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)));
  s.fields.push_back(MakeNestedField(3, "amount", DecimalType(10, 2)));
  s.fields.push_back(MakeNestedField(4, "ts", PrimitiveType(TypeKind::kTimestamp)));
  s.fields.push_back(MakeNestedField(5, "flag", PrimitiveType(TypeKind::kBoolean)));
  return s;
}

Row CommonRow(int64_t id) {
  Cell name = id % 4 == 3 ? Cell() : Cell("name-" + std::to_string(id));
  Cell amount = id % 5 == 4 ? Cell() : Cell(RenderDecimal((id % 2 ? -1 : 1) * (id * 1234 + 5), 2));
  Cell flag = id % 3 == 2 ? Cell() : Cell(id % 2 ? "true" : "false");
  return {std::to_string(id), name, amount, Micros(id * 7, id * 3), flag};
}

Status IcebirdTables::Appends() {
  FLOE_ASSIGN_OR_RETURN(Table table, Create("appends", CommonSchema()));
  std::vector<Row> all;
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<Row> rows;
    for (int64_t id = batch * 4 + 1; id <= batch * 4 + 4; ++id) rows.push_back(CommonRow(id));
    FLOE_ASSIGN_OR_RETURN(DataFile file,
                          WriteDataFile(table, "append-" + std::to_string(batch) + ".parquet", rows));
    FLOE_RETURN_IF_ERROR(table.NewFastAppend().AppendFile(file).Commit().status());
    all.insert(all.end(), rows.begin(), rows.end());
  }
  FLOE_RETURN_IF_ERROR(tools::Check(table.metadata().snapshots.size() == 3u, "appends has 3 snapshots"));
  return Finish(table, "appends", all);
}

Status IcebirdTables::Deletes() {
  FLOE_ASSIGN_OR_RETURN(Table table, Create("deletes", CommonSchema()));
  std::vector<Row> first;
  for (int64_t id = 1; id <= 10; ++id) first.push_back(CommonRow(id));
  FLOE_ASSIGN_OR_RETURN(DataFile data, WriteDataFile(table, "first.parquet", first));
  FLOE_RETURN_IF_ERROR(table.NewFastAppend().AppendFile(data).Commit().status());

  FLOE_ASSIGN_OR_RETURN(
      auto deletes, PositionDeleteWriter::Open(*io_, table.metadata().location + "/data/deletes.parquet", {},
                                               DataFileWriterOptions{}));
  FLOE_RETURN_IF_ERROR(deletes->Delete(data.file_path, 2));
  FLOE_RETURN_IF_ERROR(deletes->Delete(data.file_path, 5));
  FLOE_ASSIGN_OR_RETURN(DataFile delete_file, deletes->Close());
  const std::vector<Row> added = {CommonRow(11), CommonRow(12)};
  FLOE_ASSIGN_OR_RETURN(DataFile second, WriteDataFile(table, "second.parquet", added));
  FLOE_RETURN_IF_ERROR(table.NewRowDelta().AddRows(second).AddDeletes(delete_file).Commit().status());

  std::vector<Row> expected;
  for (size_t i = 0; i < first.size(); ++i)
    if (i != 2 && i != 5) expected.push_back(first[i]);
  expected.insert(expected.end(), added.begin(), added.end());
  return Finish(table, "deletes", expected);
}

Status IcebirdTables::Evolved() {
  FLOE_ASSIGN_OR_RETURN(Table table, Create("evolved", CommonSchema()));
  std::vector<Row> before = {CommonRow(1), CommonRow(2), CommonRow(3)};
  FLOE_ASSIGN_OR_RETURN(DataFile file, WriteDataFile(table, "before.parquet", before));
  FLOE_RETURN_IF_ERROR(table.NewFastAppend().AppendFile(file).Commit().status());
  FLOE_RETURN_IF_ERROR(
      table.NewUpdateSchema().AddColumn("note", PrimitiveType(TypeKind::kString)).Commit().status());
  std::vector<Row> after;
  for (int64_t id = 4; id <= 6; ++id) {
    Row row = CommonRow(id);
    row.push_back(id == 5 ? Cell() : Cell("note " + std::to_string(id)));
    after.push_back(row);
  }
  FLOE_ASSIGN_OR_RETURN(DataFile later, WriteDataFile(table, "after.parquet", after));
  FLOE_RETURN_IF_ERROR(table.NewFastAppend().AppendFile(later).Commit().status());
  for (Row& row : before) row.push_back(Cell());
  before.insert(before.end(), after.begin(), after.end());
  return Finish(table, "evolved", before);
}

Status IcebirdTables::Partitioned() {
  Schema schema;
  schema.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
  schema.fields.push_back(MakeNestedField(2, "region", PrimitiveType(TypeKind::kString)));
  schema.fields.push_back(MakeNestedField(3, "name", PrimitiveType(TypeKind::kString)));
  schema.fields.push_back(MakeNestedField(4, "ts", PrimitiveType(TypeKind::kTimestamp)));
  PartitionSpec spec = PartitionSpec::Unpartitioned();
  spec.fields.push_back(PartitionField{2, 1000, "region", Transform::Identity()});
  spec.fields.push_back(PartitionField{1, 1001, "id_bucket", Transform::Bucket(4)});
  spec.fields.push_back(PartitionField{3, 1002, "name_trunc", Transform::Truncate(3)});
  spec.fields.push_back(PartitionField{4, 1003, "ts_day", Transform::Day()});
  FLOE_ASSIGN_OR_RETURN(Table table, Create("partitioned", schema, spec));
  FLOE_ASSIGN_OR_RETURN(floe::Schema floe_schema, ToFloeSchema(*table.metadata().CurrentSchema()));
  const char* regions[] = {"eu", "us", "apac"};
  const char* names[] = {"alpha", "alpine", "beta", "be", "gamma"};
  std::vector<Row> all;
  for (int commit = 0; commit < 2; ++commit) {
    std::vector<Row> rows;
    for (int64_t id = commit * 10 + 1; id <= commit * 10 + 10; ++id)
      rows.push_back({std::to_string(id), std::string(regions[id % 3]), std::string(names[id % 5]),
                      Micros(id * 11, id)});
    FLOE_ASSIGN_OR_RETURN(auto writer, PartitionedWriter::Make(
                                           *io_, table.metadata().location, *table.metadata().CurrentSchema(),
                                           *table.metadata().DefaultSpec(), RollingWriterOptions{}));
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, BuildBatch(floe_schema, rows));
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
    FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer->Close());
    FLOE_RETURN_IF_ERROR(tools::Check(files.size() > 3u, "a commit of partitioned writes more than 3 files"));
    FastAppend append = table.NewFastAppend();
    for (const DataFile& f : files) append.AppendFile(f);
    FLOE_RETURN_IF_ERROR(append.Commit().status());
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return Finish(table, "partitioned", all);
}

}  // namespace
}  // namespace floe::iceberg

int main(int argc, char** argv) {
  return floe::tools::ToolMain(argc, argv, [](const std::string& out) -> floe::Status {
    floe::iceberg::IcebirdTables tables(out);
    FLOE_RETURN_IF_ERROR(tables.Open());
    FLOE_RETURN_IF_ERROR(tables.Appends().WithContext("table appends"));
    FLOE_RETURN_IF_ERROR(tables.Deletes().WithContext("table deletes"));
    FLOE_RETURN_IF_ERROR(tables.Evolved().WithContext("table evolved"));
    return tables.Partitioned().WithContext("table partitioned");
  });
}
