// TableScan end to end on small tables written in a temp dir: snapshot
// choice, delete application by sequence number (position, equality,
// referenced_data_file), pruning, row filters and column selection.
#include "iceberg/scan/table_scan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

Schema TableSchema() {
  Schema schema;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(3, "cat", PrimitiveType(TypeKind::kString))};
  return schema;
}

Schema SubSchema(const std::vector<int32_t>& ids) {
  Schema schema;
  for (int32_t id : ids) schema.fields.push_back(*TableSchema().FindFieldById(id));
  return schema;
}

// Rows (id, "n<id>", cat) for each id.
RecordBatch Rows(const std::vector<int64_t>& ids, const std::string& cat) {
  RecordBatch batch;
  batch.schema = *ToFloeSchema(TableSchema());
  Column id(Int64()), name(String()), category(String());
  for (int64_t v : ids) {
    id.AppendValue<int64_t>(v);
    name.AppendBytes("n" + std::to_string(v));
    category.AppendBytes(cat);
  }
  batch.columns = {id, name, category};
  batch.num_rows = static_cast<int64_t>(ids.size());
  return batch;
}

class ScanTableBuilder {
 public:
  explicit ScanTableBuilder(PartitionSpec spec = PartitionSpec::Unpartitioned()) : spec_(std::move(spec)) {
    metadata_.location = dir_.path().string();
    metadata_.schemas = {TableSchema()};
    metadata_.partition_specs = {spec_};
  }

  DataFile WriteData(const std::string& name, const std::vector<int64_t>& ids, const std::string& cat,
                     std::vector<Literal> partition = {}) {
    auto writer = DataFileWriter::Open(*io_, dir_.File(name), TableSchema(), std::move(partition), {});
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(Rows(ids, cat)));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // An equality delete file on `ids_of_columns` holding `batch` (columns of those fields).
  DataFile WriteEqualityDeletes(const std::string& name, const std::vector<int32_t>& equality_ids,
                                const RecordBatch& batch) {
    auto writer = DataFileWriter::Open(*io_, dir_.File(name), SubSchema(equality_ids), {}, {});
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(batch));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    file->content = DataFileContent::kEqualityDeletes;
    file->equality_ids = equality_ids;
    return *file;
  }

  DataFile WritePositionDeletes(const std::string& name, const std::string& data_path,
                                const std::vector<int64_t>& positions) {
    auto writer = PositionDeleteWriter::Open(*io_, dir_.File(name), {}, {});
    EXPECT_OK(writer.status());
    for (int64_t p : positions) EXPECT_OK((*writer)->Delete(data_path, p));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // Commits a snapshot adding `data` and `deletes` (each in its own manifest).
  int64_t Commit(const std::vector<DataFile>& data, const std::vector<DataFile>& deletes) {
    const int64_t sequence = static_cast<int64_t>(metadata_.snapshots.size()) + 1;
    const int64_t snapshot_id = 1000 + sequence;
    auto add_manifest = [&](ManifestContent content, const std::vector<DataFile>& files) {
      if (files.empty()) return;
      ManifestWriterOptions options;
      options.content = content;
      options.snapshot_id = snapshot_id;
      const std::string path =
          dir_.File("m" + std::to_string(sequence) + "-" + std::to_string(int(content)) + ".avro");
      auto writer = ManifestWriter::Open(*io_, path, TableSchema(), spec_, options);
      EXPECT_OK(writer.status());
      for (const DataFile& f : files) EXPECT_OK((*writer)->Add(f));
      auto manifest = (*writer)->Finish();
      EXPECT_OK(manifest.status());
      manifest->sequence_number = sequence;
      manifest->min_sequence_number = sequence;
      manifests_.push_back(*manifest);
    };
    add_manifest(ManifestContent::kData, data);
    add_manifest(ManifestContent::kDeletes, deletes);
    ManifestListWriterOptions list_options;
    list_options.snapshot_id = snapshot_id;
    list_options.sequence_number = sequence;
    const std::string list_path = dir_.File("snap-" + std::to_string(snapshot_id) + ".avro");
    EXPECT_OK(WriteManifestList(*io_, list_path, manifests_, list_options).status());
    Snapshot snapshot;
    snapshot.snapshot_id = snapshot_id;
    snapshot.sequence_number = sequence;
    snapshot.manifest_list = list_path;
    snapshot.summary = {{"operation", "append"}};
    snapshot.schema_id = 0;
    metadata_.snapshots.push_back(snapshot);
    metadata_.current_snapshot_id = snapshot_id;
    metadata_.last_sequence_number = sequence;
    return snapshot_id;
  }

  Result<std::unique_ptr<TableScan>> Scan(ScanOptions options = {}) {
    return TableScan::Make(metadata_, io_, std::move(options));
  }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
  PartitionSpec spec_;
  TableMetadata metadata_;
  std::vector<ManifestFile> manifests_;
};

