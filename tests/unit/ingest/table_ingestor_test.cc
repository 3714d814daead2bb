// TableIngestor end to end: CDA-shaped Parquet files in a temp dir, a SQLite
// catalog, and the table read back with TableScan after every batch.
#include "ingest/table_ingestor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "columnar/column.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/snapshot_producer.h"
#include "iceberg/transaction/table.h"
#include "iceberg/transaction/table_reading.h"
#include "ingest/lineage_columns.h"
#include "io/forwarding_file_io.h"
#include "parquet_units.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

struct Change {
  Change(int64_t id_value, std::string seq_hex, int32_t operation, std::string name_value,
         int64_t amount_value = 0, int64_t createtime = 0, std::string note_value = "")
      : id(id_value),
        seq(std::move(seq_hex)),
        op(operation),
        name(std::move(name_value)),
        amount(amount_value),
        createtime_us(createtime),
        note(std::move(note_value)) {}
  int64_t id;
  std::string seq;  // gwcbi___seqval_hex, not padded
  int32_t op;       // 0/2 insert, 4 update, 1 delete, 3 before image
  std::string name;
  int64_t amount;
  int64_t createtime_us;
  std::string note;  // only written by files with the `note` column
};

// How a source file's schema differs from the base CDA shape.
struct FileShape {
  bool amount_long = false;       // amount as int64 instead of int32
  bool amount_string = false;     // amount as a string (incompatible with int)
  bool with_note = false;         // an extra string column `note`
  bool without_id = false;        // no key column
  bool operation_string = false;  // the operation column as a string
  int64_t row_group_rows = 0;     // 0: one row group
};

using TableRows = std::map<int64_t, std::map<std::string, std::string>>;

// A local FileIO whose OpenRead of one path fails once it was opened `allowed` times.
class FailingReopenIO : public ForwardingFileIO {
 public:
  // `retryable`: the failure looks like an object store that kept failing (a 503 after every retry).
  FailingReopenIO(std::shared_ptr<FileIO> base, std::string path, int allowed, bool retryable = false)
      : ForwardingFileIO(std::move(base)), path_(std::move(path)), allowed_(allowed), retryable_(retryable) {}
  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) override {
    if (path == path_ && opens_++ >= allowed_) {
      return Status::IOError("injected read failure of " + path, retryable_);
    }
    return base().OpenRead(path);
  }

 private:
  std::string path_;
  int allowed_;
  bool retryable_;
  int opens_ = 0;
};

std::string Cell(const Column& column, int64_t row) {
  if (column.IsNull(row)) return "null";
  switch (column.type.id) {
    case TypeId::kInt32: return std::to_string(column.Value<int32_t>(row));
    case TypeId::kInt64:
    case TypeId::kTimestamp: return std::to_string(column.Value<int64_t>(row));
    case TypeId::kString: return std::string(column.StringAt(row));
    default: return "?" + column.type.ToString();
  }
}

class TableIngestorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.File("src"));
    fs::create_directories(dir_.File("state"));
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("c.db"), dir_.File("wh"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
  }

  TableIngestorOptions Options() const {
    TableIngestorOptions options;
    options.pipeline_name = "p1";
    options.table = catalog::TableIdentifier{{"cda"}, "account"};
    options.state_dir = dir_.File("state");
    options.settings.target.codec = "snappy";
    options.now_ms_for_tests = 1'700'000'000'000;
    return options;
  }

  Result<std::unique_ptr<TableIngestor>> Open(const TableIngestorOptions& options) {
    return TableIngestor::Open(*catalog_, ParquetFiles(io_), io_, options);
  }

  SourceUnit Write(const std::string& name, const std::vector<Change>& changes, FileShape shape = {}) {
    floe::Schema schema;
    std::vector<Column> columns;
    auto add = [&](std::string column_name, DataType type) {
      schema.push_back(MakeField(std::move(column_name), type));
      columns.push_back(MakeEmptyColumn(type));
      return columns.size() - 1;
    };
    const size_t id = shape.without_id ? SIZE_MAX : add("id", Int64());
    const size_t seq = add("gwcbi___seqval_hex", String());
    const size_t op = add("gwcbi___operation", shape.operation_string ? String() : Int32());
    const size_t name_column = add("name", String());
    const size_t amount =
        add("amount", shape.amount_string ? String() : (shape.amount_long ? Int64() : Int32()));
    const size_t createtime = add("createtime", Timestamp(TimeUnit::kMicro, false));
    const size_t note = shape.with_note ? add("note", String()) : SIZE_MAX;
    for (const Change& c : changes) {
      if (id != SIZE_MAX) columns[id].AppendValue<int64_t>(c.id);
      columns[seq].AppendBytes(c.seq);
      if (shape.operation_string) {
        columns[op].AppendBytes(std::to_string(c.op));
      } else {
        columns[op].AppendValue<int32_t>(c.op);
      }
      columns[name_column].AppendBytes(c.name);
      if (shape.amount_string) {
        columns[amount].AppendBytes("x" + std::to_string(c.amount));
      } else if (shape.amount_long) {
        columns[amount].AppendValue<int64_t>(c.amount);
      } else {
        columns[amount].AppendValue<int32_t>(static_cast<int32_t>(c.amount));
      }
      columns[createtime].AppendValue<int64_t>(c.createtime_us);
      if (note != SIZE_MAX) columns[note].AppendBytes(c.note);
    }
    return WriteColumns(name, schema, std::move(columns), static_cast<int64_t>(changes.size()),
                        shape.row_group_rows);
  }

  SourceUnit WriteColumns(const std::string& name, const floe::Schema& schema, std::vector<Column> columns,
                          int64_t rows, int64_t row_group_rows = 0) {
    const std::string path = dir_.File("src/" + name);
    auto out = io_->Create(path);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    parquet::ParquetWriterOptions options;
    if (row_group_rows > 0) options.row_group_max_rows = row_group_rows;
    auto writer = parquet::ParquetFileWriter::Open(std::move(out).value(), schema, options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    RecordBatch batch{schema, std::move(columns), rows};
    EXPECT_OK((*writer)->Write(batch));
    auto closed = (*writer)->Close();
    EXPECT_TRUE(closed.ok()) << closed.status().ToString();
    SourceUnit file;
    file.uri = path;
    file.table = "account";
    file.size = static_cast<int64_t>(fs::file_size(path));
    file.mtime_ms = 1'600'000'000'000;
    file.order_key = name;
    return file;
  }

  SourceUnit WriteGarbage(const std::string& name) {
    const std::string path = dir_.File("src/" + name);
    EXPECT_OK(io_->WriteAll(path, std::string("PAR1 this is not a parquet file PAR1")));
    SourceUnit file;
    file.uri = path;
    file.table = "account";
    file.size = static_cast<int64_t>(fs::file_size(path));
    return file;
  }

  iceberg::TableMetadata Metadata() {
    auto ops = catalog_->LoadTable(Options().table);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto loaded = (*ops)->Load();
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return loaded->metadata;
  }

  // The table's live rows keyed by id, every column rendered as text.
  TableRows Scan() {
    TableRows rows;
    auto scan = iceberg::TableScan::Make(Metadata(), io_);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      if (!reader.ok()) continue;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_TRUE(batch.ok()) << batch.status().ToString();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        size_t id_column = 0;
        for (size_t c = 0; c < b.schema.size(); ++c) {
          if (b.schema[c].name == "id") id_column = c;
        }
        for (int64_t r = 0; r < b.num_rows; ++r) {
          const int64_t id = b.columns[id_column].Value<int64_t>(r);
          EXPECT_EQ(rows.count(id), 0u) << "id " << id << " is live twice";
          for (size_t c = 0; c < b.schema.size(); ++c) rows[id][b.schema[c].name] = Cell(b.columns[c], r);
        }
      }
    }
    return rows;
  }

  std::map<int64_t, std::string> LiveNames() {
    std::map<int64_t, std::string> names;
    for (const auto& [id, row] : Scan()) names[id] = row.at("name");
    return names;
  }

  std::vector<iceberg::ManifestEntry> LiveEntries() {
    const iceberg::TableMetadata metadata = Metadata();
    auto entries = iceberg::LiveEntries(*io_, metadata, *metadata.CurrentSnapshot());
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    return entries.ok() ? *entries : std::vector<iceberg::ManifestEntry>{};
  }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
  std::unique_ptr<catalog::Catalog> catalog_;
};

using Names = std::map<int64_t, std::string>;

TEST_F(TableIngestorTest, NewestChangeWinsWithinABatch) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  // Several changes per id inside one file and across files, in any order.
  auto a = Write("a.parquet", {{1, "5", 0, "one-v5"}, {1, "3", 4, "one-v3"}, {2, "1", 0, "two-v1"}});
  auto b = Write("b.parquet", {{1, "4", 4, "one-v4"}, {2, "2", 4, "two-v2"}, {3, "9", 0, "three"}});
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({a, b}, 1));
  ASSERT_TRUE(result.snapshot_id.has_value());
  EXPECT_TRUE(result.quarantined.empty());
  EXPECT_EQ(LiveNames(), (Names{{1, "one-v5"}, {2, "two-v2"}, {3, "three"}}));
  EXPECT_EQ(result.counts.files, 2);
  EXPECT_EQ(result.counts.rows_read, 6);
  EXPECT_EQ(result.counts.inserted, 3);
  EXPECT_EQ(result.counts.updated, 0);
  EXPECT_EQ(result.counts.stale, 3);
  EXPECT_EQ(result.counts.data_files_written, 1);

  const iceberg::TableMetadata metadata = Metadata();
  const iceberg::Snapshot* snapshot = metadata.CurrentSnapshot();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->snapshot_id, *result.snapshot_id);
  EXPECT_EQ(snapshot->summary.at("floe.pipeline"), "p1");
  EXPECT_EQ(snapshot->summary.at("floe.batch-id"), "1");
  EXPECT_EQ(snapshot->summary.at("floe.source-files"), "2");
  EXPECT_EQ(snapshot->summary.at("floe.rows-inserted"), "3");
  EXPECT_EQ(snapshot->summary.at("floe.rows-stale"), "3");
  EXPECT_EQ(metadata.properties.at("write.parquet.compression-codec"), "snappy");
  // The merge key is recorded as the table's identifier fields (issue 15
  // item 8; before, the table had none and a changed key went unnoticed),
  // so the key column is required; the other columns stay optional.
  const iceberg::Schema& schema = *metadata.CurrentSchema();
  ASSERT_EQ(schema.identifier_field_ids.size(), 1u);
  EXPECT_EQ(schema.FindNameById(schema.identifier_field_ids[0]), "id");
  for (const iceberg::NestedField& field : schema.fields)
    EXPECT_EQ(field.required, field.name == "id") << field.name;
}

