// A schema change committed in the same snapshot as data (RowDelta /
// FastAppend SetSchema) and delete files replaced inside one snapshot
// (RowDelta RemoveDeletes), through a real SQLite catalog, checked by reading
// the metadata, the manifests and the rows back with TableScan.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "catalog_test_util.h"
#include "formats/avro/container_reader.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"

namespace floe::iceberg {
namespace {

using floe::testing::CountFiles;
using floe::testing::EventSchema;
using floe::testing::LivePaths;

using Row = std::pair<int64_t, std::optional<std::string>>;  // (id, note)

class CommitWithSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("catalog.db"), dir_.File("warehouse"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
  }

  Table Create(int format_version = 2) {
    catalog::TableCreation creation;
    creation.schema = EventSchema();
    creation.spec = PartitionSpec::Unpartitioned();
    creation.format_version = format_version;
    creation.properties = {{kCommitMinWaitMsProperty, "1"}, {kCommitMaxWaitMsProperty, "5"}};
    auto ops = catalog_->CreateTable(id_, creation);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  Table Open() {
    auto ops = catalog_->LoadTable(id_);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  std::string Data(const std::string& name) { return dir_.File("warehouse") + "/db/events/data/" + name; }

  // A Parquet data file of `schema` with one row per id: "note" (when the schema has it) is
  // "note<id>", every other column except id is null.
  DataFile WriteData(Table& table, const Schema& schema, const std::string& name,
                     const std::vector<int64_t>& ids) {
    RecordBatch batch;
    auto floe_schema = ToFloeSchema(schema);
    EXPECT_OK(floe_schema.status());
    batch.schema = *floe_schema;
    for (const auto& field : batch.schema) {
      Column column = MakeEmptyColumn(field.type);
      for (int64_t id : ids) {
        if (field.name == "id") {
          column.AppendValue<int64_t>(id);
        } else if (field.name == "note") {
          column.AppendBytes("note" + std::to_string(id));
        } else {
          column.AppendNull();
        }
      }
      batch.columns.push_back(std::move(column));
    }
    batch.num_rows = static_cast<int64_t>(ids.size());
    auto writer = DataFileWriter::Open(table.io(), Data(name), schema, {}, {});
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(batch));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // One Puffin file holding a deletion vector per (data file, positions).
  std::vector<DataFile> WriteVectors(Table& table, const std::string& name,
                                     const std::vector<std::pair<DataFile, std::vector<int64_t>>>& vectors) {
    auto writer = DeletionVectorWriter::Open(table.io(), Data(name));
    EXPECT_OK(writer.status());
    for (const auto& [data, positions] : vectors) {
      EXPECT_OK((*writer)->Add(data.file_path, positions, data.partition, data.spec_id));
    }
    auto files = (*writer)->Close();
    EXPECT_OK(files.status());
    return *files;
  }

  DataFile WritePositionDeletes(Table& table, const std::string& name, const DataFile& data,
                                const std::vector<int64_t>& positions) {
    auto writer = PositionDeleteWriter::Open(table.io(), Data(name), {}, {});
    EXPECT_OK(writer.status());
    for (int64_t p : positions) EXPECT_OK((*writer)->Delete(data.file_path, p));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // The current snapshot's live rows, sorted by id; a column "note" is read when the schema has it.
  std::vector<Row> ScanRows(const Table& table) {
    std::vector<Row> rows;
    auto scan = TableScan::Make(table.metadata(), MakeLocalFileIO());
    EXPECT_OK(scan.status());
    if (!scan.ok()) return rows;
    const floe::Schema& out = (*scan)->output_schema();
    std::optional<size_t> id_column, note_column;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].name == "id") id_column = i;
      if (out[i].name == "note") note_column = i;
    }
    EXPECT_TRUE(id_column.has_value());
    if (!id_column) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_OK(tasks.status());
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_OK(reader.status());
      if (!reader.ok()) return rows;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch.status());
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          std::optional<std::string> note;
          if (note_column && b.columns[*note_column].IsValid(r)) {
            note = std::string(b.columns[*note_column].StringAt(r));
          }
          rows.emplace_back(b.columns[*id_column].Value<int64_t>(r), note);
        }
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // The "schema-id" and "schema" key-value metadata of a snapshot's added manifests.
  std::vector<std::pair<std::string, std::string>> AddedManifestSchemas(Table& table, const Snapshot& s) {
    std::vector<std::pair<std::string, std::string>> out;
    auto manifests = ReadManifestList(table.io(), s.manifest_list);
    EXPECT_OK(manifests.status());
    if (!manifests.ok()) return out;
    for (const auto& m : *manifests) {
      if (m.added_snapshot_id != s.snapshot_id) continue;
      auto file = table.io().OpenRead(m.manifest_path);
      EXPECT_OK(file.status());
      if (!file.ok()) continue;
      auto reader = avro::AvroContainerReader::Open(std::move(*file));
      EXPECT_OK(reader.status());
      if (!reader.ok()) continue;
      out.emplace_back((*reader)->Metadata("schema-id").value_or(""),
                       (*reader)->Metadata("schema").value_or(""));
    }
    return out;
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  catalog::TableIdentifier id_{{"db"}, "events"};
};

Result<Schema> WithNote(Table& table) {
  return table.NewUpdateSchema().AddColumn("note", PrimitiveType(TypeKind::kString)).Apply(table.metadata());
}

TEST_F(CommitWithSchemaTest, RowDeltaCommitsDataAndNewColumnInOneSnapshot) {
  Table table = Create();
  const Schema old_schema = *table.metadata().CurrentSchema();
  ASSERT_OK(
      table.NewFastAppend().AppendFile(WriteData(table, old_schema, "a.parquet", {1, 2})).Commit().status());

  ASSERT_OK_AND_ASSIGN(Schema evolved, WithNote(table));
  const DataFile b = WriteData(table, evolved, "b.parquet", {3, 4});
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       table.NewRowDelta().AddRows(b).SetSchema(evolved).Set("floe.batch-id", "2").Commit());