// Every live id of the scan, sorted, and the number of tasks planned.
std::vector<int64_t> ScanIds(TableScan& scan, size_t* tasks_out = nullptr) {
  std::vector<int64_t> ids;
  auto tasks = scan.PlanFiles();
  EXPECT_OK(tasks.status());
  if (!tasks.ok()) return ids;
  if (tasks_out != nullptr) *tasks_out = tasks->size();
  for (const FileScanTask& task : *tasks) {
    auto reader = scan.Open(task);
    EXPECT_OK(reader.status());
    if (!reader.ok()) return ids;
    while (true) {
      auto batch = (*reader)->Next();
      EXPECT_OK(batch.status());
      if (!batch.ok() || !batch->has_value()) break;
      const RecordBatch& rows = **batch;
      EXPECT_EQ(rows.schema, scan.output_schema());
      EXPECT_EQ(rows.columns.size(), rows.schema.size());
      for (int64_t r = 0; r < rows.num_rows; ++r) ids.push_back(rows.columns[0].Value<int64_t>(r));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(TableScanTest, AppliesDeletesBySequenceNumber) {
  ScanTableBuilder table;
  const DataFile a = table.WriteData("a.parquet", {0, 1, 2, 3, 4, 5}, "x");
  const int64_t s1 = table.Commit({a}, {});
  // seq 2: delete position 1 of a, and id 3 and id 7 by equality (7 arrives later).
  Column eq_ids(Int64());
  eq_ids.AppendValue<int64_t>(3);
  eq_ids.AppendValue<int64_t>(7);
  RecordBatch eq_batch{*ToFloeSchema(SubSchema({1})), {eq_ids}, 2};
  const int64_t s2 = table.Commit({}, {table.WritePositionDeletes("p1.parquet", a.file_path, {1}),
                                       table.WriteEqualityDeletes("e1.parquet", {1}, eq_batch)});
  // seq 3: data b (ids 7, 8: not hit by e1, which is older), a position delete
  // of a's row 2, and an equality delete on name that hits a's "n0" and
  // b's "n8" — but b has the same sequence number, so only a's row goes.
  const DataFile b = table.WriteData("b.parquet", {7, 8}, "x");
  Column names(String());
  names.AppendBytes("n0");
  names.AppendBytes("n8");
  RecordBatch name_batch{*ToFloeSchema(SubSchema({2})), {names}, 2};
  const int64_t s3 = table.Commit({b}, {table.WritePositionDeletes("p2.parquet", a.file_path, {2}),
                                        table.WriteEqualityDeletes("e2.parquet", {2}, name_batch)});

  ASSERT_OK_AND_ASSIGN(auto current, table.Scan());
  EXPECT_EQ(current->snapshot_id(), s3);
  EXPECT_EQ(ScanIds(*current), (std::vector<int64_t>{4, 5, 7, 8}));
  ScanOptions at2;
  at2.snapshot_id = s2;
  ASSERT_OK_AND_ASSIGN(auto second, table.Scan(at2));
  EXPECT_EQ(ScanIds(*second), (std::vector<int64_t>{0, 2, 4, 5}));
  ScanOptions at1;
  at1.snapshot_id = s1;
  ASSERT_OK_AND_ASSIGN(auto first, table.Scan(at1));
  EXPECT_EQ(ScanIds(*first), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  ScanOptions missing;
  missing.snapshot_id = 42;
  EXPECT_EQ(table.Scan(missing).status().kind(), ErrorKind::kNotFound);

  // The planned tasks carry exactly the applicable deletes.
  ASSERT_OK_AND_ASSIGN(auto tasks, current->PlanFiles());
  ASSERT_EQ(tasks.size(), 2u);
  for (const FileScanTask& task : tasks) {
    if (task.data.file.file_path == a.file_path) {
      EXPECT_EQ(task.data.data_sequence_number, 1);
      EXPECT_EQ(task.deletes.size(), 4u);
    } else {
      EXPECT_EQ(task.data.data_sequence_number, 3);
      EXPECT_EQ(task.deletes.size(), 0u);  // e1 older, e2 same seq, p1/p2 reference a
    }
  }
}

TEST(TableScanTest, EmptyTableAndColumnSelection) {
  ScanTableBuilder table;
  ASSERT_OK_AND_ASSIGN(auto empty, table.Scan());
  EXPECT_EQ(empty->snapshot_id(), std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto no_tasks, empty->PlanFiles());
  EXPECT_TRUE(no_tasks.empty());

  table.Commit({table.WriteData("a.parquet", {1, 2}, "x")}, {});
  ScanOptions options;
  options.columns = std::vector<std::string>{"name"};
  ASSERT_OK_AND_ASSIGN(auto scan, table.Scan(options));
  ASSERT_EQ(scan->output_schema().size(), 1u);
  EXPECT_EQ(scan->output_schema()[0].name, "name");
  EXPECT_EQ(scan->output_schema()[0].field_id, 2);
  ASSERT_OK_AND_ASSIGN(auto tasks, scan->PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto reader, scan->Open(tasks[0]));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  ASSERT_TRUE(batch.has_value());
  ASSERT_EQ(batch->columns.size(), 1u);
  EXPECT_EQ(batch->columns[0].StringAt(1), "n2");
  options.columns = std::vector<std::string>{"nope"};
  EXPECT_EQ(table.Scan(options).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(TableScanTest, PrunesPartitionsAndMetricsAndFiltersRows) {
  PartitionSpec spec;
  spec.fields = {{3, 1000, "cat", Transform::Identity()}};
  ScanTableBuilder table(spec);
  const DataFile a = table.WriteData("a.parquet", {1, 2, 3}, "a", {Literal::String("a")});
  const DataFile b = table.WriteData("b.parquet", {10, 11, 12}, "b", {Literal::String("b")});
  table.Commit({a, b}, {});
  auto scan_with = [&](std::vector<std::string> filters, size_t* tasks) {
    ScanOptions options;
    for (const std::string& f : filters) options.filter.push_back(*ParsePredicate(f));
    auto scan = table.Scan(options);
    EXPECT_OK(scan.status());
    return ScanIds(**scan, tasks);
  };
  size_t tasks = 0;
  EXPECT_EQ(scan_with({}, &tasks), (std::vector<int64_t>{1, 2, 3, 10, 11, 12}));
  EXPECT_EQ(tasks, 2u);
  EXPECT_EQ(scan_with({"cat = b"}, &tasks), (std::vector<int64_t>{10, 11, 12}));
  EXPECT_EQ(tasks, 1u);  // partition pruning
  EXPECT_EQ(scan_with({"id > 3"}, &tasks), (std::vector<int64_t>{10, 11, 12}));
  EXPECT_EQ(tasks, 1u);  // metrics pruning
  EXPECT_EQ(scan_with({"id >= 2", "id < 11"}, &tasks), (std::vector<int64_t>{2, 3, 10}));
  EXPECT_EQ(tasks, 2u);  // exact row filter
  EXPECT_EQ(scan_with({"cat = c"}, &tasks), (std::vector<int64_t>{}));
  EXPECT_EQ(tasks, 0u);
  EXPECT_EQ(scan_with({"name is null"}, &tasks), (std::vector<int64_t>{}));
  EXPECT_EQ(tasks, 0u);  // null counts are 0
}

TEST(DeleteAppliesTest, FollowsTheSpecRules) {
  ScanFile data{DataFile{}, 5};
  data.file.file_path = "d.parquet";
  data.file.spec_id = 1;
  data.file.partition = {Literal::String("a")};
  ScanFile pos{DataFile{}, 5};
  pos.file.content = DataFileContent::kPositionDeletes;
  pos.file.spec_id = 1;
  pos.file.partition = {Literal::String("a")};
  EXPECT_TRUE(DeleteApplies(pos, data));  // same sequence number applies
  pos.data_sequence_number = 4;
  EXPECT_FALSE(DeleteApplies(pos, data));
  pos.data_sequence_number = 6;
  pos.file.partition = {Literal::String("b")};
  EXPECT_FALSE(DeleteApplies(pos, data));
  pos.file.referenced_data_file = "d.parquet";
  EXPECT_TRUE(DeleteApplies(pos, data));
  pos.file.referenced_data_file = "other.parquet";
  EXPECT_FALSE(DeleteApplies(pos, data));

  ScanFile eq{DataFile{}, 5};
  eq.file.content = DataFileContent::kEqualityDeletes;
  eq.file.spec_id = 1;
  eq.file.partition = {Literal::String("a")};
  EXPECT_FALSE(DeleteApplies(eq, data));  // same sequence number does not apply
  eq.data_sequence_number = 6;
  EXPECT_TRUE(DeleteApplies(eq, data));
  eq.file.partition = {Literal::String("b")};
  EXPECT_FALSE(DeleteApplies(eq, data));
  eq.file.partition.clear();  // unpartitioned: global
  EXPECT_TRUE(DeleteApplies(eq, data));
}

}  // namespace
}  // namespace floe::iceberg