TEST_F(TableIngestorTest, EqualOrderingValuesLaterRowWinsInBatchButStaleAgainstTable) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  auto a = Write("a.parquet", {{1, "5", 0, "first"}});
  auto b = Write("b.parquet", {{1, "5", 4, "second"}});
  ASSERT_OK(ingestor->ApplyBatch({a, b}, 1).status());
  EXPECT_EQ(LiveNames(), (Names{{1, "second"}}));
  auto c = Write("c.parquet", {{1, "5", 4, "third"}});
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({c}, 2));
  EXPECT_FALSE(result.snapshot_id.has_value());
  EXPECT_EQ(result.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "second"}}));
}

TEST_F(TableIngestorTest, NewestWinsAcrossBatchesWithPositionDeletes) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(
      ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a1"}, {2, "2", 0, "b1"}, {3, "3", 0, "c1"}})}, 1)
          .status());
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({Write("b.parquet", {{2, "a", 4, "b2"}, {3, "b", 1, ""}})}, 2));
  ASSERT_TRUE(result.snapshot_id.has_value());
  EXPECT_EQ(result.counts.updated, 1);
  EXPECT_EQ(result.counts.deleted, 1);
  EXPECT_EQ(result.counts.delete_files_written, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a1"}, {2, "b2"}}));
  const iceberg::TableMetadata metadata = Metadata();
  EXPECT_EQ(metadata.CurrentSnapshot()->summary.at("floe.rows-deleted"), "1");
  EXPECT_EQ(metadata.CurrentSnapshot()->operation(), "overwrite");
  int position_delete_files = 0;
  for (const auto& entry : LiveEntries()) {
    EXPECT_NE(entry.data_file.content, iceberg::DataFileContent::kEqualityDeletes);
    if (entry.data_file.content == iceberg::DataFileContent::kPositionDeletes) {
      ++position_delete_files;
      EXPECT_EQ(entry.data_file.record_count, 2);
    }
  }
  EXPECT_EQ(position_delete_files, 1);
}

TEST_F(TableIngestorTest, OutOfOrderArrivalKeepsTheNewerRow) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "20", 4, "newer"}})}, 1).status());
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({Write("b.parquet", {{1, "10", 0, "older"}})}, 2));
  EXPECT_FALSE(result.snapshot_id.has_value());
  EXPECT_EQ(result.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "newer"}}));
}

TEST_F(TableIngestorTest, DeleteIsFinalUntilANewerChange) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "10", 0, "a"}, {2, "10", 0, "b"}})}, 1).status());
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{1, "20", 1, ""}})}, 2).status());
  EXPECT_EQ(LiveNames(), (Names{{2, "b"}}));
  // A late, older insert must not resurrect the row.
  ASSERT_OK_AND_ASSIGN(BatchResult late,
                       ingestor->ApplyBatch({Write("c.parquet", {{1, "15", 0, "late"}})}, 3));
  EXPECT_FALSE(late.snapshot_id.has_value());
  EXPECT_EQ(late.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{2, "b"}}));
  // A newer insert brings it back.
  ASSERT_OK_AND_ASSIGN(BatchResult back,
                       ingestor->ApplyBatch({Write("d.parquet", {{1, "30", 0, "again"}})}, 4));
  EXPECT_EQ(back.counts.inserted, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "again"}, {2, "b"}}));
}

TEST_F(TableIngestorTest, DeleteOfAnAbsentKeyLeavesATombstoneWithoutASnapshot) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "10", 0, "a"}})}, 1).status());
  const int64_t first_snapshot = *Metadata().current_snapshot_id;
  ASSERT_OK_AND_ASSIGN(BatchResult deleted,
                       ingestor->ApplyBatch({Write("b.parquet", {{7, "50", 1, ""}})}, 2));
  EXPECT_FALSE(deleted.snapshot_id.has_value());
  EXPECT_EQ(deleted.counts.ignored, 1);
  EXPECT_EQ(*Metadata().current_snapshot_id, first_snapshot);
  // A restarted ingestor still knows the tombstone.
  ingestor.reset();
  ASSERT_OK_AND_ASSIGN(ingestor, Open(Options()));
  ASSERT_OK_AND_ASSIGN(BatchResult late,
                       ingestor->ApplyBatch({Write("c.parquet", {{7, "40", 0, "late"}})}, 3));
  EXPECT_EQ(late.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}}));
}

TEST_F(TableIngestorTest, BeforeImagesAreIgnored) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK_AND_ASSIGN(
      BatchResult result,
      ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {1, "9", 3, "before"}})}, 1));
  EXPECT_EQ(result.counts.ignored, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}}));
}

TEST_F(TableIngestorTest, HexOrderingComparesPaddedValues) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  // "100" > "ff" once padded, although it sorts lower as text.
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "100", 4, "hex-100"}, {1, "ff", 0, "hex-ff"}})}, 1)
                .status());
  EXPECT_EQ(LiveNames(), (Names{{1, "hex-100"}}));
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{1, "FF", 4, "late-ff"}})}, 2).status());
  EXPECT_EQ(LiveNames(), (Names{{1, "hex-100"}}));
  ASSERT_OK(ingestor->ApplyBatch({Write("c.parquet", {{1, "0000000000101", 4, "hex-101"}})}, 3).status());
  EXPECT_EQ(LiveNames(), (Names{{1, "hex-101"}}));
}

