#include "ingest/merge/key_index.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "ingest/merge/murmur3_128.h"
#include "key_index_test_util.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

OrderValue Order(uint64_t v) {
  OrderValue o;
  for (int i = 0; i < 8; ++i) o.bytes[15 - i] = static_cast<uint8_t>(v >> (8 * i));
  return o;
}

TEST(Murmur3Test, MatchesPublishedVectors) {
  Hash128 empty = Murmur3x64_128("");
  EXPECT_EQ(empty.h1, 0u);
  EXPECT_EQ(empty.h2, 0u);
  // mmh3.hash64("hello") = (-3758069500696749310, 6565844092913065241)
  Hash128 hello = Murmur3x64_128("hello");
  EXPECT_EQ(hello.h1, 0xcbd8a7b341bd9b02ULL);
  EXPECT_EQ(hello.h2, 0x5b1e906a48ae1d19ULL);
  // 43 bytes: two blocks and an 11-byte tail. Reference digest 6c1b07bc7bbc4be347939ac4a93c437a
  // is h1 then h2, each little-endian.
  Hash128 fox = Murmur3x64_128("The quick brown fox jumps over the lazy dog");
  EXPECT_EQ(fox.h1, 0xe34bbc7bbc071b6cULL);
  EXPECT_EQ(fox.h2, 0x7a433ca9c49a9347ULL);
}