  Table reloaded = Open();
  for (Table* t : {&table, &reloaded}) {
    const TableMetadata& m = t->metadata();
    EXPECT_EQ(m.schemas.size(), 2u);
    EXPECT_EQ(m.current_schema_id, 1);
    EXPECT_EQ(m.last_column_id, 5);
    ASSERT_NE(m.CurrentSchema(), nullptr);
    EXPECT_EQ(m.CurrentSchema()->fields, evolved.fields);
    EXPECT_EQ(m.snapshots.size(), 2u);  // the schema change made no snapshot of its own
    EXPECT_EQ(m.current_snapshot_id, s.snapshot_id);
    ASSERT_NE(m.CurrentSnapshot(), nullptr);
    EXPECT_EQ(m.CurrentSnapshot()->schema_id, 1);
  }
  EXPECT_EQ(s.schema_id, 1);
  EXPECT_EQ(s.summary.at("operation"), "append");
  EXPECT_EQ(s.summary.at("floe.batch-id"), "2");

  auto schemas = AddedManifestSchemas(table, s);
  ASSERT_EQ(schemas.size(), 1u);
  EXPECT_EQ(schemas[0].first, "1");
  EXPECT_NE(schemas[0].second.find("\"note\""), std::string::npos) << schemas[0].second;

  EXPECT_EQ(ScanRows(reloaded),
            (std::vector<Row>{{1, std::nullopt}, {2, std::nullopt}, {3, "note3"}, {4, "note4"}}));
}

TEST_F(CommitWithSchemaTest, FastAppendCommitsDataAndNewColumnInOneSnapshot) {
  Table table = Create();
  ASSERT_OK_AND_ASSIGN(Schema evolved, WithNote(table));
  const DataFile a = WriteData(table, evolved, "a.parquet", {7});
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewFastAppend().AppendFile(a).SetSchema(evolved).Commit());
  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata().current_schema_id, 1);
  EXPECT_EQ(reloaded.metadata().last_column_id, 5);
  EXPECT_EQ(s.schema_id, 1);
  EXPECT_EQ(reloaded.metadata().snapshots.size(), 1u);
  EXPECT_EQ(ScanRows(reloaded), (std::vector<Row>{{7, "note7"}}));
}

