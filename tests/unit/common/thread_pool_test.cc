#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_util.h"

namespace floe {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskOfManyTinyOnes) {
  ThreadPool pool(4);
  TaskGroup group(&pool);
  constexpr int kTasks = 20000;
  std::vector<int> done(kTasks, 0);
  std::atomic<int> count{0};
  for (int i = 0; i < kTasks; ++i) {
    group.Run([&done, &count, i] {
      done[static_cast<size_t>(i)] = i + 1;  // each task owns its slot
      count.fetch_add(1);
      return Status::OK();
    });
  }
  ASSERT_OK(group.Wait());
  EXPECT_EQ(count.load(), kTasks);
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(done[static_cast<size_t>(i)], i + 1);
}

TEST(ThreadPoolTest, UsesSeveralThreads) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  TaskGroup group(&pool);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  for (int i = 0; i < 30; ++i) {
    group.Run([&] {
      const int now = running.fetch_add(1) + 1;
      int expected = peak.load();
      while (now > expected && !peak.compare_exchange_weak(expected, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      running.fetch_sub(1);
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(std::this_thread::get_id());
      return Status::OK();
    });
  }
  ASSERT_OK(group.Wait());
  EXPECT_GE(seen.size(), 2u);
  EXPECT_GE(peak.load(), 2);
}

TEST(ThreadPoolTest, WaitReturnsTheFirstErrorInSubmissionOrder) {
  ThreadPool pool(4);
  TaskGroup group(&pool);
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    group.Run([i, &ran]() -> Status {
      ran.fetch_add(1);
      // Task 30 finishes first; task 10's error still wins because it was submitted first.
      if (i == 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return Status::Corruption("task 10");
      }
      if (i == 30) return Status::IOError("task 30");
      return Status::OK();
    });
  }
  Status status = group.Wait();
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_EQ(status.message(), "task 10");
  EXPECT_EQ(ran.load(), 50);  // an error does not cancel the other tasks
  // The group is reusable and starts clean.
  group.Run([] { return Status::OK(); });
  EXPECT_OK(group.Wait());
}

TEST(ThreadPoolTest, ThrowingTaskBecomesInternalError) {
  ThreadPool pool(2);
  TaskGroup group(&pool);
  group.Run([]() -> Status { throw std::runtime_error("boom"); });
  Status status = group.Wait();
  EXPECT_EQ(status.kind(), ErrorKind::kInternal);
  EXPECT_NE(status.message().find("boom"), std::string::npos);
}

TEST(ThreadPoolTest, WithoutPoolTasksRunInlineInOrder) {
  TaskGroup group(nullptr);
  std::vector<int> order;
  const std::thread::id caller = std::this_thread::get_id();
  for (int i = 0; i < 5; ++i) {
    group.Run([&order, i, caller] {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      order.push_back(i);
      return i == 3 ? Status::NotFound("three") : Status::OK();
    });
    EXPECT_EQ(order.size(), static_cast<size_t>(i + 1));  // already ran
  }
  EXPECT_EQ(group.Wait().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(ThreadPoolTest, WaiterRunsItsOwnTasksWhenWorkersAreBlocked) {
  ThreadPool pool(1);
  std::mutex gate;
  std::unique_lock<std::mutex> hold(gate);
  TaskGroup blocker(&pool);
  std::atomic<bool> blocker_started{false};
  blocker.Run([&] {
    blocker_started = true;
    std::lock_guard<std::mutex> wait_for_gate(gate);
    return Status::OK();
  });
  while (!blocker_started) std::this_thread::yield();
  // The only worker is stuck; this group still completes on the waiting thread.
  TaskGroup group(&pool);
  int value = 0;
  group.Run([&value] {
    value = 42;
    return Status::OK();
  });
  ASSERT_OK(group.Wait());
  EXPECT_EQ(value, 42);
  hold.unlock();
  ASSERT_OK(blocker.Wait());
}

TEST(ThreadPoolTest, NestedGroupInsideATask) {
  ThreadPool pool(2);
  TaskGroup outer(&pool);
  std::atomic<int> leaves{0};
  for (int i = 0; i < 8; ++i) {
    outer.Run([&pool, &leaves] {
      TaskGroup inner(&pool);
      for (int j = 0; j < 8; ++j) {
        inner.Run([&leaves] {
          leaves.fetch_add(1);
          return Status::OK();
        });
      }
      return inner.Wait();
    });
  }
  ASSERT_OK(outer.Wait());
  EXPECT_EQ(leaves.load(), 64);
}

TEST(ThreadPoolTest, DestroyedWhileIdleAndWithQueuedWork) {
  { ThreadPool idle(3); }  // joins workers that never got work
  std::atomic<int> ran{0};
  {
    ThreadPool pool(1);
    for (int i = 0; i < 100; ++i) pool.Submit([&ran] { ran.fetch_add(1); });
  }  // the destructor runs what is queued before joining
  EXPECT_EQ(ran.load(), 100);
}

TEST(ThreadPoolTest, GroupDestructorWaitsForItsTasks) {
  ThreadPool pool(2);
  std::atomic<int> finished{0};
  {
    TaskGroup group(&pool);
    for (int i = 0; i < 4; ++i) {
      group.Run([&finished] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        finished.fetch_add(1);
        return Status::OK();
      });
    }
  }
  EXPECT_EQ(finished.load(), 4);
}

}  // namespace
}  // namespace floe
