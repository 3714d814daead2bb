// A fault at every I/O call of the key index's merge, its adoption and the
// next commit's save (tests/fault_test_util.h): the call fails, or the
// process dies there with the write lost. Afterwards the index of the
// snapshot the table holds loads from its files alone (the fake table here
// cannot be rebuilt, so a lost or unreadable file would fail the load) and
// answers every key as the table's history says. Torn writes are left out:
// FileIO publishes atomically (a half-written manifest at its final path is
// not a crash of floe's but of the storage's contract).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "fault_test_util.h"
#include "ingest/merge/key_index.h"
#include "key_index_test_util.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using floe::testing::FaultCase;
using floe::testing::FaultCoverage;
using floe::testing::FaultMode;

OrderValue Order(uint64_t v) {
  return OrderValueFromHalves(0, v);
}

iceberg::TableMetadata TableAt(int64_t last) {
  return key_index_testing::TableWithSnapshotsUpTo(last, "overwrite");
}

const KeyIndexSpec& Spec() {
  static const KeyIndexSpec spec = key_index_testing::IdSpec();
  return spec;
}

// What each key's entry must be: (tombstone, position or deletion second).
using Expected = std::map<uint64_t, std::pair<bool, int64_t>>;

// The changes of commit `snapshot` (deterministic): new keys, updates and deletes.
KeyIndexDelta Changes(int64_t snapshot, Expected& expected) {
  std::mt19937_64 random(static_cast<uint64_t>(snapshot));
  KeyIndexDelta delta;
  const int count = snapshot == 1 ? 3000 : 400;
  for (int i = 0; i < count; ++i) {
    const uint64_t key = snapshot == 1 ? static_cast<uint64_t>(i) * 3 : random() % 12000;
    if (snapshot > 1 && random() % 8 == 0) {
      delta.PutTombstone({0, key}, Order(static_cast<uint64_t>(snapshot)),
                         1'700'000'000'000 + snapshot * 1000);
      expected[key] = {true, 1'700'000'000 + snapshot};
    } else {
      const int64_t position = snapshot * 100000 + i;
      delta.PutLive({0, key}, "s3://b/data/f" + std::to_string(snapshot) + ".parquet", position,
                    Order(static_cast<uint64_t>(snapshot)));
      expected[key] = {false, position};
    }
  }
  return delta;
}

class KeyIndexFaultTest : public ::testing::TestWithParam<FaultCase> {
 protected:
  static constexpr int64_t kSaved = 4;  // snapshots saved before the operation
  static FaultCoverage Coverage() { return {300, 4, 120}; }

  void SetUp() override {
    floe::testing::UseTmpfsForTempDirs();
    state_ = dir_.File("state");
    marker_ = dir_.File("committed-5");
    // Four commits, merges never adopted: the last leaves one due.
    PrimaryKeyIndex index(MakeLocalFileIO(), state_);
    for (int64_t s = 1; s <= kSaved; ++s) ASSERT_OK(index.Save(Changes(s, before_), s));
    after_ = before_;
    Changes(kSaved + 1, after_);
  }

  // Load, every due merge run and adopted, commit 5's save (its "commit"
  // recorded in the marker file between Prepare and Publish), merges again.
  void Operation(std::shared_ptr<FileIO> io) {
    auto loaded = PrimaryKeyIndex::Load(io, state_, TableAt(kSaved), *io, Spec());
    if (!loaded.ok()) return;
    loaded->FinishMerges(true);
    Expected scratch;
    auto saved = loaded->Prepare(Changes(kSaved + 1, scratch), kSaved + 1);
    if (!saved.ok()) return;
    std::ofstream(marker_) << "committed";
    loaded->Publish(*saved);
    loaded->FinishMerges(true);
  }

  std::vector<std::string> FaultFreeCalls() {
    auto faults = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
    // A copy of the state: the fault-free run must not change the case's.
    const std::string copy = dir_.File("fault-free");
    std::filesystem::copy(state_, copy);
    const std::string saved_state = state_;
    state_ = copy;
    Operation(faults);
    state_ = saved_state;
    std::filesystem::remove(marker_);
    std::filesystem::remove_all(copy);
    return faults->CallLog();
  }

  // The index of the snapshot the table holds answers every key as expected.
  void ExpectNothingLost() {
    const bool committed = std::filesystem::exists(marker_);
    const Expected& expected = committed ? after_ : before_;
    auto io = MakeLocalFileIO();
    std::vector<std::string> warnings;
    auto loaded =
        PrimaryKeyIndex::Load(io, state_, TableAt(committed ? kSaved + 1 : kSaved), *io, Spec(), &warnings);
    ASSERT_OK(loaded.status());
    std::vector<KeyId> keys;
    for (const auto& [key, want] : expected) keys.push_back({0, key});
    std::vector<std::optional<PrimaryKeyIndex::Entry>> found;
    ASSERT_OK(loaded->FindMany(keys, &found));
    size_t i = 0;
    for (const auto& [key, want] : expected) {
      const auto& got = found[i++];
      ASSERT_TRUE(got.has_value()) << key;
      ASSERT_EQ(got->tombstone, want.first) << key;
      ASSERT_EQ(got->tombstone ? got->deleted_at_ms / 1000 : got->position, want.second) << key;
    }
    // And it goes on: merges from here work too.
    loaded->FinishMerges(true);
    EXPECT_FALSE(loaded->damaged());
  }

  testing::TempDir dir_;
  std::string state_;
  std::string marker_;
  Expected before_;
  Expected after_;
};

TEST_P(KeyIndexFaultTest, NothingIsLost) {
  const FaultCase& c = GetParam();
  const std::vector<std::string> calls = FaultFreeCalls();
  SCOPED_TRACE(floe::testing::FaultTrace(c, calls, Coverage()));
  floe::testing::InjectFault(c, calls, Coverage(), [&](FaultInjectingFileIO& faults, FaultPlan plan) {
    faults.Reset(std::move(plan));
    Operation(faults.Wrap(MakeLocalFileIO()));
  });
  if (IsSkipped() || HasFailure()) return;
  ExpectNothingLost();
}

TEST(KeyIndexFaultCoverageTest, TheCasesCoverEveryCall) {
  testing::TempDir dir;
  const std::string state = dir.File("state");
  Expected expected;
  {
    PrimaryKeyIndex index(MakeLocalFileIO(), state);
    for (int64_t s = 1; s <= 4; ++s) ASSERT_OK(index.Save(Changes(s, expected), s));
  }
  auto faults = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
  auto loaded = PrimaryKeyIndex::Load(faults, state, TableAt(4), *faults, Spec());
  ASSERT_OK(loaded.status());
  const int64_t load_calls = faults->calls();
  loaded->FinishMerges(true);
  EXPECT_GT(faults->calls(), load_calls + 5) << "no merge ran: the test would not fault one";
  ASSERT_OK(loaded->Save(Changes(5, expected), 5));
  loaded->FinishMerges(true);
  floe::testing::ExpectTheCasesCoverEveryCall(faults->CallLog(), {300, 4, 120}, "key index merge");
}

std::vector<FaultCase> Cases() {
  std::vector<FaultCase> cases;
  const bool all = floe::testing::ExhaustiveFaultMode();
  for (FaultMode mode : {FaultMode::kFail, FaultMode::kCrashLost}) {
    const int64_t count = all ? 300 : 120;
    for (int64_t index = 0; index < count; ++index) cases.push_back(FaultCase{"state", mode, index, !all});
  }
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return std::string(floe::testing::FaultModeName(info.param.mode)) +
         (info.param.in_spread ? "AtSpread" : "AtCall") + std::to_string(info.param.index);
}

INSTANTIATE_TEST_SUITE_P(Calls, KeyIndexFaultTest, ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace floe::ingest
