// The key index's on-disk pieces: blocks, run files, manifests, and merging runs.
#include "ingest/merge/key_index_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "ingest/merge/key_index_block.h"
#include "ingest/merge/key_index_manifest.h"
#include "ingest/merge/key_index_merge.h"
#include "test_util.h"

namespace floe::ingest::key_index_internal {
namespace {

OrderValue Order(uint64_t hi, uint64_t lo) {
  return OrderValueFromHalves(hi, lo);
}

RunEntry Live(KeyId key, uint32_t file, int64_t position, OrderValue order) {
  RunEntry e;
  e.key = key;
  e.file = file;
  e.value = position;
  e.order = order;
  return e;
}

RunEntry Tombstone(KeyId key, int64_t seconds, OrderValue order) {
  RunEntry e;
  e.key = key;
  e.tombstone = true;
  e.value = seconds;
  e.order = order;
  return e;
}

void ExpectSameEntry(const RunEntry& got, const RunEntry& want) {
  EXPECT_EQ(got.key, want.key);
  EXPECT_EQ(got.order, want.order);
  EXPECT_EQ(got.tombstone, want.tombstone);
  EXPECT_EQ(got.value, want.value);
  if (!want.tombstone) {
    EXPECT_EQ(got.file, want.file);
  }
}

// Random sorted entries: exact keys (hashed = false) or canonical hashed
// keys with some exact ones mixed in, about a fifth tombstones.
std::vector<RunEntry> RandomEntries(std::mt19937_64& random, size_t n, bool hashed, uint32_t files = 5) {
  std::vector<RunEntry> entries;
  std::set<std::pair<uint64_t, uint64_t>> seen;
  while (entries.size() < n) {
    KeyId key{0, random() % (n * 10 + 1)};
    if (hashed && random() % 4 != 0) key = CanonicalKey({random() | 1, random()});
    if (!seen.insert({key.hi, key.lo}).second) continue;
    const OrderValue order = Order(random() % 3 == 0 ? random() : 0, random());
    if (random() % 5 == 0) {
      entries.push_back(Tombstone(key, static_cast<int64_t>(random() % 0xFFFFFFFFu), order));
    } else {
      entries.push_back(
          Live(key, static_cast<uint32_t>(random() % files), static_cast<int64_t>(random() >> 1), order));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const RunEntry& a, const RunEntry& b) { return KeyLess(a.key, b.key); });
  return entries;
}

std::vector<uint8_t> Padded(std::vector<uint8_t> bytes) {
  bytes.resize(bytes.size() + kBlockPadding, 0);
  return bytes;
}

TEST(KeyIndexBlockTest, RoundTripsEveryColumnAtEveryWidth) {
  std::mt19937_64 random(1);
  for (bool hashed : {false, true}) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{256}, kMaxBlockEntries}) {
      std::vector<RunEntry> entries = RandomEntries(random, n, hashed);
      std::vector<uint8_t> payload;
      EncodeBlock(entries, hashed, payload);
      const size_t size = payload.size();
      std::vector<uint8_t> padded = Padded(payload);
      ASSERT_OK_AND_ASSIGN(BlockView view,
                           BlockView::Parse(std::span<const uint8_t>(padded.data(), size), hashed));
      ASSERT_EQ(view.size(), n);
      std::vector<RunEntry> all;
      view.AppendAll(all);
      for (size_t i = 0; i < n; ++i) {
        SCOPED_TRACE(i);
        ExpectSameEntry(view.Entry(i), entries[i]);
        ExpectSameEntry(all[i], entries[i]);
        EXPECT_EQ(view.Find(entries[i].key), static_cast<int64_t>(i));
      }
    }
  }
  // Extremes: full 64-bit keys, orders and positions.
  std::vector<RunEntry> extremes = {
      Live({0, 0}, 0, 0, Order(0, 0)),
      Live({0, ~uint64_t{0} - 1}, 0xFFFFFFFFu, INT64_MAX, Order(~uint64_t{0}, ~uint64_t{0})),
      Tombstone({0, ~uint64_t{0}}, 0xFFFFFFFF, Order(1, 0))};
  std::vector<uint8_t> payload;
  EncodeBlock(extremes, false, payload);
  const size_t size = payload.size();
  std::vector<uint8_t> padded = Padded(payload);
  ASSERT_OK_AND_ASSIGN(BlockView view,
                       BlockView::Parse(std::span<const uint8_t>(padded.data(), size), false));
  for (size_t i = 0; i < extremes.size(); ++i) ExpectSameEntry(view.Entry(i), extremes[i]);
  EXPECT_EQ(view.Find({0, 5}), -1);
}