TEST_F(TableIngestorTest, SchemaEvolvesInTheSameSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a", 5}})}, 1).status());
  const int32_t first_schema = Metadata().current_schema_id;
  FileShape wider;
  wider.amount_long = true;
  wider.with_note = true;
  ASSERT_OK_AND_ASSIGN(
      BatchResult result,
      ingestor->ApplyBatch({Write("b.parquet", {{2, "2", 0, "b", int64_t{1} << 40, 0, "hello"}}, wider)}, 2));
  ASSERT_TRUE(result.snapshot_id.has_value());
  const iceberg::TableMetadata metadata = Metadata();
  EXPECT_NE(metadata.current_schema_id, first_schema);
  EXPECT_EQ(metadata.CurrentSnapshot()->schema_id, metadata.current_schema_id);
  const iceberg::Schema& schema = *metadata.CurrentSchema();
  ASSERT_NE(schema.FindFieldByName("note"), nullptr);
  EXPECT_EQ(schema.FindFieldByName("amount")->type.kind, iceberg::TypeKind::kLong);
  // Exactly one new snapshot carried both the data and the schema change.
  EXPECT_EQ(metadata.snapshots.size(), 2u);
  TableRows rows = Scan();
  EXPECT_EQ(rows[1]["amount"], "5");
  EXPECT_EQ(rows[1]["note"], "null");
  EXPECT_EQ(rows[2]["amount"], std::to_string(int64_t{1} << 40));
  EXPECT_EQ(rows[2]["note"], "hello");
  // An older-shaped file still loads into the wider table.
  ASSERT_OK(ingestor->ApplyBatch({Write("c.parquet", {{3, "3", 0, "c", 7}})}, 3).status());
  EXPECT_EQ(Scan()[3]["amount"], "7");
}

TEST_F(TableIngestorTest, IncompatibleColumnIsRescued) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a", 5}})}, 1).status());
  FileShape text;
  text.amount_string = true;
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({Write("b.parquet", {{2, "2", 0, "b", 6}}, text)}, 2));
  EXPECT_TRUE(result.quarantined.empty());
  TableRows rows = Scan();
  EXPECT_EQ(rows[2]["amount"], "null");
  EXPECT_NE(rows[2][kRescuedDataColumn].find("x6"), std::string::npos) << rows[2][kRescuedDataColumn];
  EXPECT_EQ(rows[1][kRescuedDataColumn], "null");
}

TEST_F(TableIngestorTest, IncompatibleColumnUnderQuarantineAndFailPolicies) {
  TableIngestorOptions options = Options();
  options.settings.schema.on_incompatible = IncompatiblePolicy::kQuarantine;
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a", 5}})}, 1).status());
  FileShape text;
  text.amount_string = true;
  auto bad = Write("b.parquet", {{2, "2", 0, "b", 6}}, text);
  auto good = Write("c.parquet", {{3, "3", 0, "c", 7}});
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({bad, good}, 2));
  ASSERT_EQ(result.quarantined.size(), 1u);
  EXPECT_EQ(result.quarantined[0].uri, bad.uri);
  EXPECT_NE(result.quarantined[0].reason.find("amount"), std::string::npos) << result.quarantined[0].reason;
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {3, "c"}}));

  options.settings.schema.on_incompatible = IncompatiblePolicy::kFail;
  ASSERT_OK_AND_ASSIGN(auto failing, Open(options));
  auto good2 = Write("d.parquet", {{4, "4", 0, "d", 8}});
  auto result2 = failing->ApplyBatch({good2, bad}, 3);
  ASSERT_FALSE(result2.ok());
  EXPECT_NE(result2.status().message().find("amount"), std::string::npos) << result2.status().ToString();
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {3, "c"}}));
}

TEST_F(TableIngestorTest, BadFilesAreQuarantinedAndTheRestCommits) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  FileShape no_key;
  no_key.without_id = true;
  auto corrupt = WriteGarbage("corrupt.parquet");
  auto missing_key = Write("nokey.parquet", {{9, "1", 0, "x"}}, no_key);
  auto unknown_op = Write("badop.parquet", {{8, "1", 0, "ok"}, {8, "2", 7, "bad"}});
  FileShape op_text;
  op_text.operation_string = true;
  auto text_op = Write("textop.parquet", {{6, "1", 0, "x"}}, op_text);
  auto good = Write("good.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}});
  int progress_calls = 0;
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({corrupt, missing_key, unknown_op, text_op, good}, 1,
                                            [&](const std::string&, int64_t, int64_t) { ++progress_calls; }));
  ASSERT_TRUE(result.snapshot_id.has_value());
  EXPECT_EQ(progress_calls, 1);
  EXPECT_EQ(result.counts.files, 1);
  ASSERT_EQ(result.quarantined.size(), 4u);
  std::map<std::string, std::string> reasons;
  for (const auto& q : result.quarantined) reasons[q.uri] = q.reason;
  EXPECT_FALSE(reasons[corrupt.uri].empty());
  EXPECT_NE(reasons[missing_key.uri].find("key column id"), std::string::npos) << reasons[missing_key.uri];
  EXPECT_NE(reasons[unknown_op.uri].find("gwcbi___operation"), std::string::npos) << reasons[unknown_op.uri];
  EXPECT_NE(reasons[unknown_op.uri].find("row 1"), std::string::npos) << reasons[unknown_op.uri];
  EXPECT_NE(reasons[unknown_op.uri].find("unknown operation code 7"), std::string::npos);
  EXPECT_NE(reasons[text_op.uri].find("gwcbi___operation"), std::string::npos) << reasons[text_op.uri];
  for (const auto& [uri, reason] : reasons) EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {2, "b"}}));
}

