// PrimaryKeyIndex::Load against real Iceberg tables (SQLite catalog, Parquet
// data files, position deletes and deletion vectors committed with RowDelta):
// rebuilding without an index file, merging an ancestor's tombstones, using
// and distrusting the current snapshot's files, catching up after a
// compaction's "replace" snapshot. (This test also links
// floe_iceberg_catalog, see tests/CMakeLists.txt.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/table/catalog.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/transaction/table.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "ingest/merge/key_index.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using iceberg::DataFile;
using iceberg::MakeNestedField;
using iceberg::PrimitiveType;
using iceberg::TypeKind;

struct Row {
  int64_t id;
  std::string seq;
  std::string name;
};

OrderValue HexOrder(const std::string& hex) {
  Column c(String());
  c.AppendBytes(hex);
  auto v = OrderValueAt(c, 0, OrderingKind::kPaddedHex, "seq");
  EXPECT_OK(v.status());
  return v.ok() ? *v : OrderValue{};
}

class KeyIndexRebuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("c.db"), dir_.File("wh"));
    ASSERT_OK(catalog.status());
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
  }

  iceberg::Table Create(int format_version, const std::string& name = "t") {
    name_ = name;
    catalog::TableCreation creation;
    creation.schema.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
    creation.schema.fields.push_back(MakeNestedField(2, "seq", PrimitiveType(TypeKind::kString), true));
    creation.schema.fields.push_back(MakeNestedField(3, "name", PrimitiveType(TypeKind::kString), true));
    creation.format_version = format_version;
    auto ops = catalog_->CreateTable({{"db"}, name_}, creation);
    EXPECT_OK(ops.status());
    auto table = iceberg::Table::Load(*ops);
    EXPECT_OK(table.status());
    return std::move(table).value();
  }

  std::string Data(const std::string& name) { return dir_.File("wh") + "/db/" + name_ + "/data/" + name; }

  DataFile WriteData(iceberg::Table& table, const std::string& name, const std::vector<Row>& rows) {
    RecordBatch batch;
    auto schema = iceberg::ToFloeSchema(*table.metadata().CurrentSchema());
    EXPECT_OK(schema.status());
    batch.schema = *schema;
    Column id(Int64()), seq(String()), label(String());
    for (const Row& r : rows) {
      id.AppendValue(r.id);
      seq.AppendBytes(r.seq);
      label.AppendBytes(r.name);
    }
    batch.columns = {id, seq, label};
    batch.num_rows = static_cast<int64_t>(rows.size());
    iceberg::DataFileWriterOptions options;
    options.parquet.row_group_max_rows = 2;  // several row groups per file
    auto writer =
        iceberg::DataFileWriter::Open(table.io(), Data(name), *table.metadata().CurrentSchema(), {}, options);
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(batch));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  DataFile WritePositionDeletes(iceberg::Table& table, const std::string& name, const DataFile& data,
                                const std::vector<int64_t>& positions) {
    auto writer = iceberg::PositionDeleteWriter::Open(table.io(), Data(name), {}, {});
    EXPECT_OK(writer.status());
    for (int64_t p : positions) EXPECT_OK((*writer)->Delete(data.file_path, p));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // Snapshot 1: a.parquet ids 1-5. Snapshot 2: b.parquet (id 3 updated, id 6 new) and
  // deletes of a.parquet positions 2 (the old id 3) and 3 (id 4, deleted).
  // Returns {snapshot 1, snapshot 2}.
  std::pair<int64_t, int64_t> CommitTwoBatches(iceberg::Table& table) {
    DataFile a =
        WriteData(table, "a.parquet",
                  {{1, "a", "one"}, {2, "b", "two"}, {3, "c", "three"}, {4, "d", "four"}, {5, "e", "five"}});
    auto first = table.NewRowDelta().AddRows(a).Commit();
    EXPECT_OK(first.status());
    DataFile b = WriteData(table, "b.parquet", {{3, "ff", "THREE"}, {6, "10", "six"}});
    auto delta = table.NewRowDelta();
    delta.AddRows(b);
    if (table.metadata().format_version >= 3) {
      auto writer = iceberg::DeletionVectorWriter::Open(table.io(), Data("dv.puffin"));
      EXPECT_OK(writer.status());
      EXPECT_OK((*writer)->Add(a.file_path, {2, 3}, a.partition, a.spec_id));
      auto vectors = (*writer)->Close();
      EXPECT_OK(vectors.status());
      for (const DataFile& v : *vectors) delta.AddDeletes(v);
    } else {
      delta.AddDeletes(WritePositionDeletes(table, "a-deletes.parquet", a, {2, 3}));
    }
    auto second = delta.Commit();
    EXPECT_OK(second.status());
    return {first->snapshot_id, second->snapshot_id};
  }

  // The table's live data files (what a compaction replaces).
  std::vector<iceberg::ManifestEntry> LiveFiles(iceberg::Table& table) {
    auto entries = iceberg::LiveEntries(table.io(), table.metadata(), *table.metadata().CurrentSnapshot());
    EXPECT_OK(entries.status());
    std::vector<iceberg::ManifestEntry> data;
    for (auto& entry : *entries) {
      if (entry.data_file.content == iceberg::DataFileContent::kData) data.push_back(entry);
    }
    return data;
  }

  std::optional<PrimaryKeyIndex::Entry> Get(const PrimaryKeyIndex& index, KeyId key) {
    auto found = index.Find(key);
    EXPECT_OK(found.status());
    return found.ok() ? *found : std::nullopt;
  }

  void ExpectLive(const PrimaryKeyIndex& index, KeyId key, const std::string& file, int64_t position,
                  const std::string& seq) {
    auto e = Get(index, key);
    ASSERT_TRUE(e.has_value()) << key.lo;
    EXPECT_FALSE(e->tombstone) << key.lo;
    EXPECT_EQ(e->data_file, Data(file)) << key.lo;
    EXPECT_EQ(e->position, position) << key.lo;
    EXPECT_EQ(e->order, HexOrder(seq)) << key.lo;
  }

  testing::TempDir dir_;
  std::string name_ = "t";
  std::unique_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
  KeyIndexSpec spec_{{"id"}, "seq", OrderingKind::kPaddedHex};
};

