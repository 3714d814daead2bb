// ThreadPool and TaskGroup: a small fixed-size pool of worker threads and a
// set of tasks whose completion (and first error) a caller waits for.
//
// Contract: ThreadPool(n) starts n >= 1 workers that run submitted work in
// FIFO order; the destructor runs whatever is still queued, then joins the
// workers. A TaskGroup collects Status-returning tasks: Run queues one (on
// the pool, or runs it at once when the group has no pool), Wait blocks
// until every task of the group has finished and returns the first error in
// SUBMISSION order (so the outcome does not depend on timing). A waiting
// thread runs its group's not-yet-started tasks itself, so a group never
// deadlocks behind a pool whose workers are all busy or blocked, and a task
// may wait for another group. Tasks must not throw (floe reports errors as
// Status); a task that throws anyway is recorded as an Internal error. The
// destructor of a TaskGroup waits for its tasks. Run and Wait are called by
// the group's owning thread only; tasks of one group run concurrently, so
// they must touch disjoint state or synchronise.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"

namespace floe {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  // Queues `work`; it runs on some worker thread.
  void Submit(std::function<void()> work);

 private:
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

class TaskGroup {
 public:
  // `pool` may be nullptr: every task then runs inside Run, on the caller's thread.
  explicit TaskGroup(ThreadPool* pool);
  ~TaskGroup();
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  void Run(std::function<Status()> task);
  // Waits for every task run so far; the first failed task's Status in
  // submission order, or OK. The group can be reused afterwards.
  Status Wait();

 private:
  struct Task;
  static void Execute(Task& task);

  ThreadPool* pool_;
  std::vector<std::shared_ptr<Task>> tasks_;
};

}  // namespace floe