TEST(KeyEncoderTest, SingleIntegerColumnIsExact) {
  ASSERT_OK_AND_ASSIGN(KeyEncoder encoder, KeyEncoder::Make({Int64()}, {"id"}));
  EXPECT_TRUE(encoder.exact_integer());
  Column ids(Int64());
  ids.AppendValue(int64_t{42});
  ids.AppendValue(int64_t{-1});
  ids.AppendNull();
  ASSERT_OK_AND_ASSIGN(KeyId a, encoder.KeyAt({&ids}, 0));
  EXPECT_EQ(a, (KeyId{0, 42}));
  ASSERT_OK_AND_ASSIGN(KeyId b, encoder.KeyAt({&ids}, 1));
  EXPECT_EQ(b, (KeyId{0, ~uint64_t{0}}));
  auto null_key = encoder.KeyAt({&ids}, 2);
  ASSERT_FALSE(null_key.ok());
  EXPECT_EQ(null_key.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(null_key.status().message(), "key column id row 2 is null");

  // An older file may hold the promoted key column as int32: same ids.
  Column narrow(Int32());
  narrow.AppendValue(int32_t{42});
  ASSERT_OK_AND_ASSIGN(KeyId from_narrow, encoder.KeyAt({&narrow}, 0));
  EXPECT_EQ(from_narrow, a);

  for (DataType t : {Int8(), Int16(), Int32(), UInt8(), UInt16(), UInt32(), Date()}) {
    ASSERT_OK_AND_ASSIGN(KeyEncoder e, KeyEncoder::Make({t}, {"k"}));
    EXPECT_TRUE(e.exact_integer()) << t.ToString();
  }
}

TEST(KeyEncoderTest, OtherKeysAreHashedUnambiguously) {
  ASSERT_OK_AND_ASSIGN(KeyEncoder strings, KeyEncoder::Make({String(), String()}, {"a", "b"}));
  EXPECT_FALSE(strings.exact_integer());
  Column a(String()), b(String());
  a.AppendBytes("ab");
  b.AppendBytes("c");
  a.AppendBytes("a");
  b.AppendBytes("bc");
  a.AppendBytes("ab");
  b.AppendBytes("c");
  ASSERT_OK_AND_ASSIGN(KeyId k0, strings.KeyAt({&a, &b}, 0));
  ASSERT_OK_AND_ASSIGN(KeyId k1, strings.KeyAt({&a, &b}, 1));
  ASSERT_OK_AND_ASSIGN(KeyId k2, strings.KeyAt({&a, &b}, 2));
  EXPECT_NE(k0, k1);  // ("ab","c") vs ("a","bc"): length prefixes keep them apart
  EXPECT_EQ(k0, k2);
  EXPECT_NE(k0.hi, 0u);

  // Same bytes, different types or column order: different ids.
  ASSERT_OK_AND_ASSIGN(KeyEncoder binary, KeyEncoder::Make({Binary(), String()}, {"a", "b"}));
  Column a_bin(Binary());
  a_bin.AppendBytes("ab");
  ASSERT_OK_AND_ASSIGN(KeyId kb, binary.KeyAt({&a_bin, &b}, 0));
  EXPECT_NE(kb, k0);
  ASSERT_OK_AND_ASSIGN(KeyId swapped, strings.KeyAt({&b, &a}, 0));
  EXPECT_NE(swapped, k0);

  // int and long hash alike (promotion), dates do not.
  ASSERT_OK_AND_ASSIGN(KeyEncoder mixed, KeyEncoder::Make({Int64(), String()}, {"n", "s"}));
  Column n64(Int64()), n32(Int32()), day(Date());
  n64.AppendValue(int64_t{7});
  n32.AppendValue(int32_t{7});
  day.AppendValue(int32_t{7});
  ASSERT_OK_AND_ASSIGN(KeyId i64, mixed.KeyAt({&n64, &a}, 0));
  ASSERT_OK_AND_ASSIGN(KeyId i32, mixed.KeyAt({&n32, &a}, 0));
  ASSERT_OK_AND_ASSIGN(KeyId d, mixed.KeyAt({&day, &a}, 0));
  EXPECT_EQ(i64, i32);
  EXPECT_NE(i64, d);

  // Decimals: the scale is part of the key.
  ASSERT_OK_AND_ASSIGN(KeyEncoder decimals, KeyEncoder::Make({Decimal(10, 2)}, {"d"}));
  Column d2(Decimal(10, 2)), d3(Decimal(10, 3)), d2wide(Decimal(20, 2));
  d2.AppendValue(static_cast<__int128>(100));
  d3.AppendValue(static_cast<__int128>(100));
  d2wide.AppendValue(static_cast<__int128>(100));
  ASSERT_OK_AND_ASSIGN(KeyId kd2, decimals.KeyAt({&d2}, 0));
  ASSERT_OK_AND_ASSIGN(KeyId kd3, decimals.KeyAt({&d3}, 0));
  ASSERT_OK_AND_ASSIGN(KeyId kd2wide, decimals.KeyAt({&d2wide}, 0));
  EXPECT_NE(kd2, kd3);
  EXPECT_EQ(kd2, kd2wide);

  Column nulls(String());
  nulls.AppendNull();
  auto null_key = strings.KeyAt({&a, &nulls}, 0);
  EXPECT_EQ(null_key.status().message(), "key column b row 0 is null");
  EXPECT_FALSE(strings.KeyAt({&a}, 0).ok());  // wrong column count
}

TEST(KeyEncoderTest, RejectsUnkeyableTypes) {
  EXPECT_FALSE(KeyEncoder::Make({}, {}).ok());
  auto f = KeyEncoder::Make({Float64()}, {"amount"});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("amount"), std::string::npos);
  EXPECT_FALSE(KeyEncoder::Make({List(MakeField("e", Int32()))}, {"l"}).ok());
  EXPECT_FALSE(KeyEncoder::Make({Int64()}, {"a", "b"}).ok());
}

using key_index_testing::IdSpec;
using key_index_testing::TableWithSnapshots;

std::optional<PrimaryKeyIndex::Entry> Get(const PrimaryKeyIndex& index, KeyId key) {
  auto found = index.Find(key);
  EXPECT_OK(found.status());
  return found.ok() ? *found : std::nullopt;
}

// Files of the state directory, by kind.
struct StateFiles {
  std::vector<std::string> manifests;
  std::vector<std::string> runs;
  size_t others = 0;
};
StateFiles ListState(const std::string& dir) {
  StateFiles files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name[0] == '.') continue;  // a file being written (a merge running)
    if (name.rfind("index-", 0) == 0) {
      files.manifests.push_back(name);
    } else if (name.rfind("keys-", 0) == 0) {
      files.runs.push_back(name);
    } else {
      ++files.others;
    }
  }
  std::sort(files.manifests.begin(), files.manifests.end());
  return files;
}