TEST(KeyIndexBlockTest, DenseIntegerKeysPackSmall) {
  // A full load's shape: consecutive ids, increasing seqvals, few files.
  std::vector<RunEntry> entries;
  for (uint64_t k = 0; k < 256; ++k)
    entries.push_back(Live({0, 1000000 + k}, 3, 70000 + static_cast<int64_t>(k), Order(0, 5000000 + k * 3)));
  std::vector<uint8_t> payload;
  EncodeBlock(entries, false, payload);
  EXPECT_LT(payload.size(), 256u * 5);  // under 5 bytes an entry
}

TEST(KeyIndexBlockTest, DamagedPayloadsAreCorruptionNeverACrash) {
  std::mt19937_64 random(2);
  for (bool hashed : {false, true}) {
    std::vector<RunEntry> entries = RandomEntries(random, 100, hashed);
    std::vector<uint8_t> payload;
    EncodeBlock(entries, hashed, payload);
    for (size_t cut = 0; cut < payload.size(); cut += 3) {
      std::vector<uint8_t> truncated =
          Padded(std::vector<uint8_t>(payload.begin(), payload.begin() + static_cast<ptrdiff_t>(cut)));
      auto view = BlockView::Parse(std::span<const uint8_t>(truncated.data(), cut), hashed);
      EXPECT_FALSE(view.ok()) << cut;
    }
    std::vector<uint8_t> longer = payload;
    longer.push_back(0);
    std::vector<uint8_t> padded = Padded(longer);
    EXPECT_FALSE(BlockView::Parse(std::span<const uint8_t>(padded.data(), longer.size()), hashed).ok());
    // Flipped bytes: either refused or parsed into in-range values (the run's CRC catches the rest).
    for (int round = 0; round < 500; ++round) {
      std::vector<uint8_t> damaged = payload;
      damaged[random() % damaged.size()] ^= static_cast<uint8_t>(1 + random() % 255);
      std::vector<uint8_t> bytes = Padded(damaged);
      auto view = BlockView::Parse(std::span<const uint8_t>(bytes.data(), damaged.size()), hashed);
      if (!view.ok()) {
        EXPECT_EQ(view.status().kind(), ErrorKind::kCorruption);
        continue;
      }
      std::vector<RunEntry> all;
      view->AppendAll(all);
      for (size_t i = 1; i < all.size(); ++i) EXPECT_TRUE(KeyLess(all[i - 1].key, all[i].key));
      for (const RunEntry& e : all) EXPECT_GE(e.value, 0);
    }
  }
}

class KeyIndexRunTest : public ::testing::Test {
 protected:
  std::string Write(const std::vector<RunEntry>& entries, bool hashed, bool bloom,
                    const std::vector<std::string>& files) {
    const std::string path = IndexFilePath(dir_.path().string(), NewRunName());
    RunWriterOptions options;
    options.hashed = hashed;
    options.bloom = bloom;
    options.expected_entries = entries.size();
    auto writer = RunWriter::Create(*io_, path, options);
    EXPECT_OK(writer.status());
    for (const RunEntry& e : entries) EXPECT_OK((*writer)->Add(e));
    auto info = (*writer)->Finish(files);
    EXPECT_OK(info.status());
    return path;
  }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
  std::vector<std::string> files_ = {"s3://b/data/a.parquet", "s3://b/data/b.parquet",
                                     "s3://b/data/c.parquet", "s3://b/data/d.parquet",
                                     "s3://b/data/e.parquet"};
};

