#include "common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <utility>

namespace floe {

ThreadPool::ThreadPool(int threads) {
  const int count = std::max(1, threads);
  workers_.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::Submit(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
  }
}

// One task of a group. `claimed` decides who runs it (a worker or the
// waiting owner); `done` is set under `mutex` once `status` is final.
struct TaskGroup::Task {
  std::function<Status()> function;
  std::atomic<bool> claimed{false};
  Status status;
  bool done = false;
  std::mutex mutex;
  std::condition_variable finished;
};

TaskGroup::TaskGroup(ThreadPool* pool) : pool_(pool) {}

TaskGroup::~TaskGroup() {
  (void)Wait();
}

void TaskGroup::Execute(Task& task) {
  if (task.claimed.exchange(true)) return;
  Status status;
  try {
    status = task.function();
  } catch (const std::exception& e) {
    status = Status::Internal(std::string("a worker task threw: ") + e.what());
  } catch (...) {
    status = Status::Internal("a worker task threw");
  }
  task.function = nullptr;  // frees the captures now, not when the group forgets the task
  {
    std::lock_guard<std::mutex> lock(task.mutex);
    task.status = std::move(status);
    task.done = true;
  }
  task.finished.notify_all();
}

void TaskGroup::Run(std::function<Status()> task) {
  auto shared = std::make_shared<Task>();
  shared->function = std::move(task);
  tasks_.push_back(shared);
  if (pool_ == nullptr) {
    Execute(*shared);
    return;
  }
  pool_->Submit([shared] { Execute(*shared); });
}

Status TaskGroup::Wait() {
  Status first_error;
  for (const std::shared_ptr<Task>& task : tasks_) {
    Execute(*task);  // runs it here unless a worker already took it
    std::unique_lock<std::mutex> lock(task->mutex);
    task->finished.wait(lock, [&] { return task->done; });
    if (first_error.ok() && !task->status.ok()) first_error = task->status;
  }
  tasks_.clear();
  return first_error;
}

}  // namespace floe
