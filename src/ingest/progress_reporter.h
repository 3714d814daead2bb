// ProgressReporter: what the pipeline tells the person watching it.
//
// Contract: on a terminal it keeps ONE updating line for the tables being
// applied ("\r[cc_claim] files 12/40  rows 1.2M  34.5 MB  12.3 MB/s", the
// tables applied in parallel side by side, separated by "  |  "), redrawn at
// most ten times a second; a table that is done gets its final state on a
// line of its own;
// elsewhere (a log file, a pipe) it writes one line per batch ("batch 7
// cc_claim: 12 files, 34,512 rows (1,024 ins, 30 upd, 2 del, 5 stale),
// 1 quarantined, snapshot 123, 0.8 s") and never a carriage return.
// Message() prints a whole line in both modes without garbling an active
// progress line. With a trace (SetTrace), each BatchDone also writes a
// "batch" event: table, batch id, start (epoch ms), ms, files, rows,
// snapshot (0: none). With SetTimestamps(true) every line printed (not the
// redrawn progress line) starts with the time, "2026-12-01T12:00:05.250Z ".
// With LogFormat::kJson ([observability] log_format = "json") there is no
// progress line and every line is one JSON object with stable keys: "ts"
// (the time as above), "level" ("info", "warning" or "error"), "pipeline",
// "event" ("message", "batch", "quarantined", ...) and "msg" (the text line
// the text format prints), plus the event's fields ("batch": table, batch,
// files, rows, inserted, updated, deleted, stale, quarantined, bad_rows,
// snapshot, seconds; "quarantined": table, uri, reason). Invalid UTF-8 in a
// value is replaced, never an exception.
// Thread-safe: the tables of a poll are applied in parallel, and each
// reports its own files and batches (one mutex around the output).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/pipeline_trace.h"
#include "ingest/table_ingestor.h"

namespace floe::ingest {

enum class LogLevel { kInfo, kWarning, kError };

// 34512 -> "34,512".
std::string FormatThousands(int64_t value);
// 1234567 -> "1.2M", 999 -> "999", 12345 -> "12.3K".
std::string FormatCompactCount(int64_t value);
// 36175872 -> "34.5 MB" (binary multiples, one decimal), 512 -> "512 B".
std::string FormatByteSize(int64_t bytes);
// 0.8 -> "0.8 s", 75.0 -> "1 min 15 s".
std::string FormatSeconds(double seconds);
// Epoch milliseconds as "2026-12-01T12:00:05.250Z".
std::string FormatUtcMillis(int64_t epoch_ms);

class ProgressReporter {
 public:
  ProgressReporter(std::ostream& out, bool terminal);

  // `table` starts being applied (again: its counts restart).
  void StartTable(const std::string& table, int64_t total_files);
  // One source file of `table` was read (the TableIngestor's ProgressFn).
  void FileRead(const std::string& table, int64_t rows, int64_t bytes);
  void BatchDone(const std::string& table, int64_t batch_id, const BatchResult& result, double seconds);
  // `table` is done: on a terminal, its final state on a line of its own.
  void EndTable(const std::string& table);
  // A line; its level is "warning" when it starts with "warning: " or
  // "RESET", "error" when it reports a failure, else "info".
  void Message(const std::string& line);
  // A line with its level and, in the JSON format, its event and fields.
  void Event(std::string_view event, LogLevel level, const std::string& line,
             std::initializer_list<TraceField> fields = {});
  // Switches to JSON lines (no progress line) naming `pipeline` in each.
  void SetJson(const std::string& pipeline);
  // Where batch events go besides the person watching; nullptr: nowhere.
  // Set before the pipeline runs (not synchronized).
  void SetTrace(PipelineTrace* trace) { trace_ = trace; }
  void SetTimestamps(bool on) { timestamps_ = on; }

 private:
  struct TableProgress {
    int64_t total_files = 0;
    int64_t files = 0;
    int64_t rows = 0;
    int64_t bytes = 0;
    std::chrono::steady_clock::time_point start;
  };

  // The private methods run with mu_ held.
  void TraceBatch(const std::string& table, int64_t batch_id, const BatchResult& result, double seconds);
  void EventLocked(std::string_view event, LogLevel level, const std::string& line,
                   std::initializer_list<TraceField> fields);
  void Draw(bool force);
  // "[cc_claim] files 12/40  rows 1.2M  34.5 MB  12.3 MB/s"
  static std::string ProgressText(const std::string& table, const TableProgress& progress,
                                  std::chrono::steady_clock::time_point now);
  void ClearLine();
  // "" or the time prefix of a printed line.
  std::string Stamp() const;

  std::mutex mu_;
  std::ostream& out_;
  bool terminal_;
  // The tables being applied, in the order they started.
  std::vector<std::pair<std::string, TableProgress>> active_;
  bool line_active_ = false;
  std::optional<std::chrono::steady_clock::time_point> last_draw_;
  PipelineTrace* trace_ = nullptr;
  bool timestamps_ = false;
  bool json_ = false;
  std::string pipeline_;
};

}  // namespace floe::ingest
