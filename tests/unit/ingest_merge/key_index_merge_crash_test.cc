// A kill -9 during a background key index merge loses nothing (issue 23).
// A real Iceberg table (SQLite catalog, Parquet data and position delete
// files) takes three batches whose index runs leave a merge due; then, in a
// child process, the index is loaded, the merge runs on its background
// thread and is adopted (the current snapshot's manifest rewritten, the
// merged-away runs and the previous manifest deleted), and a fourth batch
// commits (its run and manifest prepared before the table commit, published
// after, merges again). The child dies at one call of the state directory's
// I/O, with the write of that call lost: one case per call of the default
// spread (fault_test_util.h; FLOE_FAULT_ALL=1 runs every call). Afterwards
// the index loaded for the snapshot the table holds equals a rebuild from
// the table (the same live row of every key; a key the table lacks is absent
// or a tombstone), the table holds each key once, as the batches say, and
// two more batches through that index commit and merge correctly (checked
// the same way). The sibling key_index_fault_test faults the same
// operations against a fake table, where a lost file cannot be rebuilt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "catalog/table/catalog.h"
#include "fault_test_util.h"
#include "iceberg/transaction/row_delta.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "ingest/merge/key_index.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using floe::testing::FaultCase;
using floe::testing::FaultCoverage;
using floe::testing::FaultMode;

constexpr FaultCoverage kCoverage{.max_calls = 300, .stride = 8, .slots = 24};

// key -> the batch that wrote its live row (its ordering value): what the table must hold.
using Model = std::map<int64_t, int>;

std::string Seq(int batch) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%04x", batch);
  return hex;
}

OrderValue OrderOf(int batch) {
  Column c(String());
  c.AppendBytes(Seq(batch));
  auto v = OrderValueAt(c, 0, OrderingKind::kPaddedHex, "seq");
  return v.ok() ? *v : OrderValue{};
}

const KeyIndexSpec& Spec() {
  static const KeyIndexSpec spec{{"id"}, "seq", OrderingKind::kPaddedHex};
  return spec;
}

// The keys batch `n` changes (deterministic given the model): the first
// inserts 300 keys; later ones update 40 keys, delete 10 and insert 20.
struct BatchKeys {
  std::vector<int64_t> updated, deleted, inserted;
};

BatchKeys Choose(int n, const Model& model) {
  BatchKeys keys;
  if (model.empty()) {
    for (int64_t key = 0; key < 300; ++key) keys.inserted.push_back(key);
    return keys;
  }
  std::vector<int64_t> existing;
  for (const auto& [key, batch] : model) existing.push_back(key);
  std::mt19937_64 random(static_cast<uint64_t>(n));
  std::shuffle(existing.begin(), existing.end(), random);
  keys.updated.assign(existing.begin(), existing.begin() + 40);
  keys.deleted.assign(existing.begin() + 40, existing.begin() + 50);
  for (int64_t i = 0; i < 20; ++i) keys.inserted.push_back(model.rbegin()->first + 1 + i);
  return keys;
}

void Apply(const BatchKeys& keys, int n, Model& model) {
  for (int64_t key : keys.updated) model[key] = n;
  for (int64_t key : keys.inserted) model[key] = n;
  for (int64_t key : keys.deleted) model.erase(key);
}

// One test's catalog, warehouse and state directory under `root`.
class Fixture {
 public:
  explicit Fixture(std::string root) : root_(std::move(root)) { std::filesystem::create_directories(root_); }

  std::string state() const { return root_ + "/state"; }

