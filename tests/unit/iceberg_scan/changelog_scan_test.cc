// ChangelogScan over real commits through a SQLite catalog: appends, position
// deletes and deletion vectors (a replaced vector counts only its new
// positions), copy-on-write rewrites (carry-overs vanish), maintenance
// commits, schema evolution, equality deletes refused, ranges checked, a
// pending commit, and the Spark/Java fixtures.
#include "iceberg/scan/changelog_scan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/thread_pool.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "io/prefix_mapping_file_io.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

// (change type, id, name or "-", ordinal); snapshots are checked separately.
using Change = std::tuple<std::string, int64_t, std::string, int64_t>;

Schema KeyedSchema(bool identifier = true) {
  Schema schema;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "name", PrimitiveType(TypeKind::kString))};
  if (identifier) schema.identifier_field_ids = {1};
  return schema;
}

class ChangelogScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("catalog.db"), dir_.File("warehouse"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
  }

  Table Create(Schema schema, int format_version = 2) {
    catalog::TableCreation creation;
    creation.schema = std::move(schema);
    creation.format_version = format_version;
    auto ops = catalog_->CreateTable(id_, creation);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  std::string Data(const std::string& name) { return dir_.File("warehouse") + "/db/events/data/" + name; }

  // One row per (id, name) in the table's current schema; other columns null.
  DataFile Write(Table& table, const std::string& name,
                 const std::vector<std::pair<int64_t, std::string>>& rows,
                 DataFileWriterOptions options = {}) {
    const Schema& schema = *table.metadata().CurrentSchema();
    RecordBatch batch;
    batch.schema = *ToFloeSchema(schema);
    for (const floe::Field& field : batch.schema) {
      Column column = MakeEmptyColumn(field.type);
      for (const auto& [id, text] : rows) {
        if (field.name == "id") {
          column.AppendValue<int64_t>(id);
        } else if (field.name == "name") {
          column.AppendBytes(text);
        } else {
          column.AppendNull();
        }
      }
      batch.columns.push_back(std::move(column));
    }
    batch.num_rows = static_cast<int64_t>(rows.size());
    auto writer = DataFileWriter::Open(table.io(), Data(name), schema, {}, std::move(options));
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(batch));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // Rows (i, "row-i") for i in [0, rows), in row groups of 1000 rows and
  // pages of 100, with or without the page index (offset index).
  DataFile WriteLarge(Table& table, const std::string& name, int64_t rows, bool page_index) {
    std::vector<std::pair<int64_t, std::string>> values;
    for (int64_t i = 0; i < rows; ++i) values.emplace_back(i, "row-" + std::to_string(i));
    DataFileWriterOptions options;
    options.parquet.row_group_max_rows = kLargeRowGroup;
    options.parquet.page_max_rows = kLargePage;
    options.parquet.write_page_index = page_index;
    return Write(table, name, values, std::move(options));
  }
  static constexpr int64_t kLargeRowGroup = 1000;
  static constexpr int64_t kLargePage = 100;

  DataFile PositionDeletes(Table& table, const std::string& name, const DataFile& data,
                           const std::vector<int64_t>& positions) {
    auto writer = PositionDeleteWriter::Open(table.io(), Data(name), {}, {});
    EXPECT_OK(writer.status());
    for (int64_t p : positions) EXPECT_OK((*writer)->Delete(data.file_path, p));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  DataFile Vector(Table& table, const std::string& name, const DataFile& data,
                  const std::vector<int64_t>& positions) {
    auto writer = DeletionVectorWriter::Open(table.io(), Data(name));
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Add(data.file_path, positions, data.partition, data.spec_id));
    auto files = (*writer)->Close();
    EXPECT_OK(files.status());
    return files->front();
  }

  Result<std::vector<Change>> Changes(const TableMetadata& metadata, ChangelogOptions options,
                                      std::vector<int64_t>* snapshots = nullptr) {
    FLOE_ASSIGN_OR_RETURN(auto scan, ChangelogScan::Make(metadata, MakeLocalFileIO(), std::move(options)));
    return Collect(*scan, snapshots);
  }

  static Result<std::vector<Change>> Collect(ChangelogScan& scan, std::vector<int64_t>* snapshots = nullptr) {
    FLOE_ASSIGN_OR_RETURN(auto commits, scan.PlanCommits());
    const floe::Schema& schema = scan.output_schema();
    auto column = [&](const std::string& name) {
      for (size_t i = 0; i < schema.size(); ++i) {
        if (schema[i].name == name) return i;
      }
      ADD_FAILURE() << "no column " << name;
      return size_t{0};
    };
    std::vector<Change> out;
    for (const ChangelogCommit& commit : commits) {
      FLOE_ASSIGN_OR_RETURN(auto reader, scan.Open(commit));
      while (true) {
        FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
        if (!batch) break;
        const RecordBatch& b = *batch;
        EXPECT_EQ(b.schema, schema);
        for (int64_t r = 0; r < b.num_rows; ++r) {
          const Column& name = b.columns[column("name")];
          out.emplace_back(std::string(b.columns[column(kChangeTypeColumn)].StringAt(r)),
                           b.columns[column("id")].Value<int64_t>(r),
                           name.IsNull(r) ? "-" : std::string(name.StringAt(r)),
                           b.columns[column(kChangeOrdinalColumn)].Value<int64_t>(r));
          EXPECT_EQ(b.columns[column(kCommitSnapshotIdColumn)].Value<int64_t>(r), commit.snapshot_id);
          EXPECT_EQ(b.columns[column(kCommitTimestampColumn)].Value<int64_t>(r), commit.timestamp_ms * 1000);
          if (snapshots) snapshots->push_back(commit.snapshot_id);
        }
      }
    }
    return out;
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  catalog::TableIdentifier id_{{"db"}, "events"};
};

TEST_F(ChangelogScanTest, InsertsUpdatesAndDeletesPerCommit) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}, {3, "three"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  // Commit 2: id 2 updated, id 3 deleted, id 4 inserted.
  const DataFile b = Write(table, "b.parquet", {{2, "TWO"}, {4, "four"}});
  ASSERT_OK_AND_ASSIGN(
      Snapshot s2,
      table.NewRowDelta().AddRows(b).AddDeletes(PositionDeletes(table, "d2.parquet", a, {1, 2})).Commit());
  // Commit 3: id 2 updated again (its row lives in b now), id 1 deleted.
  const DataFile c = Write(table, "c.parquet", {{2, "Two"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s3, table.NewRowDelta()
                                        .AddRows(c)
                                        .AddDeletes(PositionDeletes(table, "d3a.parquet", b, {0}))
                                        .AddDeletes(PositionDeletes(table, "d3b.parquet", a, {0}))
                                        .Commit());

  std::vector<int64_t> snapshots;
  ASSERT_OK_AND_ASSIGN(auto all, Changes(table.metadata(), {}, &snapshots));
  const std::vector<Change> expected = {
      {"insert", 1, "one", 0},          {"insert", 2, "two", 1},           {"insert", 3, "three", 2},
      {"update_preimage", 2, "two", 0}, {"update_postimage", 2, "TWO", 0}, {"insert", 4, "four", 1},
      {"delete", 3, "three", 2},        {"update_preimage", 2, "TWO", 0},  {"update_postimage", 2, "Two", 0},
      {"delete", 1, "one", 1},
  };
  EXPECT_EQ(all, expected);
  EXPECT_EQ(snapshots, (std::vector<int64_t>{s1.snapshot_id, s1.snapshot_id, s1.snapshot_id, s2.snapshot_id,
                                             s2.snapshot_id, s2.snapshot_id, s2.snapshot_id, s3.snapshot_id,
                                             s3.snapshot_id, s3.snapshot_id}));

  // (s1, s2]: only the second commit; (s2, s2]: nothing.
  ASSERT_OK_AND_ASSIGN(auto middle, Changes(table.metadata(), {s1.snapshot_id, s2.snapshot_id, {}}));
  EXPECT_EQ(middle, std::vector<Change>(expected.begin() + 3, expected.begin() + 7));
  ASSERT_OK_AND_ASSIGN(auto none, Changes(table.metadata(), {s2.snapshot_id, s2.snapshot_id, {}}));
  EXPECT_TRUE(none.empty());

  // Without a key the same commits list deletes and inserts only.
  ASSERT_OK_AND_ASSIGN(auto unkeyed, Changes(table.metadata(), {s2.snapshot_id, {}, {"name"}}));
  EXPECT_EQ(unkeyed,
            (std::vector<Change>{{"insert", 2, "Two", 0}, {"delete", 1, "one", 1}, {"delete", 2, "TWO", 2}}));
}

TEST_F(ChangelogScanTest, ColumnsNarrowTheScanToThemAndTheKeys) {
  Schema schema = KeyedSchema();
  schema.fields.push_back(MakeNestedField(3, "note", PrimitiveType(TypeKind::kString)));
  Table table = Create(schema);
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  const DataFile b = Write(table, "b.parquet", {{2, "TWO"}});
  ASSERT_OK(
      table.NewRowDelta().AddRows(b).AddDeletes(PositionDeletes(table, "d.parquet", a, {0, 1})).Commit());
  ChangelogOptions narrow{s1.snapshot_id, {}, {}};
  narrow.columns = {"name"};
  ASSERT_OK_AND_ASSIGN(auto scan, ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), narrow));
  std::vector<std::string> names;
  for (const floe::Field& field : scan->output_schema()) names.push_back(field.name);
  EXPECT_EQ(names, (std::vector<std::string>{"id", "name", kChangeTypeColumn, kCommitSnapshotIdColumn,
                                             kCommitTimestampColumn, kChangeOrdinalColumn}));
  ASSERT_OK_AND_ASSIGN(auto narrowed, Collect(*scan));
  ASSERT_OK_AND_ASSIGN(auto whole, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(narrowed, whole);
  EXPECT_EQ(whole, (std::vector<Change>{{"update_preimage", 2, "two", 0},
                                        {"update_postimage", 2, "TWO", 0},
                                        {"delete", 1, "one", 1}}));
  // ProjectColumns keeps the schema's order and the identifier fields it keeps.
  const Schema projected = ProjectColumns(schema, {"note", "name"}, {});
  ASSERT_EQ(projected.fields.size(), 2u);
  EXPECT_EQ(projected.fields[0].name, "name");
  EXPECT_EQ(projected.fields[1].name, "note");
  EXPECT_TRUE(projected.identifier_field_ids.empty());
}

TEST_F(ChangelogScanTest, KeysComeFromOptionsIdentifierFieldsOrFloeProperty) {
  Table table = Create(KeyedSchema(/*identifier=*/false));
  const DataFile a = Write(table, "a.parquet", {{1, "one"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  const DataFile b = Write(table, "b.parquet", {{1, "ONE"}});
  ASSERT_OK(table.NewRowDelta().AddRows(b).AddDeletes(PositionDeletes(table, "d.parquet", a, {0})).Commit());
  ASSERT_OK_AND_ASSIGN(auto unkeyed, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(unkeyed, (std::vector<Change>{{"insert", 1, "ONE", 0}, {"delete", 1, "one", 1}}));
  ASSERT_OK_AND_ASSIGN(auto keyed, Changes(table.metadata(), {s1.snapshot_id, {}, {"id"}}));
  EXPECT_EQ(keyed,
            (std::vector<Change>{{"update_preimage", 1, "one", 0}, {"update_postimage", 1, "ONE", 0}}));
  ASSERT_OK(table.NewUpdateProperties().Set(kMergeKeysProperty, "id").Commit());
  ASSERT_OK_AND_ASSIGN(auto recorded, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(recorded, keyed);
  auto unknown = ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), {{}, {}, {"nope"}});
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(ChangelogScanTest, RewrittenFilesYieldOnlyTheRowsThatChanged) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}, {3, "three"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  ASSERT_OK(table.NewRowDelta().AddDeletes(PositionDeletes(table, "d.parquet", a, {2})).Commit());
  // Copy-on-write: a is replaced by a rewrite where id 2 changed; id 3 was already deleted.
  const DataFile a2 = Write(table, "a2.parquet", {{1, "one"}, {2, "deux"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s3, table.NewRewriteFiles().DeleteFile(a).AddFile(a2).Commit());
  // floe's maintenance marker is on RewriteFiles ("replace"): nothing changed logically...
  ASSERT_OK_AND_ASSIGN(auto replaced, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(replaced, (std::vector<Change>{{"delete", 3, "three", 0}}));
  (void)s3;
}

TEST_F(ChangelogScanTest, CopyOnWriteOverwriteIsAnUpdate) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}, {3, "three"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  // An overwrite that removes a data file and adds its rewrite (as Spark's copy-on-write does).
  const DataFile a2 = Write(table, "a2.parquet", {{1, "one"}, {2, "deux"}});
  ASSERT_OK(table.NewDeleteFiles().DeleteFile(a.file_path).Commit());
  ASSERT_OK_AND_ASSIGN(auto after_delete, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(after_delete.size(), 3u);
  ASSERT_OK_AND_ASSIGN(Snapshot s3, table.NewFastAppend().AppendFile(a2).Commit());
  ASSERT_OK_AND_ASSIGN(auto appended,
                       Changes(table.metadata(), {*s3.parent_snapshot_id, s3.snapshot_id, {}}));
  EXPECT_EQ(appended, (std::vector<Change>{{"insert", 1, "one", 0}, {"insert", 2, "deux", 1}}));
}

TEST_F(ChangelogScanTest, MaintenanceCommitsContributeNothingAndLaterDeletesFindTheirRows) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}});
  const DataFile b = Write(table, "b.parquet", {{3, "three"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).AppendFile(b).Commit());
  // Compaction: a and b become one file, positions change.
  const DataFile merged = Write(table, "m.parquet", {{3, "three"}, {1, "one"}, {2, "two"}});
  ASSERT_OK(table.NewRewriteFiles()
                .DeleteFile(a)
                .DeleteFile(b)
                .AddFile(merged)
                .Set(kMaintenanceSummaryKey, "compaction")
                .Commit());
  ASSERT_OK(table.NewRowDelta().AddDeletes(PositionDeletes(table, "d.parquet", merged, {1})).Commit());
  ASSERT_OK_AND_ASSIGN(auto changes, Changes(table.metadata(), {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(changes, (std::vector<Change>{{"delete", 1, "one", 0}}));
}

TEST_F(ChangelogScanTest, AReplacedDeletionVectorCountsOnlyItsNewPositions) {
  Table table = Create(KeyedSchema(), /*format_version=*/3);
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}, {3, "three"}, {4, "four"}});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit());
  const DataFile v1 = Vector(table, "v1.puffin", a, {1});
  ASSERT_OK_AND_ASSIGN(Snapshot s2, table.NewRowDelta().AddDeletes(v1).Commit());
  const DataFile v2 = Vector(table, "v2.puffin", a, {1, 3});
  ASSERT_OK(table.NewRowDelta().AddDeletes(v2).RemoveDeletes(v1).Commit());
  ASSERT_OK_AND_ASSIGN(auto changes, Changes(table.metadata(), {s2.snapshot_id, {}, {}}));
  EXPECT_EQ(changes, (std::vector<Change>{{"delete", 4, "four", 0}}));
}

// Removed rows are read at their positions only (the row groups and pages
// holding them); rows at page and row-group boundaries, the first and the
// last, come out right with and without an offset index, and a position
// deleted again by a later delete file is no second delete.
TEST_F(ChangelogScanTest, RemovedRowsAtPageAndRowGroupBoundaries) {
  Table table = Create(KeyedSchema());
  const DataFile a = WriteLarge(table, "a.parquet", 2500, /*page_index=*/true);
  const DataFile b = WriteLarge(table, "b.parquet", 2500, /*page_index=*/false);
  ASSERT_OK(table.NewFastAppend().AppendFile(a).AppendFile(b).Commit());
  ASSERT_OK_AND_ASSIGN(
      Snapshot s2,
      table.NewRowDelta().AddDeletes(PositionDeletes(table, "d2.parquet", a, {5, 1500})).Commit());
  const std::vector<int64_t> positions = {0, 5, 99, 100, 101, 999, 1000, 1500, 1999, 2000, 2499};
  ASSERT_OK(table.NewRowDelta()
                .AddDeletes(PositionDeletes(table, "d3a.parquet", a, positions))
                .AddDeletes(PositionDeletes(table, "d3b.parquet", b, positions))
                .Commit());
  ASSERT_OK_AND_ASSIGN(auto changes, Changes(table.metadata(), {s2.snapshot_id, {}, {}}));
  std::vector<Change> expected;
  for (const DataFile* file : {&a, &b}) {
    for (int64_t p : positions) {
      if (file == &a && (p == 5 || p == 1500)) continue;  // deleted by the second commit already
      expected.emplace_back("delete", p, "row-" + std::to_string(p), static_cast<int64_t>(expected.size()));
    }
  }
  EXPECT_EQ(changes, expected);
}

// A deletion vector's positions over a file of several row groups and
// pages; the pending commit's files are read on a pool, in a stable order.
TEST_F(ChangelogScanTest, DeletionVectorAndPendingCommitReadOnAPool) {
  Table table = Create(KeyedSchema(), /*format_version=*/3);
  const DataFile a = WriteLarge(table, "a.parquet", 2500, /*page_index=*/true);
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  const std::vector<int64_t> positions = {0, 99, 100, 999, 1000, 1001, 2499};
  ASSERT_OK(table.NewRowDelta().AddDeletes(Vector(table, "v.puffin", a, positions)).Commit());
  ASSERT_OK_AND_ASSIGN(auto scan,
                       ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), {s1.snapshot_id, {}, {}}));
  ThreadPool pool(2);
  scan->set_read_pool(&pool);
  ASSERT_OK_AND_ASSIGN(auto changes, Collect(*scan));
  std::vector<Change> expected;
  for (int64_t p : positions) {
    expected.emplace_back("delete", p, "row-" + std::to_string(p), static_cast<int64_t>(expected.size()));
  }
  EXPECT_EQ(changes, expected);

  // A pending commit over a and b (no offset index): 1500 and 7 updated, 2000 and 1199 deleted.
  const DataFile b = WriteLarge(table, "b.parquet", 1200, /*page_index=*/false);
  ASSERT_OK(table.NewFastAppend().AppendFile(b).Commit());
  const DataFile c = Write(table, "c.parquet", {{1500, "new"}, {7, "seven"}});
  PendingCommit pending;
  pending.snapshot_id = 77;
  pending.timestamp_ms = 1'700'000'000'000;
  pending.added_data_files = {c};
  pending.deleted_positions[a.file_path] = {2000, 1500};
  pending.deleted_positions[b.file_path] = {7, 1199};
  ASSERT_OK_AND_ASSIGN(auto pending_scan,
                       ChangelogScan::ForPendingCommit(table.metadata(), MakeLocalFileIO(),
                                                       *table.metadata().CurrentSchema(), {"id"}, pending));
  pending_scan->set_read_pool(&pool);
  ASSERT_OK_AND_ASSIGN(auto pending_changes, Collect(*pending_scan));
  EXPECT_EQ(pending_changes, (std::vector<Change>{{"update_preimage", 1500, "row-1500", 0},
                                                  {"update_postimage", 1500, "new", 0},
                                                  {"update_preimage", 7, "row-7", 1},
                                                  {"update_postimage", 7, "seven", 1},
                                                  {"delete", 2000, "row-2000", 2},
                                                  {"delete", 1199, "row-1199", 3}}));
}

TEST_F(ChangelogScanTest, RowsReadOntoTheLastSnapshotsSchema) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  ASSERT_OK(table.NewUpdateSchema().AddColumn("extra", PrimitiveType(TypeKind::kInt)).Commit());
  const DataFile b = Write(table, "b.parquet", {{2, "two"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s2, table.NewFastAppend().AppendFile(b).Commit());
  ASSERT_OK_AND_ASSIGN(auto scan, ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), {}));
  const floe::Schema& out = scan->output_schema();
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[2].name, "extra");
  EXPECT_EQ(out[3].name, kChangeTypeColumn);
  EXPECT_EQ(out[6].name, kChangeOrdinalColumn);
  ASSERT_OK_AND_ASSIGN(auto changes, Collect(*scan));
  EXPECT_EQ(changes, (std::vector<Change>{{"insert", 1, "one", 0}, {"insert", 2, "two", 0}}));
  // Up to s1 the schema is s1's.
  ASSERT_OK_AND_ASSIGN(auto early,
                       ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), {{}, s1.snapshot_id, {}}));
  EXPECT_EQ(early->output_schema().size(), 6u);
  (void)s2;
}

