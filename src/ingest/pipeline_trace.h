// PipelineTrace: a machine-readable timeline of the pipeline loop, for
// measuring freshness (bench/pipeline/freshness.mjs) and explaining its tail.
//
// Contract: when opened on a path, every Write appends ONE JSON object per
// line ({"event":"<name>","t":<epoch ms>, ...fields}) and flushes it, so a
// reader sees each phase as soon as it ended, even if the process dies
// later. Times are wall-clock epoch milliseconds with microsecond fractions
// (comparable with another process's Date.now()); durations are
// milliseconds. A trace that is not enabled costs one branch per call and
// writes nothing. A write error disables the trace (it never affects the
// pipeline). Write is thread-safe (the continuous pipeline's maintenance
// worker writes beside the loop): each line is written whole.
#pragma once

#include <atomic>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

#include "common/status.h"

namespace floe::ingest {

// The environment variable naming the trace file when PipelineOptions has none.
inline constexpr const char* kPipelineTraceEnv = "FLOE_PIPELINE_TRACE";

struct TraceField {
  TraceField(std::string_view key, int64_t value) : key(key), value(value) {}
  TraceField(std::string_view key, int value) : key(key), value(int64_t{value}) {}
  TraceField(std::string_view key, double value) : key(key), value(value) {}
  TraceField(std::string_view key, bool value) : key(key), value(value) {}
  TraceField(std::string_view key, std::string_view value) : key(key), value(std::string(value)) {}
  TraceField(std::string_view key, const char* value) : key(key), value(std::string(value)) {}
  TraceField(std::string_view key, const std::string& value) : key(key), value(value) {}
  // A field whose value is JSON null.
  TraceField(std::string_view key, std::nullptr_t) : key(key), value(std::monostate{}) {}

  std::string_view key;
  std::variant<std::monostate, int64_t, double, bool, std::string> value;
};

// Process CPU (user + system) and memory figures at one moment.
struct ProcessUsage {
  double cpu_ms = 0;              // user + system since the process started
  int64_t rss_bytes = 0;          // resident set size (0 when unknown)
  int64_t heap_in_use_bytes = 0;  // malloc: bytes handed out (0 when unknown)
  int64_t heap_free_bytes = 0;    // malloc: bytes held but free (0 when unknown)
};
ProcessUsage CurrentProcessUsage();

class PipelineTrace {
 public:
  // A trace writing to `path` (appending); an empty path: disabled.
  static Result<std::unique_ptr<PipelineTrace>> Open(const std::string& path);
  // A disabled trace.
  PipelineTrace() = default;

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Wall-clock epoch milliseconds (with fraction).
  static double NowMs();
  void Write(std::string_view event, std::initializer_list<TraceField> fields);

 private:
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;  // guards out_
  std::unique_ptr<std::ofstream> out_;
};

}  // namespace floe::ingest