  Result<iceberg::Table> OpenTable(bool create = false) {
    FLOE_ASSIGN_OR_RETURN(catalog_, catalog::OpenSqlCatalog("sqlite://" + root_ + "/c.db", root_ + "/wh"));
    if (create) {
      FLOE_RETURN_IF_ERROR(catalog_->CreateNamespace({"db"}, {}));
      catalog::TableCreation creation;
      using iceberg::MakeNestedField, iceberg::PrimitiveType, iceberg::TypeKind;
      creation.schema.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
      creation.schema.fields.push_back(MakeNestedField(2, "seq", PrimitiveType(TypeKind::kString), true));
      creation.format_version = 2;
      FLOE_ASSIGN_OR_RETURN(auto ops, catalog_->CreateTable({{"db"}, "t"}, creation));
      return iceberg::Table::Load(ops);
    }
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog_->LoadTable({{"db"}, "t"}));
    return iceberg::Table::Load(ops);
  }

  // Commits batch `n` (Choose). The old rows of the updated and deleted keys are found through `index` and
  // position-deleted; the index is saved around the commit as floe does (Prepare, commit, Publish). The model
  // changes only when the table commit succeeded.
  Status CommitBatch(iceberg::Table& table, PrimaryKeyIndex& index, int n, Model& model) {
    const BatchKeys chosen = Choose(n, model);
    const std::vector<int64_t>& updated = chosen.updated;
    const std::vector<int64_t>& deleted = chosen.deleted;
    const std::vector<int64_t>& inserted = chosen.inserted;
    // The old rows.
    std::vector<KeyId> old_keys;
    for (int64_t key : updated) old_keys.push_back({0, static_cast<uint64_t>(key)});
    for (int64_t key : deleted) old_keys.push_back({0, static_cast<uint64_t>(key)});
    std::vector<std::optional<PrimaryKeyIndex::Entry>> old;
    FLOE_RETURN_IF_ERROR(index.FindMany(old_keys, &old));
    std::map<std::string, std::vector<int64_t>> deletes;
    for (size_t i = 0; i < old.size(); ++i) {
      if (!old[i] || old[i]->tombstone)
        return Status::Internal("key " + std::to_string(old_keys[i].lo) + " lost");
      deletes[std::string(old[i]->data_file)].push_back(old[i]->position);
    }
    // The new rows, and their index entries.
    std::vector<int64_t> written = updated;
    written.insert(written.end(), inserted.begin(), inserted.end());
    const std::string data_path = root_ + "/wh/db/t/data/b" + std::to_string(n) + ".parquet";
    RecordBatch rows;
    FLOE_ASSIGN_OR_RETURN(rows.schema, iceberg::ToFloeSchema(*table.metadata().CurrentSchema()));
    Column id(Int64()), seq(String());
    KeyIndexDelta delta;
    for (size_t i = 0; i < written.size(); ++i) {
      id.AppendValue(written[i]);
      seq.AppendBytes(Seq(n));
      delta.PutLive({0, static_cast<uint64_t>(written[i])}, data_path, static_cast<int64_t>(i), OrderOf(n));
    }
    for (int64_t key : deleted)
      delta.PutTombstone({0, static_cast<uint64_t>(key)}, OrderOf(n), 1'700'000'000'000);
    rows.columns = {id, seq};
    rows.num_rows = static_cast<int64_t>(written.size());
    FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::DataFileWriter::Open(
                                           table.io(), data_path, *table.metadata().CurrentSchema(), {}, {}));
    FLOE_RETURN_IF_ERROR(writer->Write(rows));
    FLOE_ASSIGN_OR_RETURN(iceberg::DataFile data, writer->Close());
    auto commit = table.NewRowDelta();
    commit.AddRows(data);
    if (!deletes.empty()) {
      FLOE_ASSIGN_OR_RETURN(
          auto deleter, iceberg::PositionDeleteWriter::Open(
                            table.io(), root_ + "/wh/db/t/data/d" + std::to_string(n) + ".parquet", {}, {}));
      for (auto& [file, positions] : deletes) {
        std::sort(positions.begin(), positions.end());
        for (int64_t position : positions) FLOE_RETURN_IF_ERROR(deleter->Delete(file, position));
      }
      FLOE_ASSIGN_OR_RETURN(iceberg::DataFile delete_file, deleter->Close());
      commit.AddDeletes(delete_file);
    }
    FLOE_ASSIGN_OR_RETURN(PrimaryKeyIndex::PendingSave saved,
                          index.Prepare(std::move(delta), commit.snapshot_id()));
    auto committed = commit.Commit();
    if (!committed.ok()) {
      index.Discard(saved);
      return committed.status();
    }
    index.Publish(saved);
    Apply(chosen, n, model);
    return Status::OK();
  }

  // Three batches, merges never run: the third leaves one due. Returns the model.
  Model Setup() {
    Model model;
    auto table = OpenTable(/*create=*/true);
    EXPECT_OK(table.status());
    if (!table.ok()) return model;
    PrimaryKeyIndex index(MakeLocalFileIO(), state());
    index.SetBackgroundMerges(false);
    for (int n = 1; n <= 3; ++n) EXPECT_OK(CommitBatch(*table, index, n, model));
    catalog_.reset();
    return model;
  }

  // The operation a kill -9 interrupts: load, the due merge on the
  // background thread and its adoption, batch 4 and the merges after it.
  // `state_io` carries the faults; the table's I/O does not.
  void Operation(std::shared_ptr<FileIO> state_io, Model model) {
    auto table = OpenTable();
    if (!table.ok()) return;
    auto index = PrimaryKeyIndex::Load(state_io, state(), table->metadata(), table->io(), Spec());
    if (!index.ok()) return;
    index->SetBackgroundMerges(true);
    index->AdoptFinishedMerge();         // starts the due merge on its thread
    index->FinishMerges(/*all=*/false);  // waits for it and adopts it
    if (!CommitBatch(*table, *index, 4, model).ok()) return;
    index->FinishMerges(/*all=*/true);
  }

 private:
  std::string root_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