class PrimaryKeyIndexTest : public ::testing::Test {
 protected:
  std::string state() const { return dir_.File("state"); }
  PrimaryKeyIndex Empty() const { return PrimaryKeyIndex(io_, state()); }
  Result<PrimaryKeyIndex> LoadFor(std::vector<int64_t> chain, std::vector<std::string>* warnings = nullptr,
                                  const KeyIndexSpec& spec = IdSpec()) const {
    return PrimaryKeyIndex::Load(io_, state(), TableWithSnapshots(std::move(chain)), *io_, spec, warnings);
  }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
};

TEST_F(PrimaryKeyIndexTest, PutFindOverwriteTombstone) {
  PrimaryKeyIndex index = Empty();
  EXPECT_FALSE(Get(index, {0, 1}).has_value());
  KeyIndexDelta first;
  first.PutLive({0, 1}, "s3://b/data/a.parquet", 10, Order(5));
  first.PutLive({0, 2}, "s3://b/data/a.parquet", 11, Order(6));
  ASSERT_OK(index.Save(std::move(first), 100));
  auto e = Get(index, {0, 1});
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->tombstone);
  EXPECT_EQ(e->data_file, "s3://b/data/a.parquet");
  EXPECT_EQ(e->position, 10);
  EXPECT_EQ(e->order, Order(5));
  EXPECT_EQ(index.snapshot(), 100);

  KeyIndexDelta second;
  second.PutLive({0, 1}, "s3://b/data/b.parquet", 0, Order(9));
  second.PutTombstone({0, 2}, Order(7), 1'700'000'000'500);
  ASSERT_OK(index.Save(std::move(second), 101));
  e = Get(index, {0, 1});
  EXPECT_EQ(e->data_file, "s3://b/data/b.parquet");
  EXPECT_EQ(e->position, 0);
  EXPECT_EQ(e->order, Order(9));
  e = Get(index, {0, 2});
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->tombstone);
  EXPECT_EQ(e->order, Order(7));
  EXPECT_EQ(e->deleted_at_ms, 1'700'000'001'000);  // whole seconds, rounded up

  KeyIndexDelta third;
  third.PutLive({0, 2}, "s3://b/data/c.parquet", 3, Order(8));  // re-inserted after the delete
  third.PutLive({0, 3}, "x", 1, Order(1));
  third.PutLive({0, 3}, "y", 2, Order(2));  // the last change of a key in a delta wins
  ASSERT_OK(index.Save(std::move(third), 102));
  EXPECT_FALSE(Get(index, {0, 2})->tombstone);
  EXPECT_EQ(Get(index, {0, 3})->data_file, "y");
  std::vector<std::optional<PrimaryKeyIndex::Entry>> many;
  ASSERT_OK(index.FindMany({{0, 3}, {0, 99}, {0, 1}}, &many));
  ASSERT_EQ(many.size(), 3u);
  EXPECT_EQ(many[0]->position, 2);
  EXPECT_FALSE(many[1].has_value());
  EXPECT_EQ(many[2]->position, 0);
}