TEST_F(KeyIndexRunTest, WritesAndFindsEveryKey) {
  std::mt19937_64 random(3);
  for (bool hashed : {false, true}) {
    std::vector<RunEntry> entries = RandomEntries(random, 5000, hashed);
    const std::string path = Write(entries, hashed, true, files_);
    ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, path));
    EXPECT_EQ(run->info().entries, entries.size());
    EXPECT_TRUE(run->has_bloom());
    EXPECT_EQ(run->blocks(), (entries.size() + kRunBlockEntries - 1) / kRunBlockEntries);
    BlockCursor cursor;
    std::optional<RunEntry> found;
    for (const RunEntry& e : entries) {
      EXPECT_TRUE(run->MayContain(e.key, KeyBloom::HashOf(e.key)));  // never a false negative
      ASSERT_OK(run->Find(e.key, cursor, &found));
      ASSERT_TRUE(found.has_value());
      ExpectSameEntry(*found, e);
      if (!e.tombstone) {
        EXPECT_EQ(*run->FilePath(e.file), files_[e.file]);
      }
    }
    // Absent keys: inside the range, below and above it.
    for (KeyId absent :
         {KeyId{0, 1}, KeyId{0, ~uint64_t{0}}, KeyId{hashed ? (uint64_t{3} << 32) : 0, 12345678901}}) {
      if (std::any_of(entries.begin(), entries.end(), [&](const RunEntry& e) { return e.key == absent; }))
        continue;
      ASSERT_OK(run->Find(absent, cursor, &found));
      EXPECT_FALSE(found.has_value());
    }
    RunScanner scanner(*run);
    for (const RunEntry& e : entries) {
      ASSERT_OK_AND_ASSIGN(const RunEntry* next, scanner.Next());
      ASSERT_NE(next, nullptr);
      ExpectSameEntry(*next, e);
    }
    ASSERT_OK_AND_ASSIGN(const RunEntry* end, scanner.Next());
    EXPECT_EQ(end, nullptr);
  }
}

// A merge holds one scanner per input run: each must keep a bounded number
// of decoded entries, not as many as 1 MiB of dense keys decodes to (~440,000
// entries, 21 MB, per run: a 100M-key load's final merge of 36 runs peaked
// 1 GB above the rest of the load).
TEST_F(KeyIndexRunTest, ScannerHoldsAFewBlocksOfEntriesAtATime) {
  std::vector<RunEntry> entries;
  for (uint64_t k = 0; k < 400000; ++k)
    entries.push_back(Live({0, k}, 0, static_cast<int64_t>(k), Order(0, 1)));
  ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, Write(entries, false, false, files_)));
  ASSERT_LT(run->info().bytes, int64_t{1} << 20);  // dense keys: all of it fits one 1 MiB read
  RunScanner scanner(*run);
  size_t most = 0;
  for (const RunEntry& e : entries) {
    ASSERT_OK_AND_ASSIGN(const RunEntry* next, scanner.Next());
    ASSERT_NE(next, nullptr);
    ASSERT_EQ(next->key, e.key);
    most = std::max(most, scanner.buffered_entries());
  }
  ASSERT_OK_AND_ASSIGN(const RunEntry* end, scanner.Next());
  EXPECT_EQ(end, nullptr);
  EXPECT_LE(most, kScanBlocks * kMaxBlockEntries);
}

TEST_F(KeyIndexRunTest, BloomFilterRejectsMostAbsentKeys) {
  std::vector<RunEntry> entries;
  for (uint64_t k = 0; k < 20000; ++k) entries.push_back(Live({0, k * 2}, 0, 0, Order(0, k)));
  ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, Write(entries, false, true, files_)));
  int false_positives = 0;
  for (uint64_t k = 0; k < 20000; ++k)
    false_positives += run->MayContain({0, k * 2 + 1}, KeyBloom::HashOf({0, k * 2 + 1}));
  EXPECT_LT(false_positives, 20000 * 3 / 100);  // ~1% expected
  // Without a filter only the key range decides.
  ASSERT_OK_AND_ASSIGN(auto base, RunReader::Open(*io_, Write(entries, false, false, files_)));
  EXPECT_FALSE(base->has_bloom());
  EXPECT_TRUE(base->MayContain({0, 3}, KeyBloom::HashOf({0, 3})));
  EXPECT_FALSE(base->MayContain({0, 40000}, KeyBloom::HashOf({0, 40000})));
}

