// ChangeMap: newest change per key wins, ties go to the later upsert, side
// map for odd ordering values and rows, widening, memory per change.
#include "ingest/change_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace floe::ingest {
namespace {

OrderValue Order(uint64_t hi, uint64_t lo) {
  OrderValue order;
  for (int i = 0; i < 8; ++i) {
    order.bytes[static_cast<size_t>(7 - i)] = static_cast<uint8_t>(hi >> (8 * i));
    order.bytes[static_cast<size_t>(15 - i)] = static_cast<uint8_t>(lo >> (8 * i));
  }
  return order;
}

Change MakeChange(KeyId key, OrderValue order, int32_t file, int64_t row, bool is_delete = false) {
  return Change{key, order, file, row, is_delete};
}

std::map<std::pair<uint64_t, uint64_t>, Change> Contents(const ChangeMap& map) {
  std::map<std::pair<uint64_t, uint64_t>, Change> out;
  map.ForEach([&](const Change& change) {
    EXPECT_TRUE(out.emplace(std::make_pair(change.key.hi, change.key.lo), change).second)
        << "key visited twice";
  });
  return out;
}

void ExpectSame(const Change& a, const Change& b) {
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.is_delete, b.is_delete);
}

TEST(ChangeMapTest, NewestWinsAndTiesGoToTheLaterUpsert) {
  ChangeMap map;
  EXPECT_FALSE(map.Upsert(MakeChange({0, 7}, Order(0, 10), 0, 1)));
  EXPECT_TRUE(map.Upsert(MakeChange({0, 7}, Order(0, 5), 1, 2)));         // older: loses
  EXPECT_TRUE(map.Upsert(MakeChange({0, 7}, Order(0, 10), 2, 3, true)));  // tie: the later one wins
  EXPECT_FALSE(map.Upsert(MakeChange({0, 8}, Order(0, 1), 0, 4)));
  auto contents = Contents(map);
  ASSERT_EQ(contents.size(), 2u);
  ExpectSame(contents.at({0, 7}), MakeChange({0, 7}, Order(0, 10), 2, 3, true));
  ExpectSame(contents.at({0, 8}), MakeChange({0, 8}, Order(0, 1), 0, 4));
}

TEST(ChangeMapTest, OrderHighHalvesAndHugeRowsRoundTripThroughTheSideMap) {
  ChangeMap map;
  map.Upsert(MakeChange({0, 1}, Order(5, 1), 0, 0));                      // sets the shared high half 5
  map.Upsert(MakeChange({0, 2}, Order(6, 0), 1, 1));                      // differs: side map
  map.Upsert(MakeChange({0, 3}, Order(5, 2), 2, int64_t{1} << 40));       // row >= 2^32 - 1
  map.Upsert(MakeChange({0, 4}, Order(4, ~uint64_t{0}), 3, 0xFFFFFFFF));  // both
  // Replacing a side entry by a plain one and the other way round.
  EXPECT_TRUE(map.Upsert(MakeChange({0, 2}, Order(7, 0), 4, 9)));
  EXPECT_TRUE(map.Upsert(MakeChange({0, 4}, Order(5, 0), 5, 10)));
  EXPECT_TRUE(map.Upsert(MakeChange({0, 2}, Order(6, 99), 6, 11)));  // older than (7, 0): loses
  auto contents = Contents(map);
  ASSERT_EQ(contents.size(), 4u);
  ExpectSame(contents.at({0, 1}), MakeChange({0, 1}, Order(5, 1), 0, 0));
  ExpectSame(contents.at({0, 2}), MakeChange({0, 2}, Order(7, 0), 4, 9));
  ExpectSame(contents.at({0, 3}), MakeChange({0, 3}, Order(5, 2), 2, int64_t{1} << 40));
  ExpectSame(contents.at({0, 4}), MakeChange({0, 4}, Order(5, 0), 5, 10));
}

TEST(ChangeMapTest, HashedKeyWidensAndKeepsEverything) {
  ChangeMap map;
  for (uint64_t k = 0; k < 3000; ++k) map.Upsert(MakeChange({0, k}, Order(0, k), 1, static_cast<int64_t>(k)));
  EXPECT_FALSE(map.hashed());
  map.Upsert(MakeChange({0xABCDEF, 42}, Order(0, 1), 2, 5, true));
  EXPECT_TRUE(map.hashed());
  auto contents = Contents(map);
  ASSERT_EQ(contents.size(), 3001u);
  ExpectSame(contents.at({0, 2999}), MakeChange({0, 2999}, Order(0, 2999), 1, 2999));
  ExpectSame(contents.at({0xABCDEF, 42}), MakeChange({0xABCDEF, 42}, Order(0, 1), 2, 5, true));
}

