// Merging key index runs: see key_index_merge.h.
#include "ingest/merge/key_index_merge.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace floe::ingest::key_index_internal {
namespace {

int Tier(uint64_t entries) {
  // floor(log4(entries)): runs within a factor of 4 share a tier.
  return entries == 0 ? 0 : (63 - std::countl_zero(entries)) / 2;
}

// One input being merged: its scanner, current entry and file renumbering.
struct Cursor {
  std::unique_ptr<RunScanner> scanner;
  const RunEntry* head = nullptr;
  std::vector<std::pair<uint32_t, uint32_t>> files;  // (input number, output number), sorted
  bool rebuilt = false;
};

// Min-heap of input indexes by (head key, newer input first).
class HeadHeap {
 public:
  explicit HeadHeap(const std::vector<Cursor>& cursors) : cursors_(cursors) {}
  bool empty() const { return heap_.empty(); }
  size_t top() const { return heap_.front(); }
  void Push(size_t i) {
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), Greater{cursors_});
  }
  void Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Greater{cursors_});
    heap_.pop_back();
  }

 private:
  struct Greater {
    const std::vector<Cursor>& cursors;
    bool operator()(size_t a, size_t b) const {
      const KeyId& ka = cursors[a].head->key;
      const KeyId& kb = cursors[b].head->key;
      if (KeyLess(kb, ka)) return true;
      if (KeyLess(ka, kb)) return false;
      return a < b;  // the newer (higher) input first
    }
  };
  const std::vector<Cursor>& cursors_;
  std::vector<size_t> heap_;
};

}  // namespace

std::optional<std::pair<size_t, size_t>> PickMerge(const std::vector<uint64_t>& entries) {
  if (entries.size() < 2) return std::nullopt;
  uint64_t newer = 0;
  for (size_t i = 1; i < entries.size(); ++i) newer += entries[i];
  if (newer >= entries[0] / 4) return std::make_pair(size_t{0}, entries.size() - 1);
  // Newest first: the first tier with kFanIn neighbours.
  size_t last = entries.size() - 1;
  while (last >= 1) {
    size_t first = last;
    while (first > 1 && Tier(entries[first - 1]) == Tier(entries[last])) --first;
    if (last - first + 1 >= kFanIn) return std::make_pair(last + 1 - kFanIn, last);
    if (first == 1) break;
    last = first - 1;
  }
  return std::nullopt;
}

Result<MergeResult> MergeRuns(FileIO& io, const std::string& path, const std::vector<MergeInput>& inputs,
                              const MergeOptions& options) {
  std::vector<std::string> files;
  std::unordered_map<std::string, uint32_t> numbers;
  std::vector<Cursor> cursors(inputs.size());
  bool hashed = false;
  uint64_t expected = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const RunReader& run = *inputs[i].run;
    hashed = hashed || run.hashed();
    expected += run.info().entries;
    cursors[i].scanner = std::make_unique<RunScanner>(run);
    cursors[i].rebuilt = inputs[i].rebuilt;
    for (const auto& [number, file] : run.files()) {
      auto [it, added] = numbers.try_emplace(file, static_cast<uint32_t>(files.size()));
      if (added) files.push_back(file);
      cursors[i].files.emplace_back(number, it->second);
    }
  }
  RunWriterOptions writer_options;
  writer_options.hashed = hashed;
  writer_options.bloom = !options.base;
  writer_options.expected_entries = expected;
  FLOE_ASSIGN_OR_RETURN(auto writer, RunWriter::Create(io, path, writer_options));

  MergeResult result;
  auto merge = [&]() -> Status {
    HeadHeap heap(cursors);
    // Reads input i's next entry; a damaged input is named for the caller.
    auto advance = [&](size_t i) -> Status {
      auto next = cursors[i].scanner->Next();
      if (!next.ok()) {
        if (next.status().kind() == ErrorKind::kCorruption && options.damaged_input != nullptr) {
          *options.damaged_input = inputs[i].run->path();
        }
        return next.status();
      }
      cursors[i].head = *next;
      return Status::OK();
    };
    for (size_t i = 0; i < cursors.size(); ++i) {
      FLOE_RETURN_IF_ERROR(advance(i));
      if (cursors[i].head != nullptr) heap.Push(i);
    }
    std::vector<size_t> same;  // inputs holding the current key, newest first
    uint64_t steps = 0;
    while (!heap.empty()) {
      if (options.stop != nullptr && (++steps & 4095) == 0 && options.stop->load()) {
        return Status(ErrorKind::kCancelled, "key index merge into " + path + " stopped");
      }
      same.clear();
      const KeyId key = cursors[heap.top()].head->key;
      while (!heap.empty() && cursors[heap.top()].head->key == key) {
        same.push_back(heap.top());
        heap.Pop();
      }
      // The entry that survives, from input `from`.
      const RunEntry* chosen = nullptr;
      size_t from = 0;
      if (options.policy == MergePolicy::kNewestWins) {
        from = same.front();
        chosen = cursors[from].head;
      } else {
        int rebuilt = 0;
        for (size_t i : same) {
          if (!cursors[i].rebuilt) continue;
          ++rebuilt;
          if (chosen == nullptr || chosen->order < cursors[i].head->order) {
            chosen = cursors[i].head;
            from = i;
          }
        }
        if (rebuilt > 1) ++result.duplicate_keys;
        if (chosen == nullptr) {
          from = same.front();  // the older index's newest entry
          chosen = cursors[from].head->tombstone ? cursors[from].head : nullptr;
        }
      }
      if (chosen != nullptr &&
          !(chosen->tombstone && options.base && chosen->value < options.drop_tombstones_before_s)) {
        RunEntry out = *chosen;
        if (!out.tombstone) {
          const auto& map = cursors[from].files;
          auto it = std::lower_bound(map.begin(), map.end(), std::make_pair(out.file, uint32_t{0}));
          if (it == map.end() || it->first != out.file) {
            if (options.damaged_input != nullptr) *options.damaged_input = inputs[from].run->path();
            return Status::Corruption("key index run " + inputs[from].run->path() + " names file " +
                                      std::to_string(out.file) + ", not listed");
          }
          out.file = it->second;
        }
        FLOE_RETURN_IF_ERROR(writer->Add(out));
      }
      for (size_t i : same) {
        FLOE_RETURN_IF_ERROR(advance(i));
        if (cursors[i].head != nullptr) {
          if (!KeyLess(key, cursors[i].head->key)) {
            if (options.damaged_input != nullptr) *options.damaged_input = inputs[i].run->path();
            return Status::Corruption("key index run " + inputs[i].run->path() + ": keys out of order");
          }
          heap.Push(i);
        }
      }
    }
    return Status::OK();
  };
  Status merged = merge();
  if (!merged.ok()) {
    writer->Abort();
    return merged;
  }
  FLOE_ASSIGN_OR_RETURN(result.info, writer->Finish(files));
  return result;
}

}  // namespace floe::ingest::key_index_internal