TEST_F(TableIngestorTest, AllFilesQuarantinedCommitsNothingAndCreatesNoTable) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({WriteGarbage("x.parquet")}, 1));
  EXPECT_FALSE(result.snapshot_id.has_value());
  EXPECT_EQ(result.quarantined.size(), 1u);
  EXPECT_EQ(catalog_->LoadTable(Options().table).status().kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(BatchResult empty, ingestor->ApplyBatch({}, 2));
  EXPECT_FALSE(empty.snapshot_id.has_value());
}

TEST_F(TableIngestorTest, FormatV3MergesDeletionVectors) {
  TableIngestorOptions options = Options();
  options.settings.target.format_version = 3;
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  ASSERT_OK(
      ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}, {3, "1", 0, "c"}})}, 1)
          .status());
  std::string first_data_file;
  for (const auto& entry : LiveEntries()) first_data_file = entry.data_file.file_path;
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{1, "2", 4, "a2"}})}, 2).status());
  ASSERT_OK_AND_ASSIGN(BatchResult third, ingestor->ApplyBatch({Write("c.parquet", {{3, "2", 1, ""}})}, 3));
  EXPECT_EQ(third.counts.delete_files_written, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a2"}, {2, "b"}}));
  // One vector for the first data file, holding both deleted positions.
  int vectors = 0;
  for (const auto& entry : LiveEntries()) {
    const iceberg::DataFile& file = entry.data_file;
    EXPECT_NE(file.content, iceberg::DataFileContent::kEqualityDeletes);
    if (file.content != iceberg::DataFileContent::kPositionDeletes) continue;
    EXPECT_TRUE(iceberg::IsDeletionVector(file));
    ++vectors;
    EXPECT_EQ(file.referenced_data_file.value_or(""), first_data_file);
    EXPECT_EQ(file.record_count, 2);
  }
  EXPECT_EQ(vectors, 1);
  EXPECT_EQ(Metadata().format_version, 3);
}

TEST_F(TableIngestorTest, AppendModeKeepsEveryRowButBeforeImages) {
  TableIngestorOptions options = Options();
  options.settings.merge.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 3, "skip"}}),
                                             Write("b.parquet", {{3, "2", 4, "b"}, {4, "3", 1, "c"}})},
                                            1));
  EXPECT_EQ(result.counts.inserted, 3);
  EXPECT_EQ(result.counts.ignored, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {3, "b"}, {4, "c"}}));
  // Duplicate keys are appended, not merged.
  ASSERT_OK(ingestor->ApplyBatch({Write("c.parquet", {{5, "9", 4, "x"}})}, 2).status());
  EXPECT_EQ(Scan().size(), 4u);
  EXPECT_EQ(LiveEntries().size(), 2u);
}

TEST_F(TableIngestorTest, LineageColumnsDescribeTheSource) {
  TableIngestorOptions options = Options();
  options.settings.lineage = LineageConfig{true, true, true, true};
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  auto file = Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}, {1, "2", 4, "a2"}});
  ASSERT_OK(ingestor->ApplyBatch({file}, 1).status());
  TableRows rows = Scan();
  EXPECT_EQ(rows[1][kLineageSourceFile], file.uri);
  EXPECT_EQ(rows[1][kLineageSourceRow], "2");
  EXPECT_EQ(rows[2][kLineageSourceRow], "1");
  EXPECT_EQ(rows[2][kLineageSourceModified], std::to_string(int64_t{1'600'000'000'000} * 1000));
  EXPECT_EQ(rows[2][kLineageIngestedAt], std::to_string(int64_t{1'700'000'000'000} * 1000));
  const iceberg::TableMetadata metadata = Metadata();
  const iceberg::NestedField* modified = metadata.CurrentSchema()->FindFieldByName(kLineageSourceModified);
  ASSERT_NE(modified, nullptr);
  EXPECT_EQ(modified->type.kind, iceberg::TypeKind::kTimestampTz);
}

TEST_F(TableIngestorTest, PartitionedByDayWritesOneFilePerPartition) {
  TableIngestorOptions options = Options();
  options.settings.target.partition_by = {"day(createtime)"};
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  const int64_t day_us = int64_t{86'400} * 1'000'000;
  ASSERT_OK(ingestor
                ->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a", 0, 10 * day_us},
                                                  {2, "1", 0, "b", 0, 11 * day_us + 5},
                                                  {3, "1", 0, "c", 0, 10 * day_us + 7}})},
                             1)
                .status());
  const iceberg::TableMetadata metadata = Metadata();
  ASSERT_EQ(metadata.DefaultSpec()->fields.size(), 1u);
  EXPECT_EQ(metadata.DefaultSpec()->fields[0].name, "createtime_day");
  EXPECT_EQ(LiveEntries().size(), 2u);
  // An update moves a row to another day; the delete file sits in the old row's partition.
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{3, "2", 4, "c2", 0, 12 * day_us}})}, 2).status());
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {2, "b"}, {3, "c2"}}));
  for (const auto& entry : LiveEntries()) {
    if (entry.data_file.content != iceberg::DataFileContent::kPositionDeletes) continue;
    ASSERT_EQ(entry.data_file.partition.size(), 1u);
    EXPECT_EQ(entry.data_file.partition[0].int_value, 10);
    EXPECT_NE(entry.data_file.file_path.find("createtime_day=1970-01-11"), std::string::npos)
        << entry.data_file.file_path;
  }
}