TEST_F(KeyIndexRunTest, WriterRefusesOutOfOrderKeysAndUnlistedFiles) {
  const std::string path = IndexFilePath(dir_.path().string(), NewRunName());
  ASSERT_OK_AND_ASSIGN(auto writer, RunWriter::Create(*io_, path, RunWriterOptions{}));
  ASSERT_OK(writer->Add(Live({0, 5}, 0, 1, Order(0, 1))));
  EXPECT_FALSE(writer->Add(Live({0, 5}, 0, 1, Order(0, 1))).ok());
  EXPECT_FALSE(writer->Add(Live({0, 4}, 0, 1, Order(0, 1))).ok());
  EXPECT_FALSE(writer->Add(Live({1ull << 32, 9}, 0, 1, Order(0, 1))).ok());  // a hashed key in an exact run
  ASSERT_OK(writer->Add(Live({0, 6}, 7, 1, Order(0, 1))));
  EXPECT_FALSE(writer->Finish({"only-one"}).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(KeyIndexRunTest, EmptyRunRoundTrips) {
  ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, Write({}, false, false, {})));
  EXPECT_EQ(run->info().entries, 0u);
  BlockCursor cursor;
  std::optional<RunEntry> found;
  ASSERT_OK(run->Find({0, 1}, cursor, &found));
  EXPECT_FALSE(found.has_value());
  RunScanner scanner(*run);
  ASSERT_OK_AND_ASSIGN(const RunEntry* end, scanner.Next());
  EXPECT_EQ(end, nullptr);
}

// Every damage of a run file is caught: when opening (header, footer and
// tail CRC), or at the latest when the damaged block is read (block CRC).
TEST_F(KeyIndexRunTest, RandomDamageIsAlwaysDetected) {
  std::mt19937_64 random(4);
  std::vector<RunEntry> entries = RandomEntries(random, 1500, true);
  const std::string path = Write(entries, true, true, files_);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> original, io_->ReadAll(path));
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> damaged = original;
    if (round % 4 == 0) {
      damaged.resize(random() % damaged.size());
    } else {
      for (int flips = 1 + round % 3; flips > 0; --flips)
        damaged[random() % damaged.size()] ^= static_cast<uint8_t>(1 + random() % 255);
    }
    if (damaged == original) continue;
    ASSERT_OK(io_->WriteAll(path, std::span<const uint8_t>(damaged)));
    auto run = RunReader::Open(*io_, path);
    if (!run.ok()) {
      EXPECT_NE(run.status().message().find(path), std::string::npos) << run.status().ToString();
      continue;
    }
    bool failed = false;
    BlockCursor cursor;
    std::optional<RunEntry> found;
    for (const RunEntry& e : entries) {
      Status status = (*run)->Find(e.key, cursor, &found);
      if (!status.ok()) {
        EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
        failed = true;
        break;
      }
      ASSERT_TRUE(found.has_value()) << round;  // a lookup never returns a wrong answer
      ExpectSameEntry(*found, e);
    }
    RunScanner scanner(**run);
    while (true) {
      auto next = scanner.Next();
      if (!next.ok()) {
        failed = true;
        break;
      }
      if (*next == nullptr) break;
    }
    EXPECT_TRUE(failed) << "round " << round << ": damage went unnoticed";
  }
}