TEST_F(KeyIndexRebuildTest, RebuildsFromTheTableWithoutAnIndexFile) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    iceberg::Table table = Create(version, "v" + std::to_string(version));
    CommitTwoBatches(table);
    std::vector<std::string> warnings;
    const std::string state = dir_.File("state-" + name_);
    ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                         PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("rebuilt from the table (5 entries)"), std::string::npos) << warnings[0];
    EXPECT_EQ(index.entry_count(), 5u);
    ExpectLive(index, {0, 1}, "a.parquet", 0, "a");
    ExpectLive(index, {0, 2}, "a.parquet", 1, "b");
    ExpectLive(index, {0, 3}, "b.parquet", 0, "ff");
    ExpectLive(index, {0, 5}, "a.parquet", 4, "e");
    ExpectLive(index, {0, 6}, "b.parquet", 1, "10");
    EXPECT_FALSE(Get(index, {0, 4}).has_value());
    // The rebuilt index is saved for the snapshot: loading again reads it.
    warnings.clear();
    ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex again,
                         PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
    EXPECT_TRUE(warnings.empty());
    ExpectLive(again, {0, 6}, "b.parquet", 1, "10");
  }
}

TEST_F(KeyIndexRebuildTest, RebuildSortsInBoundedMemoryAcrossSpills) {
  iceberg::Table table = Create(2);
  std::vector<Row> rows;
  for (int64_t id = 1; id <= 3000; ++id) rows.push_back({(id * 7919) % 3001, "a" + std::to_string(id), "n"});
  DataFile file = WriteData(table, "many.parquet", rows);
  ASSERT_OK(table.NewRowDelta().AddRows(file).Commit().status());
  // Spills of 1,000 entries: three sorted pieces merged into one base.
  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                       PrimaryKeyIndex::Load(io_, dir_.File("state"), table.metadata(), table.io(), spec_,
                                             &warnings, nullptr, 1000 * 48));
  EXPECT_EQ(index.run_count(), 1u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.File("state")),
                          std::filesystem::directory_iterator()),
            2);  // the merged run and its manifest: the pieces are gone
  EXPECT_EQ(index.entry_count(), 3000u);
  for (int64_t i = 0; i < 3000; i += 37)
    ExpectLive(index, {0, static_cast<uint64_t>(rows[i].id)}, "many.parquet", i, rows[i].seq);
}