TEST_F(TableIngestorTest, BadPartitionSettingFailsTheBatch) {
  TableIngestorOptions options = Options();
  options.settings.target.partition_by = {"day(nosuchcolumn)"};
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  auto result = ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}})}, 1);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("nosuchcolumn"), std::string::npos) << result.status().ToString();
}

TEST_F(TableIngestorTest, RestartContinuesFromTheSavedIndex) {
  {
    ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
    ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}})}, 1).status());
  }
  const int64_t snapshot = *Metadata().current_snapshot_id;
  EXPECT_TRUE(fs::exists(dir_.File("state/index-" + std::to_string(snapshot) + ".bin")));
  ASSERT_OK_AND_ASSIGN(auto restarted, Open(Options()));
  ASSERT_OK_AND_ASSIGN(
      BatchResult result,
      restarted->ApplyBatch({Write("b.parquet", {{1, "2", 4, "a2"}, {2, "0", 4, "old"}})}, 2));
  EXPECT_EQ(result.counts.updated, 1);
  EXPECT_EQ(result.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a2"}, {2, "b"}}));
}

// A pipeline that never restarts must not keep one key index file per
// commit: after each commit only the new snapshot's file and the previous
// one's remain (the previous one serves tombstones if the newest is damaged).
TEST_F(TableIngestorTest, CommitsKeepOnlyTheNewestTwoIndexFiles) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  std::vector<int64_t> snapshots;
  for (int64_t batch = 1; batch <= 4; ++batch) {
    const std::string seq = std::to_string(batch);
    ASSERT_OK_AND_ASSIGN(BatchResult result,
                         ingestor->ApplyBatch({Write("batch" + seq + ".parquet",
                                                     {{batch, seq, 0, "v" + seq}, {1, seq, 4, "u" + seq}})},
                                              batch));
    ASSERT_TRUE(result.snapshot_id.has_value());
    snapshots.push_back(*result.snapshot_id);
    std::set<std::string> index_files;
    for (const auto& entry : fs::directory_iterator(dir_.File("state"))) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("index-", 0) == 0) index_files.insert(name);
    }
    std::set<std::string> expected{"index-" + std::to_string(snapshots.back()) + ".bin"};
    if (snapshots.size() > 1)
      expected.insert("index-" + std::to_string(snapshots[snapshots.size() - 2]) + ".bin");
    EXPECT_EQ(index_files, expected) << "after batch " << batch;
  }
  EXPECT_EQ(LiveNames(), (Names{{1, "u4"}, {2, "v2"}, {3, "v3"}, {4, "v4"}}));
}

TEST_F(TableIngestorTest, LostIndexIsRebuiltFromTheTable) {
  {
    ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
    ASSERT_OK(
        ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}, {3, "1", 0, "c"}})}, 1)
            .status());
    ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{2, "5", 4, "b2"}})}, 2).status());
  }
  fs::remove_all(dir_.File("state"));
  fs::create_directories(dir_.File("state"));
  ASSERT_OK_AND_ASSIGN(auto restarted, Open(Options()));
  ASSERT_OK_AND_ASSIGN(
      BatchResult result,
      restarted->ApplyBatch({Write("c.parquet", {{2, "4", 4, "stale"}, {3, "2", 4, "c2"}})}, 3));
  EXPECT_EQ(result.counts.stale, 1);
  EXPECT_EQ(result.counts.updated, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {2, "b2"}, {3, "c2"}}));
}

TEST_F(TableIngestorTest, FindCommittedBatchWalksTheHistory) {
  ASSERT_OK_AND_ASSIGN(auto none, FindCommittedBatch(*catalog_, Options().table, "p1", 1));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK_AND_ASSIGN(BatchResult first, ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}})}, 7));
  ASSERT_OK_AND_ASSIGN(BatchResult second, ingestor->ApplyBatch({Write("b.parquet", {{2, "1", 0, "b"}})}, 8));
  ASSERT_OK_AND_ASSIGN(auto found7, FindCommittedBatch(*catalog_, Options().table, "p1", 7));
  ASSERT_OK_AND_ASSIGN(auto found8, FindCommittedBatch(*catalog_, Options().table, "p1", 8));
  ASSERT_OK_AND_ASSIGN(auto other, FindCommittedBatch(*catalog_, Options().table, "p2", 7));
  ASSERT_OK_AND_ASSIGN(auto missing, FindCommittedBatch(*catalog_, Options().table, "p1", 9));
  EXPECT_EQ(found7, first.snapshot_id);
  EXPECT_EQ(found8, second.snapshot_id);
  EXPECT_FALSE(other.has_value());
  EXPECT_FALSE(missing.has_value());
}