TEST(KeyIndexManifestTest, RoundTripsAndRefusesForeignNames) {
  IndexManifest manifest;
  manifest.snapshot_id = -42;
  manifest.spec_text = "keys=id;order=seq;kind=hex";
  manifest.runs = {{"keys-0123456789abcdef.run", 10, 400}, {"keys-fedcba9876543210.run", 2, 90}};
  std::vector<uint8_t> bytes = EncodeManifest(manifest);
  ASSERT_OK_AND_ASSIGN(IndexManifest decoded, DecodeManifest(bytes));
  EXPECT_EQ(decoded.snapshot_id, -42);
  EXPECT_EQ(decoded.spec_text, manifest.spec_text);
  ASSERT_EQ(decoded.runs.size(), 2u);
  EXPECT_EQ(decoded.runs[1].name, "keys-fedcba9876543210.run");
  EXPECT_EQ(decoded.runs[1].entries, 2u);
  EXPECT_EQ(decoded.runs[1].bytes, 90);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeManifest(std::span<const uint8_t>(bytes.data(), cut)).ok()) << cut;
  }
  for (const char* bad :
       {"../keys-0123456789abcdef.run", "keys-0123456789ABCDEF.run", "/etc/passwd", "index-1.bin"}) {
    IndexManifest forged = manifest;
    forged.runs[0].name = bad;
    auto decoded_forged = DecodeManifest(EncodeManifest(forged));  // a valid CRC: the names alone are refused
    EXPECT_FALSE(decoded_forged.ok()) << bad;
  }
  EXPECT_TRUE(IsRunName(NewRunName()));
  EXPECT_NE(NewRunName(), NewRunName());
  EXPECT_EQ(SnapshotOfManifestName("index-77.bin"), 77);
  EXPECT_EQ(SnapshotOfManifestName("index--3.bin"), -3);
  EXPECT_FALSE(SnapshotOfManifestName("index-99999999999999999999.bin").has_value());
  EXPECT_TRUE(IsIndexTempName(".keys-0123456789abcdef.run.tmp-12-0"));
  EXPECT_TRUE(IsIndexTempName(".index-5.bin.tmp-12-3"));
  EXPECT_FALSE(IsIndexTempName(".ledger.db.tmp-1-1"));
}

TEST(KeyIndexMergeTest, PicksTheBaseOrFourRunsOfATier) {
  EXPECT_FALSE(PickMerge({}).has_value());
  EXPECT_FALSE(PickMerge({1000}).has_value());
  // Newer runs holding a quarter of the base: everything.
  EXPECT_EQ(PickMerge({1000, 250}), std::make_pair(size_t{0}, size_t{1}));
  EXPECT_EQ(PickMerge({100, 10, 10, 10}), std::make_pair(size_t{0}, size_t{3}));
  // Below that: three runs of a tier wait, the fourth merges them.
  EXPECT_FALSE(PickMerge({1000000, 10000, 10000, 10000}).has_value());
  EXPECT_EQ(PickMerge({1000000, 10000, 10000, 10000, 12000}), std::make_pair(size_t{1}, size_t{4}));
  // The newest tier first; older tiers are left alone.
  EXPECT_EQ(PickMerge({10000000, 300000, 300000, 40000, 10000, 11000, 10000, 9000}),
            std::make_pair(size_t{4}, size_t{7}));
  EXPECT_FALSE(PickMerge({10000000, 300000, 300000, 40000, 10000, 11000, 10000}).has_value());
}

class KeyIndexMergeRunsTest : public KeyIndexRunTest {
 protected:
  std::shared_ptr<const RunReader> Run(const std::vector<RunEntry>& entries,
                                       const std::vector<std::string>& files) {
    auto run = RunReader::Open(*io_, Write(entries, false, true, files));
    EXPECT_OK(run.status());
    return *run;
  }
  std::vector<RunEntry> All(const RunReader& run) {
    std::vector<RunEntry> out;
    RunScanner scanner(run);
    while (true) {
      auto next = scanner.Next();
      EXPECT_OK(next.status());
      if (!next.ok() || *next == nullptr) break;
      out.push_back(**next);
    }
    return out;
  }
};