TEST_F(KeyIndexRebuildTest, HashedKeysRebuild) {
  iceberg::Table table = Create(2);
  CommitTwoBatches(table);
  KeyIndexSpec spec{{"id", "name"}, "seq", OrderingKind::kPaddedHex};
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                       PrimaryKeyIndex::Load(io_, dir_.File("state"), table.metadata(), table.io(), spec));
  EXPECT_EQ(index.entry_count(), 5u);
  ASSERT_OK_AND_ASSIGN(KeyEncoder encoder, KeyEncoder::Make({Int64(), String()}, {"id", "name"}));
  Column id(Int64()), name(String());
  id.AppendValue(int64_t{3});
  name.AppendBytes("THREE");
  ASSERT_OK_AND_ASSIGN(KeyId key, encoder.KeyAt({&id, &name}, 0));
  ExpectLive(index, key, "b.parquet", 0, "ff");
}

TEST_F(KeyIndexRebuildTest, TakesTombstonesFromTheNewestAncestorsFile) {
  iceberg::Table table = Create(2);
  auto [first, second] = CommitTwoBatches(table);
  const std::string state = dir_.File("state");
  // The index as it was saved for snapshot 1, plus the deletes of batch 2 as tombstones.
  {
    PrimaryKeyIndex older(io_, state);
    KeyIndexDelta delta;
    delta.PutLive({0, 1}, Data("a.parquet"), 0, HexOrder("a"));
    delta.PutTombstone({0, 4}, HexOrder("e0"), 5'000'000);   // id 4 deleted: kept
    delta.PutTombstone({0, 3}, HexOrder("f0"), 5'000'000);   // id 3 live again since: dropped
    delta.PutTombstone({0, 99}, HexOrder("aa"), 6'000'000);  // never in this table: kept
    ASSERT_OK(older.Save(std::move(delta), first));
  }
  {
    PrimaryKeyIndex stray(io_, dir_.File("elsewhere"));
    KeyIndexDelta delta;
    delta.PutTombstone({0, 77}, HexOrder("1"), 1000);
    ASSERT_OK(stray.Save(std::move(delta), 123456789));  // a snapshot that never committed
    std::filesystem::copy(PrimaryKeyIndex::FilePath(dir_.File("elsewhere"), 123456789),
                          PrimaryKeyIndex::FilePath(state, 123456789));
  }

  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                       PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
  ASSERT_EQ(warnings.size(), 1u);      // the rebuild
  EXPECT_EQ(index.entry_count(), 7u);  // 5 live, 2 tombstones
  auto four = Get(index, {0, 4});
  ASSERT_TRUE(four.has_value());
  EXPECT_TRUE(four->tombstone);
  EXPECT_EQ(four->order, HexOrder("e0"));
  EXPECT_EQ(four->deleted_at_ms, 5'000'000);
  EXPECT_TRUE(Get(index, {0, 99})->tombstone);
  ExpectLive(index, {0, 3}, "b.parquet", 0, "ff");
  EXPECT_FALSE(Get(index, {0, 77}).has_value());
  EXPECT_TRUE(std::filesystem::exists(PrimaryKeyIndex::FilePath(state, first)));
  EXPECT_FALSE(std::filesystem::exists(PrimaryKeyIndex::FilePath(state, 123456789)));

  // Saved for the current snapshot, the index is used as is (no rebuild).
  KeyIndexDelta marker;
  marker.PutLive({0, 1000}, Data("marker.parquet"), 0, HexOrder("1"));
  ASSERT_OK(index.Save(std::move(marker), second));
  warnings.clear();
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex reloaded,
                       PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(Get(reloaded, {0, 1000}).has_value());
  EXPECT_TRUE(Get(reloaded, {0, 99})->tombstone);
  EXPECT_TRUE(std::filesystem::exists(PrimaryKeyIndex::FilePath(state, first)));  // the newest ancestor's

  // A damaged current manifest is ignored with a warning and rebuilt from the table.
  {
    std::fstream f(PrimaryKeyIndex::FilePath(state, second), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.put('\x7f');
  }
  warnings.clear();
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex rebuilt,
                       PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("index-" + std::to_string(second) + ".bin"), std::string::npos) << warnings[0];
  EXPECT_FALSE(Get(rebuilt, {0, 1000}).has_value());
  EXPECT_EQ(rebuilt.entry_count(), 7u);  // tombstones from snapshot 1's index again
}