TEST_F(TableIngestorTest, ManyRowGroupsAndRollingFiles) {
  TableIngestorOptions options = Options();
  options.settings.target.target_file_size_bytes = 1;  // a new file every size check
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  std::vector<Change> changes;
  for (int64_t i = 0; i < 200; ++i) changes.push_back({i, "1", 0, "v" + std::to_string(i)});
  FileShape groups;
  groups.row_group_rows = 30;
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", changes, groups)}, 1).status());
  // Update every third key, spread over row groups and files.
  std::vector<Change> updates;
  for (int64_t i = 0; i < 200; i += 3) updates.push_back({i, "2", 4, "u" + std::to_string(i)});
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({Write("b.parquet", updates, groups)}, 2));
  EXPECT_EQ(result.counts.updated, static_cast<int64_t>(updates.size()));
  Names names = LiveNames();
  ASSERT_EQ(names.size(), 200u);
  for (int64_t i = 0; i < 200; ++i) {
    EXPECT_EQ(names[i], (i % 3 == 0 ? "u" : "v") + std::to_string(i)) << i;
  }
}

TEST_F(TableIngestorTest, FileFailingInTheSecondPassIsQuarantinedAndTheBatchRedone) {
  auto a = Write("a.parquet", {{1, "1", 0, "from-a"}});
  auto b = Write("b.parquet", {{1, "2", 4, "from-b"}, {2, "1", 0, "b-only"}});
  // b reads fine in pass 1 (where it beats a for id 1) and fails when reopened for pass 2
  // (the first open votes the new table's schema, schema_vote.h).
  auto flaky = std::make_shared<FailingReopenIO>(io_, b.uri, 2);
  ASSERT_OK_AND_ASSIGN(auto ingestor, TableIngestor::Open(*catalog_, ParquetFiles(flaky), io_, Options()));
  std::vector<std::string> progress;
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({a, b}, 1, [&](const std::string& uri, int64_t, int64_t) {
                         progress.push_back(uri);
                       }));
  ASSERT_TRUE(result.snapshot_id.has_value());
  ASSERT_EQ(result.quarantined.size(), 1u);
  EXPECT_EQ(result.quarantined[0].uri, b.uri);
  EXPECT_NE(result.quarantined[0].reason.find("injected read failure"), std::string::npos);
  EXPECT_EQ(result.counts.files, 1);
  EXPECT_EQ(result.counts.inserted, 1);
  EXPECT_EQ(progress, (std::vector<std::string>{a.uri, b.uri}));
  EXPECT_EQ(LiveNames(), (Names{{1, "from-a"}}));
  // The next batch reports its files again (progress is per batch).
  progress.clear();
  auto c = Write("c.parquet", {{3, "1", 0, "c"}});
  ASSERT_OK(
      ingestor->ApplyBatch({c}, 2, [&](const std::string& uri, int64_t, int64_t) { progress.push_back(uri); })
          .status());
  EXPECT_EQ(progress, (std::vector<std::string>{c.uri}));
  EXPECT_EQ(LiveNames(), (Names{{1, "from-a"}, {3, "c"}}));
  // Nothing of the failed attempt is left in the table directory.
  size_t parquet_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_.File("wh"))) {
    if (e.path().extension() == ".parquet") ++parquet_files;
  }
  EXPECT_EQ(parquet_files, 2u);
}

// Regression: a transient storage failure used to quarantine a healthy file.
TEST_F(TableIngestorTest, RetryableReadFailureFailsTheBatchInsteadOfQuarantining) {
  auto a = Write("a.parquet", {{1, "1", 0, "a"}});
  auto b = Write("b.parquet", {{2, "1", 0, "b"}});
  // Failing in pass 1, then only when reopened for pass 2 (the first open of
  // a new table's units votes its schema, schema_vote.h).
  for (int allowed : {0, 2}) {
    auto flaky = std::make_shared<FailingReopenIO>(io_, b.uri, allowed, /*retryable=*/true);
    std::vector<std::string> quarantined;
    TableIngestorOptions options = Options();
    options.on_quarantine = [&](const QuarantinedFile& file) { quarantined.push_back(file.uri); };
    ASSERT_OK_AND_ASSIGN(auto ingestor, TableIngestor::Open(*catalog_, ParquetFiles(flaky), io_, options));
    auto result = ingestor->ApplyBatch({a, b}, 1);
    ASSERT_FALSE(result.ok()) << "allowed " << allowed;
    EXPECT_TRUE(result.status().retryable()) << result.status().ToString();
    EXPECT_NE(result.status().message().find(b.uri), std::string::npos) << result.status().ToString();
    EXPECT_TRUE(quarantined.empty()) << quarantined[0];
  }
  // The same batch redone once the store answers again: both files land.
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({a, b}, 1));
  EXPECT_TRUE(result.quarantined.empty());
  EXPECT_EQ(LiveNames(), (Names{{1, "a"}, {2, "b"}}));
}