TEST_F(KeyIndexMergeRunsTest, NewestRunWinsAndFilesAreRenumbered) {
  auto old_run = Run({Live({0, 1}, 0, 10, Order(0, 1)), Live({0, 2}, 1, 20, Order(0, 2)),
                      Live({0, 3}, 1, 30, Order(0, 3)), Tombstone({0, 4}, 100, Order(0, 4))},
                     {"a", "b"});
  auto new_run =
      Run({Live({0, 2}, 0, 5, Order(0, 1)),  // newer run, older order: it still wins (the ingest decided)
           Tombstone({0, 3}, 200, Order(0, 9)), Live({0, 5}, 1, 50, Order(0, 5))},
          {"b", "c"});
  const std::string out = IndexFilePath(dir_.path().string(), NewRunName());
  MergeOptions options;
  options.base = true;
  options.drop_tombstones_before_s = 150;  // drops key 4's tombstone, keeps key 3's
  ASSERT_OK_AND_ASSIGN(MergeResult merged, MergeRuns(*io_, out, {{old_run}, {new_run}}, options));
  ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, out));
  EXPECT_FALSE(run->has_bloom());  // a base
  std::vector<RunEntry> all = All(*run);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].key, (KeyId{0, 1}));
  EXPECT_EQ(*run->FilePath(all[0].file), "a");
  EXPECT_EQ(all[1].value, 5);
  EXPECT_EQ(*run->FilePath(all[1].file), "b");
  EXPECT_TRUE(all[2].tombstone);
  EXPECT_EQ(all[3].key, (KeyId{0, 5}));
  EXPECT_EQ(*run->FilePath(all[3].file), "c");
  EXPECT_EQ(run->files().size(), 3u);  // "b" once
}

TEST_F(KeyIndexMergeRunsTest, RebuildKeepsTheTablesRowsAndTheIndexsTombstones) {
  auto rebuilt_a = Run({Live({0, 1}, 0, 0, Order(0, 5)), Live({0, 2}, 0, 1, Order(0, 5))}, {"x"});
  auto rebuilt_b =
      Run({Live({0, 2}, 0, 7, Order(0, 9))}, {"y"});    // key 2 twice in the table: the greater order
  auto older = Run({Tombstone({0, 1}, 9, Order(0, 8)),  // live in the table: the row wins
                    Tombstone({0, 3}, 9, Order(0, 8)),  // deleted: kept
                    Live({0, 4}, 0, 3, Order(0, 1))},   // not in the table any more: dropped
                   {"z"});
  const std::string out = IndexFilePath(dir_.path().string(), NewRunName());
  MergeOptions options;
  options.policy = MergePolicy::kRebuild;
  options.base = true;
  ASSERT_OK_AND_ASSIGN(MergeResult merged,
                       MergeRuns(*io_, out, {{rebuilt_a, true}, {rebuilt_b, true}, {older, false}}, options));
  EXPECT_EQ(merged.duplicate_keys, 1);
  ASSERT_OK_AND_ASSIGN(auto run, RunReader::Open(*io_, out));
  std::vector<RunEntry> all = All(*run);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_FALSE(all[0].tombstone);
  EXPECT_EQ(all[1].value, 7);
  EXPECT_EQ(*run->FilePath(all[1].file), "y");
  EXPECT_TRUE(all[2].tombstone);
  EXPECT_EQ(all[2].key, (KeyId{0, 3}));
}

TEST_F(KeyIndexMergeRunsTest, StopsWhenAskedAndLeavesNothing) {
  std::vector<RunEntry> entries;
  for (uint64_t k = 0; k < 20000; ++k) entries.push_back(Live({0, k}, 0, 0, Order(0, k)));
  auto run = Run(entries, {"a"});
  std::atomic<bool> stop{true};
  MergeOptions options;
  options.stop = &stop;
  const std::string out = IndexFilePath(dir_.path().string(), NewRunName());
  auto merged = MergeRuns(*io_, out, {{run}, {run}}, options);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().kind(), ErrorKind::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace floe::ingest::key_index_internal