// Every key the model or the table ever had, 0..max.
std::vector<KeyId> AllKeys(int64_t max) {
  std::vector<KeyId> keys;
  for (int64_t key = 0; key <= max; ++key) keys.push_back({0, static_cast<uint64_t>(key)});
  return keys;
}

// `index` equals a rebuild from `table` (into an empty directory), and the rebuild holds `model`.
void ExpectEqualsARebuild(const PrimaryKeyIndex& index, iceberg::Table& table, const Model& model,
                          const std::string& empty_dir) {
  auto io = MakeLocalFileIO();
  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex rebuilt,
                       PrimaryKeyIndex::Load(io, empty_dir, table.metadata(), table.io(), Spec(), &warnings));
  bool was_rebuilt = false;
  for (const std::string& w : warnings) {
    EXPECT_EQ(w.find("more than one live row"), std::string::npos) << w;
    was_rebuilt = was_rebuilt || w.find("rebuilt from the table") != std::string::npos;
  }
  ASSERT_TRUE(was_rebuilt) << "the comparison needs a rebuild, not an index read back";
  const std::vector<KeyId> keys = AllKeys(model.empty() ? 0 : model.rbegin()->first + 100);
  std::vector<std::optional<PrimaryKeyIndex::Entry>> got, want;
  ASSERT_OK(index.FindMany(keys, &got));
  ASSERT_OK(rebuilt.FindMany(keys, &want));
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto key = static_cast<int64_t>(keys[i].lo);
    const bool live = want[i] && !want[i]->tombstone;
    ASSERT_EQ(live, model.count(key) == 1) << "key " << key << ": the table and the batches disagree";
    if (live) {
      ASSERT_TRUE(got[i] && !got[i]->tombstone) << "key " << key << " lost from the index";
      EXPECT_EQ(got[i]->data_file, want[i]->data_file) << key;
      EXPECT_EQ(got[i]->position, want[i]->position) << key;
      EXPECT_EQ(got[i]->order, OrderOf(model.at(key))) << key;
    } else {
      EXPECT_TRUE(!got[i] || got[i]->tombstone) << "key " << key << " live in the index, not in the table";
    }
  }
}

