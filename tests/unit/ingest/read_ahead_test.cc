#include "ingest/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "test_util.h"

namespace floe::ingest {
namespace {

// Counts items started but not yet handed out, and the peak of that count.
struct InFlight {
  std::atomic<int> now{0};
  std::atomic<int> peak{0};
  void Start() {
    const int value = now.fetch_add(1) + 1;
    int seen = peak.load();
    while (value > seen && !peak.compare_exchange_weak(seen, value)) {
    }
  }
};

TEST(ReadAheadTest, HandsItemsOutInOrderWithAtMostWindowInFlight) {
  ThreadPool pool(4);
  InFlight in_flight;
  ReadAhead<int> items(&pool, 60, 3, int64_t{1} << 40, [&](size_t i) {
    in_flight.Start();
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (i % 5)));  // finish out of order
    return static_cast<int>(i) * 10;
  });
  for (int i = 0; i < 60; ++i) {
    ASSERT_FALSE(items.done());
    EXPECT_EQ(items.Next(), i * 10);
    in_flight.now.fetch_sub(1);
  }
  EXPECT_TRUE(items.done());
  // The window counts items not yet handed out; the consumer's current item comes on top.
  EXPECT_LE(in_flight.peak.load(), 3 + 1);
  EXPECT_GE(in_flight.peak.load(), 2);  // it did read ahead
}

TEST(ReadAheadTest, ByteBoundLimitsItemsInFlightButOneAlwaysGoes) {
  ThreadPool pool(4);
  InFlight in_flight;
  // Items cost 10 bytes, item 5 costs 1000 (more than the whole bound).
  ReadAhead<size_t> items(
      &pool, 12, 8, 25,
      [&](size_t i) {
        in_flight.Start();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return i;
      },
      [](size_t i) -> int64_t { return i == 5 ? 1000 : 10; });
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(items.Next(), i);
    in_flight.now.fetch_sub(1);
  }
  EXPECT_LE(in_flight.peak.load(), 2 + 1);  // two within 25 bytes, plus the consumer's current item
}

TEST(ReadAheadTest, WithoutPoolEachItemIsProducedJustBeforeItIsReturned) {
  std::vector<size_t> produced;
  ReadAhead<size_t> items(nullptr, 4, 3, 100, [&](size_t i) {
    produced.push_back(i);
    return i;
  });
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(produced.size(), i);
    EXPECT_EQ(items.Next(), i);
  }
  EXPECT_EQ(produced, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(ReadAheadTest, DestroyedEarlyWaitsForItemsInFlight) {
  ThreadPool pool(2);
  std::atomic<int> finished{0};
  {
    ReadAhead<int> items(&pool, 10, 4, 1000, [&](size_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      finished.fetch_add(1);
      return 1;
    });
    EXPECT_EQ(items.Next(), 1);
  }  // the rest started are waited for; none runs after this point
  const int after = finished.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(finished.load(), after);
  EXPECT_LE(after, 5);
}

TEST(ReadAheadTest, AThrowingProducerThrowsOnTheConsumer) {
  ThreadPool pool(2);
  ReadAhead<int> items(&pool, 3, 2, 1000, [](size_t i) -> int {
    if (i == 1) throw std::runtime_error("bad item");
    return static_cast<int>(i);
  });
  EXPECT_EQ(items.Next(), 0);
  EXPECT_THROW(items.Next(), std::runtime_error);
  EXPECT_EQ(items.Next(), 2);
}

}  // namespace
}  // namespace floe::ingest
