// Writes a small filesystem-catalog warehouse for the CLI interop test
// (tests/interop/iceberg_write.test.mjs):
//
//   write_fixture_tables WAREHOUSE_DIR
//
// Table db.events (identity partition on category, property owner=floe):
// an append of two files (floe.batch-id 1), a row delta adding position
// deletes (floe.batch-id 2), an added column and a day(ts) partition field.
// The data files are manifest entries only: the test inspects metadata.
#include <string>

#include "catalog/filesystem/filesystem_catalog.h"
#include "tool_main.h"
#include "unit/iceberg_catalog/catalog_test_util.h"

namespace floe::iceberg {
namespace {

Status WritePartitionedTableWithHistory(const std::string& out) {
  FLOE_ASSIGN_OR_RETURN(auto catalog, catalog::OpenFilesystemCatalog(out));
  FLOE_RETURN_IF_ERROR(catalog->CreateNamespace({"db"}, {}));
  catalog::TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  creation.spec.fields.push_back(PartitionField{2, 1000, "category", Transform::Identity()});
  creation.properties = {{"owner", "floe"}};
  FLOE_ASSIGN_OR_RETURN(auto ops, catalog->CreateTable({{"db"}, "events"}, creation));
  FLOE_ASSIGN_OR_RETURN(Table table, Table::Load(ops));
  const std::string data = out + "/db/events/data/";
  FLOE_RETURN_IF_ERROR(table.NewFastAppend()
                           .AppendFile(floe::testing::FakeDataFile(data + "category=a/1.parquet", 10, 0,
                                                                   {Literal::String("a")}))
                           .AppendFile(floe::testing::FakeDataFile(data + "category=b/2.parquet", 5, 0,
                                                                   {Literal::String("b")}))
                           .Set("floe.batch-id", "1")
                           .Commit()
                           .status());
  DataFile deletes =
      floe::testing::FakePositionDeletes(data + "category=a/1-del.parquet", data + "category=a/1.parquet", 2);
  deletes.partition = {Literal::String("a")};
  FLOE_RETURN_IF_ERROR(table.NewRowDelta().AddDeletes(deletes).Set("floe.batch-id", "2").Commit().status());
  FLOE_RETURN_IF_ERROR(
      table.NewUpdateSchema().AddColumn("note", PrimitiveType(TypeKind::kString)).Commit().status());
  return table.NewUpdateSpec().AddField("ts", Transform::Day()).Commit().status();
}

}  // namespace
}  // namespace floe::iceberg

int main(int argc, char** argv) {
  return floe::tools::ToolMain(argc, argv, floe::iceberg::WritePartitionedTableWithHistory);
}