TEST_F(CommitWithSchemaTest, UnchangedSchemaChangesNothing) {
  Table table = Create();
  Schema same = *table.metadata().CurrentSchema();
  same.schema_id = 42;  // ignored: only fields and identifier fields count
  const DataFile a = WriteData(table, same, "a.parquet", {1});
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewRowDelta().AddRows(a).SetSchema(same).Commit());
  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata().schemas.size(), 1u);
  EXPECT_EQ(reloaded.metadata().current_schema_id, 0);
  EXPECT_EQ(s.schema_id, 0);
  EXPECT_EQ(reloaded.metadata().CurrentSnapshot()->schema_id, 0);
}

TEST_F(CommitWithSchemaTest, EvolvingBackToAnEarlierSchemaReusesItsId) {
  Table table = Create();
  const Schema original = *table.metadata().CurrentSchema();
  ASSERT_OK(table.NewUpdateSchema().AddColumn("note", PrimitiveType(TypeKind::kString)).Commit().status());
  ASSERT_EQ(table.metadata().current_schema_id, 1);
  // Dropping "note" again gives schema 0's fields: the builder reuses id 0 and the snapshot must say so.
  const DataFile a = WriteData(table, original, "a.parquet", {1});
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewRowDelta().AddRows(a).SetSchema(original).Commit());
  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata().schemas.size(), 2u);
  EXPECT_EQ(reloaded.metadata().current_schema_id, 0);
  EXPECT_EQ(reloaded.metadata().last_column_id, 5);
  EXPECT_EQ(s.schema_id, 0);
  EXPECT_EQ(reloaded.metadata().CurrentSnapshot()->schema_id, 0);
  auto schemas = AddedManifestSchemas(table, s);
  ASSERT_EQ(schemas.size(), 1u);
  EXPECT_EQ(schemas[0].first, "0");
}

TEST_F(CommitWithSchemaTest, ConcurrentSchemaChangeFailsAndCommitsNothing) {
  Table first = Create();
  Table second = Open();
  ASSERT_OK_AND_ASSIGN(Schema evolved, WithNote(second));
  const DataFile b = WriteData(second, evolved, "b.parquet", {3});
  RowDelta delta = second.NewRowDelta();
  delta.AddRows(b).SetSchema(evolved);

  // Another writer adds a different column (it gets id 5 too) before `second` commits.
  ASSERT_OK(first.NewUpdateSchema().AddColumn("other", PrimitiveType(TypeKind::kInt)).Commit().status());
  const size_t avro_before = CountFiles(dir_.File("warehouse"), ".avro");

  auto result = delta.Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(result.status().ToString().find("schema changed concurrently"), std::string::npos)
      << result.status().ToString();

  Table reloaded = Open();
  EXPECT_TRUE(reloaded.metadata().snapshots.empty());
  EXPECT_EQ(reloaded.metadata().current_schema_id, 1);
  EXPECT_NE(reloaded.metadata().CurrentSchema()->FindFieldByName("other"), nullptr);
  EXPECT_EQ(reloaded.metadata().CurrentSchema()->FindFieldByName("note"), nullptr);
  EXPECT_EQ(CountFiles(dir_.File("warehouse"), ".avro"), avro_before);  // its manifests were deleted
}

TEST_F(CommitWithSchemaTest, ConcurrentDataCommitIsRetriedOnTop) {
  Table first = Create();
  Table second = Open();
  ASSERT_OK_AND_ASSIGN(Schema evolved, WithNote(second));
  const DataFile b = WriteData(second, evolved, "b.parquet", {3});
  RowDelta delta = second.NewRowDelta();
  delta.AddRows(b).SetSchema(evolved);

  const Schema old_schema = *first.metadata().CurrentSchema();
  ASSERT_OK_AND_ASSIGN(
      Snapshot concurrent,
      first.NewFastAppend().AppendFile(WriteData(first, old_schema, "a.parquet", {1})).Commit());

  ASSERT_OK_AND_ASSIGN(Snapshot s, delta.Commit());
  EXPECT_EQ(s.parent_snapshot_id, concurrent.snapshot_id);
  EXPECT_EQ(s.sequence_number, 2);
  EXPECT_EQ(s.schema_id, 1);
  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata().current_schema_id, 1);
  EXPECT_EQ(reloaded.metadata().snapshots.size(), 2u);
  EXPECT_EQ(LivePaths(reloaded, s), (std::vector<std::string>{Data("a.parquet"), Data("b.parquet")}));
  EXPECT_EQ(ScanRows(reloaded), (std::vector<Row>{{1, std::nullopt}, {3, "note3"}}));
}