TEST_F(PrimaryKeyIndexTest, TombstonesPastTheCutoffReadAsAbsent) {
  PrimaryKeyIndex index = Empty();
  KeyIndexDelta delta;
  constexpr int64_t kKeys = 20000;
  for (int64_t k = 0; k < kKeys; ++k) {
    KeyId key{0, static_cast<uint64_t>(k)};
    if (k % 3 == 0) {
      delta.PutTombstone(key, Order(k), (k % 2 == 0 ? 1000 : 5000) * int64_t{1000});
    } else {
      delta.PutLive(key, "f" + std::to_string(k % 7), k, Order(k));
    }
  }
  ASSERT_OK(index.Save(std::move(delta), 1));
  // Newer live entries above an old tombstone stay findable; an expired
  // tombstone above an older live entry hides it.
  KeyIndexDelta above;
  above.PutTombstone({0, 1}, Order(100), 1000 * int64_t{1000});
  ASSERT_OK(index.Save(std::move(above), 2));
  index.SetTombstoneCutoff(3000 * int64_t{1000});
  std::vector<KeyId> keys;
  for (int64_t k = 0; k < kKeys; ++k) keys.push_back({0, static_cast<uint64_t>(k)});
  std::vector<std::optional<PrimaryKeyIndex::Entry>> found;
  ASSERT_OK(index.FindMany(keys, &found));
  for (int64_t k = 0; k < kKeys; ++k) {
    const auto& e = found[static_cast<size_t>(k)];
    if ((k % 3 == 0 && k % 2 == 0) || k == 1) {
      EXPECT_FALSE(e.has_value()) << k;
    } else {
      ASSERT_TRUE(e.has_value()) << k;
      EXPECT_EQ(e->tombstone, k % 3 == 0) << k;
      EXPECT_EQ(e->order, Order(k));
      if (!e->tombstone) {
        EXPECT_EQ(e->position, k);
        EXPECT_EQ(e->data_file, "f" + std::to_string(k % 7));
      }
    }
  }
}

TEST_F(PrimaryKeyIndexTest, HugePositionsWideOrdersAndHashedKeys) {
  auto wide_order = [](uint64_t hi, uint64_t lo) { return OrderValueFromHalves(hi, lo); };
  PrimaryKeyIndex index = Empty();
  const int64_t huge = int64_t{1} << 40;
  KeyIndexDelta exact;
  exact.PutLive({0, 5}, "big", huge, wide_order(9, 1));
  exact.PutLive({0, 6}, "big", 0xFFFFFFFEll, wide_order(0, 5));
  exact.PutTombstone({0, 7}, wide_order(~uint64_t{0}, 7), 2'000'000);
  ASSERT_OK(index.Save(std::move(exact), 1));
  // Hashed keys arrive: their runs hold both kinds; the integer keys stay findable.
  KeyIndexDelta hashed;
  hashed.PutLive({0xABCDEF, 17}, "h", 1, wide_order(2, 2));
  hashed.PutLive({0, 8}, "i", 2, wide_order(3, 3));
  ASSERT_OK(index.Save(std::move(hashed), 2));
  EXPECT_EQ(Get(index, {0, 5})->position, huge);
  EXPECT_EQ(Get(index, {0, 5})->order, wide_order(9, 1));
  EXPECT_EQ(Get(index, {0, 6})->position, 0xFFFFFFFEll);
  EXPECT_EQ(Get(index, {0, 7})->order, wide_order(~uint64_t{0}, 7));
  EXPECT_EQ(Get(index, {0xABCDEF, 17})->data_file, "h");
  EXPECT_EQ(Get(index, {0, 8})->data_file, "i");
  EXPECT_FALSE(Get(index, {0xABCDEF, 5}).has_value());
  // 95 bits of a hashed key are kept: a hash differing in them is another key,
  // one differing only in the bit the fold sets is the same.
  EXPECT_FALSE(Get(index, {0xABCDED, 17}).has_value());
  EXPECT_EQ(Get(index, {0xABCDEE, 17})->data_file, "h");
}

