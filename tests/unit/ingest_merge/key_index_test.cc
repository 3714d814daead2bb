#include "ingest/merge/key_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "ingest/merge/murmur3_128.h"
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

TEST(PrimaryKeyIndexTest, PutFindOverwriteTombstone) {
  PrimaryKeyIndex index;
  EXPECT_FALSE(index.Find({0, 1}).has_value());
  index.PutLive({0, 1}, "s3://b/data/a.parquet", 10, Order(5));
  index.PutLive({0, 2}, "s3://b/data/a.parquet", 11, Order(6));
  auto e = index.Find({0, 1});
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->tombstone);
  EXPECT_EQ(e->data_file, "s3://b/data/a.parquet");
  EXPECT_EQ(e->position, 10);
  EXPECT_EQ(e->order, Order(5));
  EXPECT_EQ(index.live_count(), 2);

  index.PutLive({0, 1}, "s3://b/data/b.parquet", 0, Order(9));
  e = index.Find({0, 1});
  EXPECT_EQ(e->data_file, "s3://b/data/b.parquet");
  EXPECT_EQ(e->position, 0);
  EXPECT_EQ(e->order, Order(9));
  EXPECT_EQ(index.live_count(), 2);

  index.PutTombstone({0, 2}, Order(7), 1'700'000'000'500);
  e = index.Find({0, 2});
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->tombstone);
  EXPECT_EQ(e->order, Order(7));
  EXPECT_EQ(e->deleted_at_ms, 1'700'000'001'000);  // whole seconds, rounded up
  EXPECT_EQ(index.live_count(), 1);
  EXPECT_EQ(index.tombstone_count(), 1);

  index.PutLive({0, 2}, "s3://b/data/c.parquet", 3, Order(8));  // re-inserted after the delete
  EXPECT_FALSE(index.Find({0, 2})->tombstone);
  EXPECT_EQ(index.live_count(), 2);
  EXPECT_EQ(index.tombstone_count(), 0);
}

TEST(PrimaryKeyIndexTest, DropTombstonesBeforeKeepsEverythingElseFindable) {
  PrimaryKeyIndex index;
  constexpr int64_t kKeys = 20000;
  for (int64_t k = 0; k < kKeys; ++k) {
    KeyId key{0, static_cast<uint64_t>(k)};
    if (k % 3 == 0) {
      index.PutTombstone(key, Order(k), (k % 2 == 0 ? 1000 : 5000) * int64_t{1000});
    } else {
      index.PutLive(key, "f" + std::to_string(k % 7), k, Order(k));
    }
  }
  int64_t tombstones = index.tombstone_count();
  int64_t dropped = index.DropTombstonesBefore(3000 * int64_t{1000});
  EXPECT_GT(dropped, 0);
  EXPECT_EQ(index.tombstone_count(), tombstones - dropped);
  for (int64_t k = 0; k < kKeys; ++k) {
    auto e = index.Find({0, static_cast<uint64_t>(k)});
    if (k % 3 == 0 && k % 2 == 0) {
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
  EXPECT_EQ(index.DropTombstonesBefore(3000 * int64_t{1000}), 0);
}

TEST(PrimaryKeyIndexTest, HugePositionsAndHashedKeys) {
  PrimaryKeyIndex index;
  const int64_t huge = int64_t{1} << 33;
  index.PutLive({0, 5}, "big", huge, Order(1));
  index.PutLive({0, 6}, "big", 0xFFFFFFFEll, Order(1));
  EXPECT_EQ(index.Find({0, 5})->position, huge);
  EXPECT_EQ(index.Find({0, 6})->position, 0xFFFFFFFEll);
  // A 128-bit key switches the table to wide slots; the int keys stay findable.
  index.PutLive({0xABCDEF, 17}, "h", 1, Order(2));
  EXPECT_EQ(index.Find({0, 5})->position, huge);
  EXPECT_EQ(index.Find({0xABCDEF, 17})->data_file, "h");
  EXPECT_FALSE(index.Find({0xABCDEF, 5}).has_value());
  index.PutTombstone({0, 5}, Order(3), 0);
  EXPECT_TRUE(index.Find({0, 5})->tombstone);
  EXPECT_EQ(index.live_count(), 2);
}

TEST(PrimaryKeyIndexTest, GrowsToOneMillionIntKeysWithin32BytesEach) {
  PrimaryKeyIndex index;
  std::mt19937_64 random(7);
  std::vector<uint64_t> keys(1'000'000);
  for (auto& k : keys) k = random();
  for (size_t i = 0; i < keys.size(); ++i) {
    index.PutLive({0, keys[i]}, "s3://bucket/warehouse/db/t/data/00000-0-file.parquet",
                  static_cast<int64_t>(i), Order(i));
    if (i > 1024 && i % 9973 == 0) {
      double per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
      ASSERT_LE(per_key, 32.0) << "after " << i << " keys";
    }
  }
  ASSERT_EQ(index.live_count(), 1'000'000);
  double per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
  EXPECT_LE(per_key, 32.0);  // 24-byte slots at a load factor of 0.81-0.9
  EXPECT_GE(per_key, 24.0);
  for (size_t i = 0; i < keys.size(); i += 97) {
    auto e = index.Find({0, keys[i]});
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->position, static_cast<int64_t>(i));
  }
  EXPECT_FALSE(index.Find({0, 12345}).has_value());
}

TEST(PrimaryKeyIndexTest, OneMillionHashedKeysWithin32BytesEach) {
  PrimaryKeyIndex index;
  std::vector<KeyId> keys(1'000'000);
  for (size_t i = 0; i < keys.size(); ++i) {
    Hash128 h = Murmur3x64_128(std::to_string(i));
    keys[i] = {h.h1, h.h2};
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    index.PutLive(keys[i], "data/f.parquet", static_cast<int64_t>(i), Order(i));
    if (i > 1024 && i % 9973 == 0) {
      double per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
      ASSERT_LE(per_key, 32.1) << "after " << i << " keys";
    }
  }
  ASSERT_EQ(index.live_count(), 1'000'000);
  for (size_t i = 0; i < keys.size(); i += 101) {
    auto e = index.Find(keys[i]);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->position, static_cast<int64_t>(i));
    EXPECT_EQ(e->order, Order(i));
  }
  EXPECT_FALSE(index.Find({keys[0].hi, keys[0].lo + 1}).has_value());
}

