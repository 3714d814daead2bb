// Writes a small filesystem-catalog warehouse into $FLOE_INTEROP_OUT for the
// CLI interop test (tests/interop/iceberg_write.test.mjs); skipped otherwise.
// The data files are manifest entries only: the test inspects metadata.
#include <cstdlib>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog_test_util.h"

namespace floe::iceberg {
namespace {

TEST(WriteFixtureTables, PartitionedTableWithHistory) {
  const char* out = std::getenv("FLOE_INTEROP_OUT");
  if (out == nullptr || *out == '\0')
    GTEST_SKIP() << "skipped: FLOE_INTEROP_OUT is not set (run by the interop test)";
  ASSERT_OK_AND_ASSIGN(auto catalog, catalog::OpenFilesystemCatalog(out));
  ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  catalog::TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  creation.spec.fields.push_back(PartitionField{2, 1000, "category", Transform::Identity()});
  creation.properties = {{"owner", "floe"}};
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"db"}, "events"}, creation));
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(ops));
  const std::string data = std::string(out) + "/db/events/data/";
  ASSERT_OK(table.NewFastAppend()
                .AppendFile(
                    floe::testing::FakeDataFile(data + "category=a/1.parquet", 10, 0, {Literal::String("a")}))
                .AppendFile(
                    floe::testing::FakeDataFile(data + "category=b/2.parquet", 5, 0, {Literal::String("b")}))
                .Set("floe.batch-id", "1")
                .Commit()
                .status());
  DataFile deletes =
      floe::testing::FakePositionDeletes(data + "category=a/1-del.parquet", data + "category=a/1.parquet", 2);
  deletes.partition = {Literal::String("a")};
  ASSERT_OK(table.NewRowDelta().AddDeletes(deletes).Set("floe.batch-id", "2").Commit().status());
  ASSERT_OK(table.NewUpdateSchema().AddColumn("note", PrimitiveType(TypeKind::kString)).Commit().status());
  ASSERT_OK(table.NewUpdateSpec().AddField("ts", Transform::Day()).Commit().status());
}

}  // namespace
}  // namespace floe::iceberg