TEST_F(ChangelogScanTest, EqualityDeletesAreRefused) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}});
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend().AppendFile(a).Commit());
  DataFile eq = Write(table, "eq.parquet", {{1, "one"}});
  eq.content = DataFileContent::kEqualityDeletes;
  eq.equality_ids = {1};
  ASSERT_OK_AND_ASSIGN(Snapshot s2, table.NewRowDelta().AddDeletes(eq).Commit());
  auto refused = Changes(table.metadata(), {s1.snapshot_id, {}, {}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), ErrorKind::kNotSupported);
  EXPECT_NE(refused.status().message().find(std::to_string(s2.snapshot_id)), std::string::npos);
  EXPECT_NE(refused.status().message().find("eq.parquet"), std::string::npos);
  // Before the equality delete the feed works.
  ASSERT_OK_AND_ASSIGN(auto before, Changes(table.metadata(), {{}, s1.snapshot_id, {}}));
  EXPECT_EQ(before.size(), 1u);
}

TEST_F(ChangelogScanTest, RangesMustFollowTheHistory) {
  Table table = Create(KeyedSchema());
  ASSERT_OK_AND_ASSIGN(Snapshot s1,
                       table.NewFastAppend().AppendFile(Write(table, "a.parquet", {{1, "a"}})).Commit());
  ASSERT_OK_AND_ASSIGN(Snapshot s2,
                       table.NewFastAppend().AppendFile(Write(table, "b.parquet", {{2, "b"}})).Commit());
  auto backwards = Changes(table.metadata(), {s2.snapshot_id, s1.snapshot_id, {}});
  EXPECT_EQ(backwards.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(backwards.status().message().find("not an ancestor"), std::string::npos);
  auto missing = ChangelogScan::Make(table.metadata(), MakeLocalFileIO(), {{}, int64_t{42}, {}});
  EXPECT_EQ(missing.status().kind(), ErrorKind::kInvalidArgument);
  // An expired `from` still bounds the range when it is the oldest commit's parent.
  TableMetadata expired = table.metadata();
  expired.snapshots.erase(expired.snapshots.begin());
  ASSERT_OK_AND_ASSIGN(auto after_expiry, Changes(expired, {s1.snapshot_id, {}, {}}));
  EXPECT_EQ(after_expiry, (std::vector<Change>{{"insert", 2, "b", 0}}));
  auto from_start = Changes(expired, {});
  EXPECT_EQ(from_start.status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(ChangelogScanTest, PendingCommitListsWhatItWillChange) {
  Table table = Create(KeyedSchema());
  const DataFile a = Write(table, "a.parquet", {{1, "one"}, {2, "two"}, {3, "three"}});
  ASSERT_OK(table.NewFastAppend().AppendFile(a).Commit());
  const DataFile b = Write(table, "b.parquet", {{2, "TWO"}, {5, "five"}});
  PendingCommit pending;
  pending.snapshot_id = 77;
  pending.timestamp_ms = 1'700'000'000'000;
  pending.added_data_files = {b};
  pending.deleted_positions[a.file_path] = {2, 1};
  ASSERT_OK_AND_ASSIGN(auto scan,
                       ChangelogScan::ForPendingCommit(table.metadata(), MakeLocalFileIO(),
                                                       *table.metadata().CurrentSchema(), {"id"}, pending));
  ASSERT_OK_AND_ASSIGN(auto changes, Collect(*scan));
  EXPECT_EQ(changes, (std::vector<Change>{{"update_preimage", 2, "two", 0},
                                          {"update_postimage", 2, "TWO", 0},
                                          {"insert", 5, "five", 1},
                                          {"delete", 3, "three", 2}}));
}

// Tables other engines wrote (icebird fixtures): Spark's merge-on-read delete
// then copy-on-write rewrite, Java's position and equality deletes.
TEST(ChangelogScanFixtures, SparkAndJavaTables) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  for (const char* name : {"spark/bunnies", "java/bunnies"}) {
    SCOPED_TRACE(name);
    const std::string root = (shared / "fixtures/iceberg/icebird" / name).string();
    const std::string metadata_file = root + "/metadata/v5.metadata.json";
    auto io = std::make_shared<PrefixMappingFileIO>(
        MakeLocalFileIO(),
        std::vector<PrefixMapping>{{std::string("s3a://hyperparam-iceberg/") + name, root}});
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, io->ReadAll(metadata_file));
    ASSERT_OK_AND_ASSIGN(
        TableMetadata metadata,
        TableMetadataFromJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                              metadata_file));
    std::vector<int64_t> ids;
    for (const Snapshot& s : metadata.snapshots) ids.push_back(s.snapshot_id);
    ASSERT_EQ(ids.size(), 3u);
    ChangelogOptions first_two{{}, ids[1], {"Breed Name"}};
    ASSERT_OK_AND_ASSIGN(auto scan, ChangelogScan::Make(metadata, io, first_two));
    ASSERT_OK_AND_ASSIGN(auto commits, scan->PlanCommits());
    ASSERT_EQ(commits.size(), 2u);
    std::map<std::string, int64_t> counts;
    for (const ChangelogCommit& commit : commits) {
      ASSERT_OK_AND_ASSIGN(auto reader, scan->Open(commit));
      while (true) {
        ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
        if (!batch) break;
        const Column& type = batch->columns[batch->schema.size() - 4];
        for (int64_t r = 0; r < batch->num_rows; ++r) ++counts[std::string(type.StringAt(r))];
      }
    }
    // 21 rows appended, then position deletes: Spark deleted 1, Java 6.
    EXPECT_EQ(counts["insert"], 21);
    EXPECT_EQ(counts["delete"], std::string(name) == "spark/bunnies" ? 1 : 6);
    if (std::string(name) == "java/bunnies") {
      auto refused = ChangelogScan::Make(metadata, io, {ids[1], {}, {}});
      ASSERT_OK(refused.status());
      EXPECT_EQ((*refused)->PlanCommits().status().kind(), ErrorKind::kNotSupported);
    }
  }
}

}  // namespace
}  // namespace floe::iceberg