class KeyIndexMergeCrashTest : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override { floe::testing::UseTmpfsForTempDirs(); }

  std::vector<std::string> FaultFreeCalls() {
    Fixture fault_free(dir_.File("fault-free"));
    Model model = fault_free.Setup();
    auto faults = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
    fault_free.Operation(faults, model);
    return faults->CallLog();
  }

  testing::TempDir dir_;
};

TEST_P(KeyIndexMergeCrashTest, TheIndexEqualsARebuildAndTheNextBatchesMerge) {
  const FaultCase& c = GetParam();
  const std::vector<std::string> calls = FaultFreeCalls();
  SCOPED_TRACE(floe::testing::FaultTrace(c, calls, kCoverage));
  Fixture fixture(dir_.File("case"));
  Model model = fixture.Setup();
  if (HasFailure()) return;
  floe::testing::InjectFault(c, calls, kCoverage, [&](FaultInjectingFileIO& faults, FaultPlan plan) {
    faults.Reset(std::move(plan));
    fixture.Operation(faults.Wrap(MakeLocalFileIO()), model);
  });
  if (IsSkipped() || HasFailure()) return;

  ASSERT_OK_AND_ASSIGN(iceberg::Table table, fixture.OpenTable());
  // Batch 4 is in the model when its commit is in the table (4 snapshots, not 3).
  if (table.metadata().snapshots.size() == 4) {
    Apply(Choose(4, model), 4, model);
  } else {
    ASSERT_EQ(table.metadata().snapshots.size(), 3u);
  }
  auto io = MakeLocalFileIO();
  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex index, PrimaryKeyIndex::Load(io, fixture.state(), table.metadata(),
                                                                    table.io(), Spec(), &warnings));
  ExpectEqualsARebuild(index, table, model, dir_.File("rebuild-0"));
  if (HasFailure()) return;
  // The next batches, with background merges, through the recovered index.
  index.SetBackgroundMerges(true);
  for (int n = 5; n <= 6; ++n) {
    ASSERT_OK(fixture.CommitBatch(table, index, n, model));
    index.FinishMerges(/*all=*/true);
    EXPECT_FALSE(index.damaged());
    ExpectEqualsARebuild(index, table, model, dir_.File("rebuild-" + std::to_string(n)));
  }
}

TEST(KeyIndexMergeCrashCoverageTest, TheCasesCoverEveryCall) {
  testing::TempDir dir;
  Fixture fixture(dir.File("t"));
  Model model = fixture.Setup();
  auto faults = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
  fixture.Operation(faults, model);
  const std::vector<std::string> calls = faults->CallLog();
  size_t deletes = 0, closes = 0;
  for (const std::string& call : calls) {
    deletes += call.find(" Delete ") != std::string::npos;
    closes += call.find(" Close ") != std::string::npos;
  }
  EXPECT_GE(deletes, 3u) << "no merged-away run was deleted: the test would not crash an adoption";
  EXPECT_GE(closes, 4u) << "no merge, manifest rewrite or batch save was written";
  floe::testing::ExpectTheCasesCoverEveryCall(calls, kCoverage, "key index merge crash");
}

std::vector<FaultCase> Cases() {
  std::vector<FaultCase> cases;
  const bool all = floe::testing::ExhaustiveFaultMode();
  const int64_t count = all ? kCoverage.max_calls : kCoverage.slots;
  for (int64_t index = 0; index < count; ++index)
    cases.push_back(FaultCase{"sql", FaultMode::kCrashLost, index, !all});
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return std::string("KilledAt") + (info.param.in_spread ? "Spread" : "Call") +
         std::to_string(info.param.index);
}

INSTANTIATE_TEST_SUITE_P(Calls, KeyIndexMergeCrashTest, ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace floe::ingest