// A compaction's "replace" snapshot moves rows without changing them: the
// index catches up from the files it added instead of rebuilding.
TEST_F(KeyIndexRebuildTest, CatchesUpAfterACompactionWithoutARebuild) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    iceberg::Table table = Create(version, "c" + std::to_string(version));
    auto [first, second] = CommitTwoBatches(table);
    const std::string state = dir_.File("state-" + name_);
    // The index of snapshot 2 as the ingestor saves it (here: rebuilt, with a tombstone).
    {
      ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                           PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_));
      KeyIndexDelta deleted;
      deleted.PutTombstone({0, 4}, HexOrder("e0"), 5'000'000);
      ASSERT_OK(index.Save(std::move(deleted), second));
    }
    // Compaction: a.parquet (with its deletes) and b.parquet become c.parquet.
    DataFile c =
        WriteData(table, "c.parquet",
                  {{6, "10", "six"}, {1, "a", "one"}, {3, "ff", "THREE"}, {2, "b", "two"}, {5, "e", "five"}});
    iceberg::RewriteFiles rewrite = table.NewRewriteFiles();
    for (const iceberg::ManifestEntry& entry : LiveFiles(table)) rewrite.DeleteFile(entry.data_file);
    rewrite.AddFile(c);
    ASSERT_OK(rewrite.Commit().status());
    // And a commit that changes nothing but manifests (also "replace").
    ASSERT_EQ(table.metadata().CurrentSnapshot()->operation(), "replace");

    std::vector<std::string> warnings;
    ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex caught_up,
                         PrimaryKeyIndex::Load(io_, state, table.metadata(), table.io(), spec_, &warnings));
    EXPECT_TRUE(warnings.empty()) << warnings[0];  // no rebuild
    ExpectLive(caught_up, {0, 6}, "c.parquet", 0, "10");
    ExpectLive(caught_up, {0, 1}, "c.parquet", 1, "a");
    ExpectLive(caught_up, {0, 3}, "c.parquet", 2, "ff");
    ExpectLive(caught_up, {0, 5}, "c.parquet", 4, "e");
    EXPECT_TRUE(Get(caught_up, {0, 4})->tombstone);
    EXPECT_EQ(caught_up.snapshot(), table.metadata().current_snapshot_id);
    // The catch-up is saved for the compaction's snapshot.
    EXPECT_TRUE(
        std::filesystem::exists(PrimaryKeyIndex::FilePath(state, *table.metadata().current_snapshot_id)));
  }
}

TEST_F(KeyIndexRebuildTest, EqualityDeletesCannotBeRebuilt) {
  iceberg::Table table = Create(2);
  CommitTwoBatches(table);
  DataFile equality;
  equality.content = iceberg::DataFileContent::kEqualityDeletes;
  equality.file_path = Data("eq.parquet");
  equality.record_count = 1;
  equality.file_size_in_bytes = 10;
  equality.equality_ids = {1};
  ASSERT_OK(table.NewRowDelta().AddDeletes(equality).Commit().status());
  auto index = PrimaryKeyIndex::Load(io_, dir_.File("state"), table.metadata(), table.io(), spec_);
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().kind(), ErrorKind::kNotSupported);
  EXPECT_NE(index.status().message().find("table has equality deletes"), std::string::npos)
      << index.status().message();
}

TEST_F(KeyIndexRebuildTest, EmptyTableGivesAnEmptyIndex) {
  iceberg::Table table = Create(2);
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index,
                       PrimaryKeyIndex::Load(io_, dir_.File("state"), table.metadata(), table.io(), spec_));
  EXPECT_EQ(index.entry_count(), 0u);
  auto wrong_order = PrimaryKeyIndex::Load(io_, dir_.File("state"), table.metadata(), table.io(),
                                           KeyIndexSpec{{"id"}, "missing", OrderingKind::kPaddedHex});
  ASSERT_FALSE(wrong_order.ok());
  EXPECT_NE(wrong_order.status().message().find("missing"), std::string::npos);
}

}  // namespace
}  // namespace floe::ingest