TEST_F(PrimaryKeyIndexTest, SaveLoadRoundTripAcrossCommits) {
  PrimaryKeyIndex index = Empty();
  std::mt19937_64 random(11);
  std::map<uint64_t, std::pair<bool, int64_t>> expected;  // key -> (tombstone, position or seconds)
  std::vector<int64_t> chain;
  for (int64_t snapshot = 1; snapshot <= 6; ++snapshot) {
    KeyIndexDelta delta;
    for (int i = 0; i < 3000; ++i) {
      const uint64_t key = random() % 20000;
      if (random() % 10 == 0) {
        delta.PutTombstone({0, key}, Order(snapshot), 1'600'000'000'000 + snapshot * 1000);
        expected[key] = {true, 1'600'000'000 + snapshot};
      } else {
        const auto position = static_cast<int64_t>(random() % 100000);
        delta.PutLive({0, key}, "file-" + std::to_string(snapshot), position, Order(snapshot));
        expected[key] = {false, position};
      }
    }
    ASSERT_OK(index.Save(std::move(delta), snapshot));
    chain.push_back(snapshot);
  }
  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded, LoadFor(chain, &warnings));
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  EXPECT_EQ(loaded.run_count(), index.run_count());
  std::vector<KeyId> keys;
  for (const auto& [key, want] : expected) keys.push_back({0, key});
  std::vector<std::optional<PrimaryKeyIndex::Entry>> found;
  ASSERT_OK(loaded.FindMany(keys, &found));
  size_t i = 0;
  for (const auto& [key, want] : expected) {
    const auto& got = found[i++];
    ASSERT_TRUE(got.has_value()) << key;
    EXPECT_EQ(got->tombstone, want.first) << key;
    EXPECT_EQ(got->tombstone ? got->deleted_at_ms / 1000 : got->position, want.second) << key;
  }
  // Only the current and the previous snapshot's manifests are kept, and the runs they name.
  StateFiles files = ListState(state());
  EXPECT_EQ(files.manifests, (std::vector<std::string>{"index-5.bin", "index-6.bin"}));
  EXPECT_EQ(files.others, 0u);
}

TEST_F(PrimaryKeyIndexTest, BackgroundMergesKeepRunsFewAndAnswersUnchanged) {
  PrimaryKeyIndex index = Empty();
  std::map<uint64_t, int64_t> expected;
  std::mt19937_64 random(12);
  for (int64_t snapshot = 1; snapshot <= 24; ++snapshot) {
    KeyIndexDelta delta;
    for (int i = 0; i < 500; ++i) {
      const uint64_t key = random() % 100000;
      delta.PutLive({0, key}, "f", snapshot * 1000 + i, Order(static_cast<uint64_t>(snapshot)));
      expected[key] = snapshot * 1000 + i;
    }
    ASSERT_OK(index.Save(std::move(delta), snapshot));
    index.AdoptFinishedMerge();  // as the ingestor does between batches
  }
  index.FinishMerges(true);
  EXPECT_LE(index.run_count(), 8u);
  StateFiles files = ListState(state());
  EXPECT_EQ(files.runs.size(), index.run_count());  // merged-away runs are deleted
  EXPECT_LE(files.manifests.size(), 2u);
  for (const auto& [key, position] : expected) {
    auto e = Get(index, {0, key});
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->position, position);
  }
  // The rewritten manifest loads to the same answers.
  std::vector<int64_t> chain;
  for (int64_t s = 1; s <= 24; ++s) chain.push_back(s);
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded, LoadFor(chain));
  for (const auto& [key, position] : expected) EXPECT_EQ(Get(loaded, {0, key})->position, position);
}

// A crash between writing a snapshot's index and committing it: the table
// still names the parent, whose index is intact.
TEST_F(PrimaryKeyIndexTest, AnUncommittedSaveLeavesTheParentsIndex) {
  PrimaryKeyIndex index = Empty();
  KeyIndexDelta first;
  first.PutLive({0, 1}, "a", 1, Order(1));
  ASSERT_OK(index.Save(std::move(first), 10));
  KeyIndexDelta second;
  second.PutLive({0, 1}, "b", 2, Order(2));
  ASSERT_OK_AND_ASSIGN(auto saved, index.Prepare(std::move(second), 11));
  EXPECT_TRUE(std::filesystem::exists(saved.manifest_path));
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex after_crash, LoadFor({10}));
  EXPECT_EQ(Get(after_crash, {0, 1})->data_file, "a");
  // A commit that definitely failed takes its files along.
  index.Discard(saved);
  EXPECT_FALSE(std::filesystem::exists(saved.manifest_path));
  EXPECT_FALSE(std::filesystem::exists(saved.run_path));
  EXPECT_EQ(Get(index, {0, 1})->data_file, "a");
}