TEST(PrimaryKeyIndexTest, ReserveThenInsertKeepsTheBand) {
  PrimaryKeyIndex index;
  for (uint64_t k = 0; k < 100'000; ++k) index.PutLive({0, k}, "a", 0, Order(k));
  index.Reserve(900'000);
  const int64_t reserved = index.MemoryBytes();
  for (uint64_t k = 100'000; k < 1'000'000; ++k) index.PutLive({0, k}, "a", 0, Order(k));
  EXPECT_EQ(index.MemoryBytes(), reserved);  // no growth after the Reserve
  EXPECT_LE(static_cast<double>(reserved) / 1e6, 32.0);
  index.Reserve(0);
  index.Reserve(-5);
  EXPECT_EQ(index.MemoryBytes(), reserved);
}

// A table with one snapshot and no manifests: Load must use the index file.
iceberg::TableMetadata TableWithSnapshots(std::vector<int64_t> chain) {
  iceberg::TableMetadata t;
  t.location = "/nonexistent/table";
  iceberg::Schema schema;
  schema.fields.push_back(
      iceberg::MakeNestedField(1, "id", iceberg::PrimitiveType(iceberg::TypeKind::kLong), true));
  schema.fields.push_back(
      iceberg::MakeNestedField(2, "seq", iceberg::PrimitiveType(iceberg::TypeKind::kString), false));
  schema.fields.push_back(
      iceberg::MakeNestedField(3, "name", iceberg::PrimitiveType(iceberg::TypeKind::kString), false));
  t.schemas.push_back(schema);
  std::optional<int64_t> parent;
  int64_t seq = 0;
  for (int64_t id : chain) {
    iceberg::Snapshot s;
    s.snapshot_id = id;
    s.parent_snapshot_id = parent;
    s.sequence_number = ++seq;
    s.manifest_list = "/nonexistent/table/metadata/snap-" + std::to_string(id) + ".avro";
    t.snapshots.push_back(s);
    parent = id;
  }
  t.current_snapshot_id = parent;
  return t;
}

KeyIndexSpec IdSpec() {
  return KeyIndexSpec{{"id"}, "seq", OrderingKind::kPaddedHex};
}

// Ordering values whose high 8 bytes differ from the index's shared high
// half live in a side map: Find, overwrite, tombstones, dropping and
// Save/Load all see the full 16 bytes.
TEST(PrimaryKeyIndexTest, OrderingValuesWithOtherHighHalvesRoundTrip) {
  auto wide_order = [](uint64_t hi, uint64_t lo) {
    OrderValue o = Order(lo);
    for (int i = 0; i < 8; ++i) o.bytes[static_cast<size_t>(7 - i)] = static_cast<uint8_t>(hi >> (8 * i));
    return o;
  };
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  PrimaryKeyIndex index;
  index.PutLive({0, 1}, "f", 1, wide_order(9, 1));  // the shared high half becomes 9
  index.PutLive({0, 2}, "f", 2, wide_order(0, 5));
  index.PutTombstone({0, 3}, wide_order(~uint64_t{0}, 7), 2'000'000);
  index.PutLive({0, 4}, "f", 4, wide_order(1, 1));
  index.PutLive({0, 4}, "g", 5, wide_order(9, 2));  // back to the shared half
  index.PutTombstone({0, 2}, wide_order(10, 0), 3'000'000);
  EXPECT_EQ(index.Find({0, 1})->order, wide_order(9, 1));
  EXPECT_EQ(index.Find({0, 2})->order, wide_order(10, 0));
  EXPECT_TRUE(index.Find({0, 2})->tombstone);
  EXPECT_EQ(index.Find({0, 3})->order, wide_order(~uint64_t{0}, 7));
  EXPECT_EQ(index.Find({0, 4})->order, wide_order(9, 2));
  EXPECT_EQ(index.Find({0, 4})->data_file, "g");
  ASSERT_OK(index.Save(*io, dir.path().string(), 8));
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded, PrimaryKeyIndex::Load(*io, dir.path().string(),
                                                                     TableWithSnapshots({8}), *io, IdSpec()));
  for (uint64_t k = 1; k <= 4; ++k) {
    auto want = index.Find({0, k});
    auto got = loaded.Find({0, k});
    ASSERT_TRUE(got.has_value()) << k;
    EXPECT_EQ(got->order, want->order) << k;
    EXPECT_EQ(got->tombstone, want->tombstone) << k;
    EXPECT_EQ(got->data_file, want->data_file) << k;
  }
  EXPECT_EQ(loaded.DropTombstonesBefore(2'500'000), 1);
  EXPECT_FALSE(loaded.Find({0, 3}).has_value());
  EXPECT_EQ(loaded.Find({0, 2})->order, wide_order(10, 0));
  // Widening keeps the side map's entries.
  loaded.PutLive({77, 78}, "h", 0, wide_order(3, 3));
  EXPECT_EQ(loaded.Find({0, 2})->order, wide_order(10, 0));
  EXPECT_EQ(loaded.Find({77, 78})->order, wide_order(3, 3));
}

TEST(PrimaryKeyIndexTest, SaveLoadRoundTrip) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  PrimaryKeyIndex index;
  for (uint64_t k = 0; k < 5000; ++k) {
    if (k % 10 == 0) {
      index.PutTombstone({0, k}, Order(k), 1'600'000'000'000 + static_cast<int64_t>(k) * 1000);
    } else {
      index.PutLive({0, k}, "file-" + std::to_string(k % 13), static_cast<int64_t>(k), Order(k * 3));
    }
  }
  index.PutLive({0, 999'999}, "file-huge", int64_t{1} << 40, Order(1));
  index.PutLive({0, 1}, "file-only-before", 1, Order(1));
  index.PutLive({0, 1}, "file-1", 1, Order(3));  // file-only-before is no longer referenced
  const std::string state = dir.File("state");
  ASSERT_OK(index.Save(*io, state, 77));
  ASSERT_TRUE(std::filesystem::exists(PrimaryKeyIndex::FilePath(state, 77)));

  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded,
                       PrimaryKeyIndex::Load(*io, state, TableWithSnapshots({77}), *io, IdSpec(), &warnings));
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(loaded.live_count(), index.live_count());
  EXPECT_EQ(loaded.tombstone_count(), index.tombstone_count());
  for (uint64_t k :
       {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{4990}, uint64_t{4999}, uint64_t{999'999}}) {
    auto want = index.Find({0, k});
    auto got = loaded.Find({0, k});
    ASSERT_TRUE(got.has_value()) << k;
    EXPECT_EQ(got->tombstone, want->tombstone);
    EXPECT_EQ(got->order, want->order);
    EXPECT_EQ(got->data_file, want->data_file);
    EXPECT_EQ(got->position, want->position);
    EXPECT_EQ(got->deleted_at_ms, want->deleted_at_ms);
  }
  // Saving the loaded index again writes the same entries, now stamped with the spec Load was given.
  ASSERT_OK(loaded.Save(*io, dir.File("again"), 77));
  ASSERT_OK_AND_ASSIGN(auto first, io->ReadAll(PrimaryKeyIndex::FilePath(state, 77)));
  ASSERT_OK_AND_ASSIGN(auto second, io->ReadAll(PrimaryKeyIndex::FilePath(dir.File("again"), 77)));
  EXPECT_EQ(second.size(), first.size() + std::string("keys=id;order=seq;kind=hex").size());
}

TEST(PrimaryKeyIndexTest, HashedKeysRoundTrip) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  PrimaryKeyIndex index;
  index.PutLive({11, 12}, "f", 3, Order(4));
  index.PutTombstone({13, 14}, Order(5), 6000);
  ASSERT_OK(index.Save(*io, dir.path().string(), 5));
  iceberg::TableMetadata table = TableWithSnapshots({5});
  KeyIndexSpec two_columns{{"id", "name"}, "seq", OrderingKind::kPaddedHex};
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex loaded,
                       PrimaryKeyIndex::Load(*io, dir.path().string(), table, *io, two_columns));
  EXPECT_EQ(loaded.Find({11, 12})->position, 3);
  EXPECT_EQ(loaded.Find({13, 14})->deleted_at_ms, 6000);
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

TEST(PrimaryKeyIndexTest, CorruptOrMismatchedFilesAreNeverTrusted) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const std::string state = dir.path().string();
  PrimaryKeyIndex index;
  for (uint64_t k = 0; k < 100; ++k) index.PutLive({0, k}, "f", static_cast<int64_t>(k), Order(k));
  iceberg::TableMetadata table = TableWithSnapshots({9});

  for (int64_t offset : {int64_t{0}, int64_t{9}, int64_t{40}, int64_t{-1}, int64_t{-30}}) {
    ASSERT_OK(index.Save(*io, state, 9));
    Corrupt(PrimaryKeyIndex::FilePath(state, 9), offset);
    std::vector<std::string> warnings;
    // The rebuild then fails because this table's manifest list does not exist:
    // what matters is that the corrupt file was not used.
    auto loaded = PrimaryKeyIndex::Load(*io, state, table, *io, IdSpec(), &warnings);
    EXPECT_FALSE(loaded.ok()) << offset;
    ASSERT_EQ(warnings.size(), 1u) << offset;
    EXPECT_NE(warnings[0].find("ignoring key index"), std::string::npos) << warnings[0];
  }

  // Truncated files.
  ASSERT_OK(index.Save(*io, state, 9));
  std::filesystem::resize_file(PrimaryKeyIndex::FilePath(state, 9), 50);
  std::vector<std::string> warnings;
  EXPECT_FALSE(PrimaryKeyIndex::Load(*io, state, table, *io, IdSpec(), &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("Corruption"), std::string::npos) << warnings[0];

  // An index saved for other key columns is not used either.
  ASSERT_OK(index.Save(*io, state, 9));
  ASSERT_OK(PrimaryKeyIndex::Load(*io, state, table, *io, IdSpec()).status());  // stamps the spec...
  ASSERT_OK_AND_ASSIGN(PrimaryKeyIndex stamped, PrimaryKeyIndex::Load(*io, state, table, *io, IdSpec()));
  ASSERT_OK(stamped.Save(*io, state, 9));  // ...which Save writes
  warnings.clear();
  KeyIndexSpec other{{"id"}, "name", OrderingKind::kPaddedHex};
  EXPECT_FALSE(PrimaryKeyIndex::Load(*io, state, table, *io, other, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("written for keys=id;order=seq;kind=hex"), std::string::npos) << warnings[0];
}

TEST(PrimaryKeyIndexTest, RandomDamageIsAlwaysDetected) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const std::string state = dir.path().string();
  PrimaryKeyIndex index;
  for (uint64_t k = 0; k < 40; ++k) {
    if (k % 4 == 0) {
      index.PutTombstone({k * 31, k}, Order(k), 1000 * static_cast<int64_t>(k));
    } else {
      index.PutLive({k * 31, k}, "file-" + std::to_string(k % 3), k == 5 ? int64_t{1} << 35 : 1, Order(k));
    }
  }
  ASSERT_OK(index.Save(*io, state, 3));
  const std::string path = PrimaryKeyIndex::FilePath(state, 3);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> original, io->ReadAll(path));
  iceberg::TableMetadata table = TableWithSnapshots({3});
  KeyIndexSpec spec{{"id", "name"}, "seq", OrderingKind::kPaddedHex};
  std::mt19937 random(5);
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> damaged = original;
    if (round % 3 == 0) {
      damaged.resize(random() % damaged.size());
    } else {
      for (int flips = 1 + round % 4; flips > 0; --flips)
        damaged[random() % damaged.size()] ^= 1 + random() % 255;
    }
    if (damaged == original) continue;
    ASSERT_OK(io->WriteAll(path, std::span<const uint8_t>(damaged)));
    std::vector<std::string> warnings;
    auto loaded = PrimaryKeyIndex::Load(*io, state, table, *io, spec, &warnings);
    EXPECT_FALSE(loaded.ok()) << round;  // never trusted, and the fake table cannot be rebuilt
    EXPECT_EQ(warnings.size(), 1u) << round;
  }
}

TEST(PrimaryKeyIndexTest, LoadNamesAMissingKeyColumn) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  KeyIndexSpec spec{{"customer_id"}, "seq", OrderingKind::kPaddedHex};
  auto loaded = PrimaryKeyIndex::Load(*io, dir.path().string(), TableWithSnapshots({1}), *io, spec);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("customer_id"), std::string::npos);
}

}  // namespace
}  // namespace floe::ingest