TEST_F(CommitWithSchemaTest, RemoveDeletesReplacesADeletionVector) {
  Table table = Create(3);
  const Schema schema = *table.metadata().CurrentSchema();
  const DataFile a = WriteData(table, schema, "a.parquet", {0, 1, 2, 3, 4, 5});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit().status());
  const std::vector<DataFile> dv1 = WriteVectors(table, "dv1.puffin", {{a, {1}}});
  ASSERT_EQ(dv1.size(), 1u);
  ASSERT_OK(table.NewRowDelta().AddDeletes(dv1[0]).Commit().status());
  EXPECT_EQ(ScanRows(table).size(), 5u);

  // The merged vector holds the old position and a new one; the old vector goes in the same snapshot.
  const std::vector<DataFile> dv2 = WriteVectors(table, "dv2.puffin", {{a, {1, 3}}});
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       table.NewRowDelta().RemoveDeletes(dv1[0].file_path).AddDeletes(dv2[0]).Commit());
  EXPECT_EQ(s.summary.at("operation"), "delete");
  EXPECT_EQ(s.summary.at("removed-delete-files"), "1");
  EXPECT_EQ(s.summary.at("added-dvs"), "1");
  EXPECT_EQ(s.summary.at("total-delete-files"), "1");
  EXPECT_EQ(s.summary.at("total-position-deletes"), "2");

  Table reloaded = Open();
  EXPECT_EQ(LivePaths(reloaded, s), (std::vector<std::string>{Data("a.parquet"), Data("dv2.puffin")}));
  EXPECT_EQ(ScanRows(reloaded),
            (std::vector<Row>{{0, std::nullopt}, {2, std::nullopt}, {4, std::nullopt}, {5, std::nullopt}}));
}

TEST_F(CommitWithSchemaTest, RemoveDeletesWithNewDataIsAnOverwrite) {
  Table table = Create(2);
  const Schema schema = *table.metadata().CurrentSchema();
  const DataFile a = WriteData(table, schema, "a.parquet", {0, 1, 2});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit().status());
  const DataFile d1 = WritePositionDeletes(table, "d1.parquet", a, {0});
  ASSERT_OK(table.NewRowDelta().AddDeletes(d1).Commit().status());

  const DataFile b = WriteData(table, schema, "b.parquet", {10});
  const DataFile d2 = WritePositionDeletes(table, "d2.parquet", a, {0, 2});
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewRowDelta().AddRows(b).AddDeletes(d2).RemoveDeletes(d1).Commit());
  EXPECT_EQ(s.summary.at("operation"), "overwrite");
  EXPECT_EQ(s.summary.at("removed-position-deletes"), "1");
  EXPECT_EQ(ScanRows(Open()), (std::vector<Row>{{1, std::nullopt}, {10, std::nullopt}}));
}

TEST_F(CommitWithSchemaTest, RemoveDeletesOfAFileThatIsNotLiveFails) {
  Table table = Create(3);
  const Schema schema = *table.metadata().CurrentSchema();
  const DataFile a = WriteData(table, schema, "a.parquet", {0, 1});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit().status());
  const std::vector<DataFile> dv1 = WriteVectors(table, "dv1.puffin", {{a, {0}}});
  const std::vector<DataFile> dv2 = WriteVectors(table, "dv2.puffin", {{a, {0, 1}}});

  // Never committed.
  auto never = table.NewRowDelta().RemoveDeletes(dv1[0].file_path).AddDeletes(dv2[0]).Commit();
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.status().kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(never.status().ToString().find("delete file " + dv1[0].file_path + " is not live"),
            std::string::npos)
      << never.status().ToString();

  // A data file is not a delete file.
  auto data = table.NewRowDelta().RemoveDeletes(a.file_path).AddDeletes(dv2[0]).Commit();
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().ToString().find("is not live"), std::string::npos) << data.status().ToString();
  auto data_file = table.NewRowDelta().RemoveDeletes(a).AddDeletes(dv2[0]).Commit();
  ASSERT_FALSE(data_file.ok());
  EXPECT_EQ(data_file.status().kind(), ErrorKind::kInvalidArgument);

  // Already replaced by a concurrent commit: removing it again is a validation failure, nothing is committed.
  ASSERT_OK(table.NewRowDelta().AddDeletes(dv1[0]).Commit().status());
  Table stale = Open();
  const std::vector<DataFile> dv3 = WriteVectors(table, "dv3.puffin", {{a, {0, 1}}});
  ASSERT_OK(table.NewRowDelta().RemoveDeletes(dv1[0]).AddDeletes(dv2[0]).Commit().status());
  auto again = stale.NewRowDelta().RemoveDeletes(dv1[0]).AddDeletes(dv3[0]).Commit();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().kind(), ErrorKind::kCommitFailed);
  Table reloaded = Open();
  EXPECT_EQ(LivePaths(reloaded, *reloaded.metadata().CurrentSnapshot()),
            (std::vector<std::string>{Data("a.parquet"), Data("dv2.puffin")}));
  EXPECT_EQ(ScanRows(reloaded).size(), 0u);
}