TEST_F(PrimaryKeyIndexTest, HashedKeysRoundTrip) {
  PrimaryKeyIndex index = Empty();
  KeyIndexDelta delta;
  delta.PutLive({11, 12}, "f", 3, Order(4));
  delta.PutTombstone({13, 14}, Order(5), 6000);
  ASSERT_OK(index.Save(std::move(delta), 5));
  KeyIndexSpec two_columns{{"id", "name"}, "seq", OrderingKind::kPaddedHex};
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded, LoadFor({5}, nullptr, two_columns));
  EXPECT_EQ(Get(loaded, {11, 12})->position, 3);
  EXPECT_EQ(Get(loaded, {13, 14})->deleted_at_ms, 6000);
  // An integer key column now: hashed runs are not trusted.
  std::vector<std::string> warnings;
  EXPECT_FALSE(LoadFor({5}, &warnings).ok());
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("holds hashed keys"), std::string::npos) << warnings[0];
}

// Flips one byte of the file at `offset` (from the end when negative).
void Corrupt(const std::string& path, int64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  int64_t size = f.tellg();
  int64_t at = offset < 0 ? size + offset : offset;
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c ^= 0x5A;
  f.seekp(at);
  f.write(&c, 1);
}

TEST_F(PrimaryKeyIndexTest, CorruptOrMismatchedFilesAreNeverTrusted) {
  auto save = [&]() -> PrimaryKeyIndex::PendingSave {
    std::filesystem::remove_all(state());
    PrimaryKeyIndex index = Empty();
    KeyIndexDelta delta;
    for (uint64_t k = 0; k < 100; ++k) delta.PutLive({0, k}, "f", static_cast<int64_t>(k), Order(k));
    auto saved = index.Prepare(std::move(delta), 9);
    EXPECT_OK(saved.status());
    index.Publish(*saved);
    return *saved;
  };
  // A damaged manifest, or a damaged run's header, footer or tail: not loaded.
  for (bool damage_run : {false, true}) {
    for (int64_t offset : {int64_t{0}, int64_t{9}, int64_t{30}, int64_t{-1}, int64_t{-30}}) {
      if (damage_run && offset > 8) continue;  // block bytes: below
      const auto saved = save();
      Corrupt(damage_run ? saved.run_path : saved.manifest_path, offset);
      std::vector<std::string> warnings;
      // The rebuild then fails because this table's manifest list does not exist:
      // what matters is that the damaged file was not used.
      auto loaded = LoadFor({9}, &warnings);
      EXPECT_FALSE(loaded.ok()) << offset;
      ASSERT_EQ(warnings.size(), 1u) << offset;
      EXPECT_NE(warnings[0].find("ignoring key index"), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[0].find("Corruption"), std::string::npos) << warnings[0];
    }
  }
  // A damaged block is found when it is read: Corruption naming the run,
  // and DiscardDamaged deletes the run and the manifest naming it.
  for (int64_t offset : {int64_t{9}, int64_t{30}}) {
    const auto saved = save();
    Corrupt(saved.run_path, offset);
    ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded, LoadFor({9}));
    auto found = loaded.Find({0, 1});
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(found.status().message().find(saved.run_path), std::string::npos) << found.status().ToString();
    EXPECT_TRUE(loaded.damaged());
    loaded.DiscardDamaged();
    EXPECT_FALSE(std::filesystem::exists(saved.run_path));
    EXPECT_FALSE(std::filesystem::exists(saved.manifest_path));
  }
  // Truncated, or a run gone.
  auto saved = save();
  std::filesystem::resize_file(saved.manifest_path, 20);
  std::vector<std::string> warnings;
  EXPECT_FALSE(LoadFor({9}, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  saved = save();
  std::filesystem::remove(saved.run_path);
  warnings.clear();
  EXPECT_FALSE(LoadFor({9}, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no such file"), std::string::npos) << warnings[0];

  // An index saved for other key columns is not used either.
  save();
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex stamped, LoadFor({9}));  // Load stamps the spec...
  KeyIndexDelta more;
  more.PutLive({0, 500}, "g", 0, Order(1));
  ASSERT_OK(stamped.Save(std::move(more), 9));  // ...which its manifests carry
  warnings.clear();
  KeyIndexSpec other{{"id"}, "name", OrderingKind::kPaddedHex};
  EXPECT_FALSE(LoadFor({9}, &warnings, other).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("written for keys=id;order=seq;kind=hex"), std::string::npos) << warnings[0];
}

TEST_F(PrimaryKeyIndexTest, RandomDamageOfTheManifestIsAlwaysDetected) {
  PrimaryKeyIndex index = Empty();
  for (int64_t s = 1; s <= 3; ++s) {
    KeyIndexDelta delta;
    for (uint64_t k = 0; k < 40; ++k)
      delta.PutLive({k * 31, k}, "file-" + std::to_string(k % 3), s, Order(k));
    ASSERT_OK(index.Save(std::move(delta), s));
  }
  const std::string path = PrimaryKeyIndex::FilePath(state(), 3);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> original, io_->ReadAll(path));
  KeyIndexSpec spec{{"id", "name"}, "seq", OrderingKind::kPaddedHex};
  std::mt19937 random(5);
  for (int round = 0; round < 120; ++round) {
    std::vector<uint8_t> damaged = original;
    if (round % 3 == 0) {
      damaged.resize(random() % damaged.size());
    } else {
      for (int flips = 1 + round % 4; flips > 0; --flips)
        damaged[random() % damaged.size()] ^= 1 + random() % 255;
    }
    if (damaged == original) continue;
    ASSERT_OK(io_->WriteAll(path, std::span<const uint8_t>(damaged)));
    std::vector<std::string> warnings;
    // Chain {3}: no ancestor manifest to catch up from; the fake table cannot be rebuilt.
    auto loaded = PrimaryKeyIndex::Load(io_, state(), TableWithSnapshots({3}), *io_, spec, &warnings);
    EXPECT_FALSE(loaded.ok()) << round;
    EXPECT_FALSE(warnings.empty()) << round;
  }
}

TEST_F(PrimaryKeyIndexTest, UnnamedFilesGoOnceStale) {
  PrimaryKeyIndex index = Empty();
  KeyIndexDelta first;
  first.PutLive({0, 1}, "a", 1, Order(1));
  ASSERT_OK(index.Save(std::move(first), 1));
  std::filesystem::create_directories(state());
  // A merge or a process that died: an unnamed run and a temp file, old and new.
  const std::string old_run = state() + "/keys-00000000000000aa.run";
  const std::string new_run = state() + "/keys-00000000000000bb.run";
  const std::string old_temp = state() + "/.keys-00000000000000cc.run.tmp-1-1";
  const std::string unrelated = state() + "/notes.txt";
  for (const std::string& path : {old_run, new_run, old_temp, unrelated}) std::ofstream(path) << "x";
  const auto two_hours_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(2);
  std::filesystem::last_write_time(old_run, two_hours_ago);
  std::filesystem::last_write_time(old_temp, two_hours_ago);
  KeyIndexDelta second;
  second.PutLive({0, 2}, "a", 2, Order(2));
  ASSERT_OK(index.Save(std::move(second), 2));
  EXPECT_FALSE(std::filesystem::exists(old_run));
  EXPECT_FALSE(std::filesystem::exists(old_temp));
  EXPECT_TRUE(std::filesystem::exists(new_run));
  EXPECT_TRUE(std::filesystem::exists(unrelated));
}

TEST_F(PrimaryKeyIndexTest, LoadNamesAMissingKeyColumn) {
  KeyIndexSpec spec{{"customer_id"}, "seq", OrderingKind::kPaddedHex};
  auto loaded = LoadFor({1}, nullptr, spec);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("customer_id"), std::string::npos);
}

}  // namespace
}  // namespace floe::ingest