// Regression: quarantines were recorded only after the commit, so a crash in
// between left a bad file counted as committed.
TEST_F(TableIngestorTest, QuarantineIsReportedBeforeTheCommit) {
  auto a = Write("a.parquet", {{1, "1", 0, "a"}});
  ASSERT_OK_AND_ASSIGN(auto first, Open(Options()));
  ASSERT_OK_AND_ASSIGN(BatchResult created, first->ApplyBatch({a}, 1));
  ASSERT_TRUE(created.snapshot_id.has_value());

  auto garbage = WriteGarbage("garbage.parquet");
  auto b = Write("b.parquet", {{2, "1", 0, "b"}});
  std::vector<std::optional<int64_t>> snapshot_at_quarantine;
  TableIngestorOptions options = Options();
  options.on_quarantine = [&](const QuarantinedFile& file) {
    EXPECT_EQ(file.uri, garbage.uri);
    snapshot_at_quarantine.push_back(Metadata().current_snapshot_id);
  };
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  ASSERT_OK_AND_ASSIGN(BatchResult result, ingestor->ApplyBatch({garbage, b}, 2));
  ASSERT_TRUE(result.snapshot_id.has_value());
  ASSERT_EQ(snapshot_at_quarantine.size(), 1u);
  EXPECT_EQ(snapshot_at_quarantine[0], created.snapshot_id) << "the batch committed before the quarantine";
  ASSERT_EQ(result.quarantined.size(), 1u);
}

TEST_F(TableIngestorTest, ForeignCommitMakesTheIndexReload) {
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}})}, 1).status());
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{2, "1", 0, "b"}})}, 2).status());
  // Someone else removes the first data file (say, a retention job).
  std::string first_file;
  for (const auto& entry : LiveEntries()) {
    if (entry.data_file.file_path.find("/b1-") != std::string::npos) first_file = entry.data_file.file_path;
  }
  ASSERT_FALSE(first_file.empty());
  {
    ASSERT_OK_AND_ASSIGN(auto ops, catalog_->LoadTable(Options().table));
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
    ASSERT_OK(table.NewDeleteFiles().DeleteFile(first_file).Commit().status());
  }
  // The ingestor's index still points at the removed file; it must notice and rebuild.
  ASSERT_OK_AND_ASSIGN(BatchResult result,
                       ingestor->ApplyBatch({Write("c.parquet", {{1, "2", 4, "a2"}, {2, "2", 4, "b2"}})}, 3));
  EXPECT_EQ(result.counts.inserted, 1);
  EXPECT_EQ(result.counts.updated, 1);
  EXPECT_EQ(LiveNames(), (Names{{1, "a2"}, {2, "b2"}}));
}

TEST_F(TableIngestorTest, FormatV3ReplacesOneVectorOfASharedPuffinFile) {
  TableIngestorOptions options = Options();
  options.settings.target.format_version = 3;
  ASSERT_OK_AND_ASSIGN(auto ingestor, Open(options));
  ASSERT_OK(ingestor->ApplyBatch({Write("a.parquet", {{1, "1", 0, "a"}, {2, "1", 0, "b"}})}, 1).status());
  ASSERT_OK(ingestor->ApplyBatch({Write("b.parquet", {{3, "1", 0, "c"}, {4, "1", 0, "d"}})}, 2).status());
  // One batch deletes from both data files: one Puffin file, two vectors.
  ASSERT_OK(ingestor->ApplyBatch({Write("c.parquet", {{1, "2", 4, "a2"}, {3, "2", 4, "c2"}})}, 3).status());
  // The next touches only the first data file's vector.
  ASSERT_OK(ingestor->ApplyBatch({Write("d.parquet", {{2, "2", 1, ""}})}, 4).status());
  EXPECT_EQ(LiveNames(), (Names{{1, "a2"}, {3, "c2"}, {4, "d"}}));
  std::map<std::string, int64_t> vectors;  // referenced data file -> cardinality
  for (const auto& entry : LiveEntries()) {
    if (entry.data_file.content != iceberg::DataFileContent::kPositionDeletes) continue;
    EXPECT_EQ(vectors.count(*entry.data_file.referenced_data_file), 0u);
    vectors[*entry.data_file.referenced_data_file] = entry.data_file.record_count;
  }
  ASSERT_EQ(vectors.size(), 2u);
  std::vector<int64_t> counts;
  for (const auto& [file, count] : vectors) counts.push_back(count);
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<int64_t>{1, 2}));
}

TEST_F(TableIngestorTest, TombstoneBeforeTheFirstSnapshotSurvivesARestart) {
  {
    ASSERT_OK_AND_ASSIGN(auto ingestor, Open(Options()));
    ASSERT_OK_AND_ASSIGN(BatchResult result,
                         ingestor->ApplyBatch({Write("a.parquet", {{5, "9", 1, ""}})}, 1));
    EXPECT_FALSE(result.snapshot_id.has_value());
    EXPECT_EQ(result.counts.ignored, 1);
  }
  ASSERT_OK_AND_ASSIGN(auto restarted, Open(Options()));
  ASSERT_OK_AND_ASSIGN(
      BatchResult result,
      restarted->ApplyBatch({Write("b.parquet", {{5, "3", 0, "late"}, {6, "1", 0, "x"}})}, 2));
  EXPECT_EQ(result.counts.stale, 1);
  EXPECT_EQ(LiveNames(), (Names{{6, "x"}}));
}

TEST_F(TableIngestorTest, OpenRejectsBadSettings) {
  TableIngestorOptions options = Options();
  options.settings.target.codec = "rar";
  EXPECT_EQ(Open(options).status().kind(), ErrorKind::kInvalidArgument);
  options = Options();
  options.settings.merge.keys.clear();
  EXPECT_EQ(Open(options).status().kind(), ErrorKind::kInvalidArgument);
  options = Options();
  options.settings.target.format_version = 1;
  EXPECT_EQ(Open(options).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::ingest