TEST(ChangeMapTest, AgreesWithAReferenceMapOnRandomChanges) {
  std::mt19937_64 random(3);
  ChangeMap map;
  std::map<std::pair<uint64_t, uint64_t>, Change> reference;
  for (int i = 0; i < 200000; ++i) {
    const bool hashed = i > 100000 && random() % 50 == 0;
    KeyId key{hashed ? random() | 1 : 0, random() % 40000};
    Change change = MakeChange(key, Order(random() % 100 == 0 ? 1 : 0, random() % 1000),
                               static_cast<int32_t>(i / 1000), i % 1000, random() % 7 == 0);
    const bool existed = reference.count({key.hi, key.lo}) > 0;
    EXPECT_EQ(map.Upsert(change), existed);
    auto [it, inserted] = reference.emplace(std::make_pair(key.hi, key.lo), change);
    if (!inserted && change.order >= it->second.order) it->second = change;
  }
  auto contents = Contents(map);
  ASSERT_EQ(contents.size(), reference.size());
  for (const auto& [key, change] : reference) ExpectSame(contents.at(key), change);
}

// Upserts through PrefetchedUpserts land in the order added, exactly as
// direct ones: the same winners (ties to the later change, also within the
// prefetch window and across the widening to hashed keys) and the same
// count of superseded changes, batch after batch.
TEST(ChangeMapTest, PrefetchedUpsertsEqualDirectUpsertsInOrder) {
  std::mt19937_64 random(11);
  ChangeMap direct;
  ChangeMap prefetched;
  PrefetchedUpserts upserts(prefetched);
  for (int batch = 0; batch < 40; ++batch) {
    const int changes = static_cast<int>(random() % 40);  // below, at and above the window
    int64_t superseded = 0;
    for (int i = 0; i < changes; ++i) {
      const bool hashed = batch > 30 && random() % 20 == 0;
      KeyId key{hashed ? random() | 1 : 0, random() % 64};  // repeats within a window
      Change change = MakeChange(key, Order(0, random() % 4), batch, i, random() % 5 == 0);
      superseded += direct.Upsert(change) ? 1 : 0;
      upserts.Add(change);
    }
    EXPECT_EQ(upserts.Finish(), superseded) << "batch " << batch;
  }
  auto want = Contents(direct);
  auto got = Contents(prefetched);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [key, change] : want) ExpectSame(got.at(key), change);
  EXPECT_EQ(prefetched.hashed(), direct.hashed());
}

TEST(ChangeMapTest, BytesPerChangeStayWithinTheContract) {
  for (bool hashed : {false, true}) {
    ChangeMap map;
    const size_t n = 300'000;
    for (uint64_t k = 0; k < n; ++k) map.Upsert(MakeChange({hashed ? k * 31 + 1 : 0, k}, Order(0, k), 0, 0));
    const double per_change = static_cast<double>(map.MemoryBytes()) / static_cast<double>(n);
    EXPECT_LE(per_change, hashed ? 53.4 : 40.1) << (hashed ? "hashed" : "integer");
    EXPECT_GE(map.MemoryBytesWith(n, hashed), map.MemoryBytes());
    map.Clear();
    EXPECT_EQ(map.MemoryBytes(), 0u);
    EXPECT_TRUE(map.empty());
  }
}

// A batch's map is reserved for each file merged into it (BatchChanges::
// Merge): the reservations grow it geometrically, so 300 files of 1,000 new
// keys rehash it 15 times, not at every ~11% of growth (37 times).
TEST(ChangeMapTest, RepeatedReservesGrowGeometrically) {
  ChangeMap map;
  size_t growths = 0;
  size_t bytes = 0;
  uint64_t next = 0;
  for (int file = 0; file < 300; ++file) {
    map.Reserve(map.size() + 1000);
    for (int row = 0; row < 1000; ++row, ++next) map.Upsert(MakeChange({0, next}, Order(0, next), file, row));
    if (map.MemoryBytes() != bytes) ++growths;
    bytes = map.MemoryBytes();
  }
  EXPECT_EQ(map.size(), 300'000u);
  EXPECT_LE(growths, 16u);
  EXPECT_LE(static_cast<double>(bytes) / 300'000.0, 40.1);
  // What the budget check predicts is what a reserve then takes.
  const size_t predicted = map.MemoryBytesWith(200'000, false);
  map.Reserve(map.size() + 200'000);
  EXPECT_EQ(map.MemoryBytes(), predicted);
}

TEST(ChangeMapTest, ReserveAvoidsGrowthAndKeepsEntries) {
  ChangeMap map;
  map.Upsert(MakeChange({0, 1}, Order(0, 1), 0, 0));
  map.Reserve(100000);
  const size_t reserved = map.MemoryBytes();
  for (uint64_t k = 2; k <= 100000; ++k) map.Upsert(MakeChange({0, k}, Order(0, k), 0, 0));
  EXPECT_EQ(map.MemoryBytes(), reserved);
  EXPECT_EQ(map.size(), 100000u);
}

}  // namespace
}  // namespace floe::ingest