TEST_F(CommitWithSchemaTest, OneVectorOfAMultiVectorPuffinFileIsRemovedByOffset) {
  Table table = Create(3);
  const Schema schema = *table.metadata().CurrentSchema();
  const DataFile a = WriteData(table, schema, "a.parquet", {0, 1, 2});
  const DataFile b = WriteData(table, schema, "b.parquet", {10, 11, 12});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).AppendFile(b).Commit().status());
  const std::vector<DataFile> both = WriteVectors(table, "both.puffin", {{a, {0}}, {b, {0}}});
  ASSERT_EQ(both.size(), 2u);
  ASSERT_OK(table.NewRowDelta().AddDeletes(both[0]).AddDeletes(both[1]).Commit().status());

  // Removing by path would drop b's vector too and bring row 10 back: refused.
  const std::vector<DataFile> merged_a = WriteVectors(table, "a2.puffin", {{a, {0, 1}}});
  auto by_path = table.NewRowDelta().RemoveDeletes(both[0].file_path).AddDeletes(merged_a[0]).Commit();
  ASSERT_FALSE(by_path.ok());
  EXPECT_EQ(by_path.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(by_path.status().ToString().find("holds 2 live deletion vectors"), std::string::npos);

  const DataFile& a_vector = both[0].referenced_data_file == a.file_path ? both[0] : both[1];
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       table.NewRowDelta().RemoveDeletes(a_vector).AddDeletes(merged_a[0]).Commit());
  EXPECT_EQ(s.summary.at("removed-delete-files"), "1");
  EXPECT_EQ(ScanRows(Open()), (std::vector<Row>{{2, std::nullopt}, {11, std::nullopt}, {12, std::nullopt}}));
}

TEST_F(CommitWithSchemaTest, FormatV3RefusesASecondVectorForADataFile) {
  Table table = Create(3);
  const Schema schema = *table.metadata().CurrentSchema();
  const DataFile a = WriteData(table, schema, "a.parquet", {0, 1, 2});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit().status());
  const std::vector<DataFile> dv1 = WriteVectors(table, "dv1.puffin", {{a, {0}}});
  ASSERT_OK(table.NewRowDelta().AddDeletes(dv1[0]).Commit().status());

  const std::vector<DataFile> dv2 = WriteVectors(table, "dv2.puffin", {{a, {1}}});
  auto without_removal = table.NewRowDelta().AddDeletes(dv2[0]).Commit();
  ASSERT_FALSE(without_removal.ok());
  EXPECT_EQ(without_removal.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(without_removal.status().ToString().find("already has deletion vector " + dv1[0].file_path),
            std::string::npos)
      << without_removal.status().ToString();

  const std::vector<DataFile> dv3 = WriteVectors(table, "dv3.puffin", {{a, {0, 1}}});
  auto two_added = table.NewRowDelta().RemoveDeletes(dv1[0]).AddDeletes(dv2[0]).AddDeletes(dv3[0]).Commit();
  ASSERT_FALSE(two_added.ok());
  EXPECT_EQ(two_added.status().kind(), ErrorKind::kInvalidArgument);

  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata().snapshots.size(), 2u);
  EXPECT_EQ(ScanRows(reloaded), (std::vector<Row>{{1, std::nullopt}, {2, std::nullopt}}));
}

}  // namespace
}  // namespace floe::iceberg
