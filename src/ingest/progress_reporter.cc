#include "ingest/progress_reporter.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

namespace floe::ingest {

namespace {

std::string OneDecimal(double value, const char* suffix) {
  char text[48];
  std::snprintf(text, sizeof(text), "%.1f%s", value, suffix);
  return text;
}

// ", 12 filtered, expect positive_revenue 3/1,000 failed (drop), ..." of a
// table with a row stage; "" otherwise.
std::string RowStageCounts(const BatchCounts& c) {
  std::string out;
  if (c.filtered > 0) out += FormatThousands(c.filtered) + " filtered, ";
  if (c.dropped > 0) out += FormatThousands(c.dropped) + " dropped, ";
  if (c.quarantined_rows > 0) out += FormatThousands(c.quarantined_rows) + " rows quarantined, ";
  if (c.expectations.empty()) return out;
  out += "expect";
  for (size_t i = 0; i < c.expectations.size(); ++i) {
    const ExpectationCount& e = c.expectations[i];
    out += std::string(i == 0 ? " " : "; ") + e.name + " " + FormatThousands(e.failed) + "/" +
           FormatThousands(e.checked) + " failed (" + ExpectationActionName(e.action) + ")";
  }
  return out + ", ";
}

}  // namespace

std::string FormatThousands(int64_t value) {
  // Built from the unsigned magnitude so INT64_MIN needs no special case.
  const bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return negative ? "-" + out : out;
}

std::string FormatCompactCount(int64_t value) {
  const double v = static_cast<double>(value);
  if (value < 1000 && value > -1000) return std::to_string(value);
  if (value < 1'000'000 && value > -1'000'000) return OneDecimal(v / 1e3, "K");
  if (value < 1'000'000'000 && value > -1'000'000'000) return OneDecimal(v / 1e6, "M");
  return OneDecimal(v / 1e9, "G");
}

std::string FormatByteSize(int64_t bytes) {
  static const char* kUnits[] = {" KB", " MB", " GB", " TB", " PB"};
  if (bytes < 1024 && bytes > -1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while ((v >= 1024.0 || v <= -1024.0) && unit + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++unit;
  }
  return OneDecimal(v, kUnits[unit]);
}

std::string FormatSeconds(double seconds) {
  if (seconds < 60.0) return OneDecimal(seconds, " s");
  const int64_t whole = static_cast<int64_t>(seconds + 0.5);
  if (whole < 3600) return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
  return std::to_string(whole / 3600) + " h " + std::to_string((whole % 3600) / 60) + " min";
}

ProgressReporter::ProgressReporter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

void ProgressReporter::StartTable(const std::string& table, int64_t total_files) {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(active_.begin(), active_.end(), [&](const auto& entry) { return entry.first == table; });
  if (it == active_.end()) it = active_.insert(active_.end(), {table, TableProgress{}});
  it->second = TableProgress{};
  it->second.total_files = total_files;
  it->second.start = std::chrono::steady_clock::now();
  if (terminal_) Draw(true);
}

void ProgressReporter::FileRead(const std::string& table, int64_t rows, int64_t bytes) {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(active_.begin(), active_.end(), [&](const auto& entry) { return entry.first == table; });
  if (it == active_.end()) return;
  TableProgress& progress = it->second;
  ++progress.files;
  progress.rows += rows;
  progress.bytes += bytes;
  if (terminal_) Draw(progress.files == progress.total_files);
}

void ProgressReporter::BatchDone(const std::string& table, int64_t batch_id, const BatchResult& result,
                                 double seconds) {
  std::lock_guard lock(mu_);
  TraceBatch(table, batch_id, result, seconds);
  if (terminal_) {
    Draw(true);
    return;
  }
  const BatchCounts& c = result.counts;
  const std::string line =
      "batch " + std::to_string(batch_id) + " " + table + ": " + FormatThousands(c.files) +
      (c.files == 1 ? " file, " : " files, ") + FormatThousands(c.rows_read) +
      (c.rows_read == 1 ? " row (" : " rows (") + FormatThousands(c.inserted) + " ins, " +
      FormatThousands(c.updated) + " upd, " + FormatThousands(c.deleted) + " del, " +
      FormatThousands(c.stale) + " stale), " +
      FormatThousands(static_cast<int64_t>(result.quarantined.size())) + " quarantined, " +
      (c.bad_rows > 0 ? FormatThousands(c.bad_rows) + (c.bad_rows == 1 ? " bad row, " : " bad rows, ") : "") +
      RowStageCounts(c) +
      (result.snapshot_id ? "snapshot " + std::to_string(*result.snapshot_id) : "no snapshot") + ", " +
      FormatSeconds(seconds);
  EventLocked("batch", LogLevel::kInfo, line,
              {{"table", table},
               {"batch", batch_id},
               {"files", c.files},
               {"rows", c.rows_read},
               {"inserted", c.inserted},
               {"updated", c.updated},
               {"deleted", c.deleted},
               {"stale", c.stale},
               {"quarantined", static_cast<int64_t>(result.quarantined.size())},
               {"bad_rows", c.bad_rows},
               // A string, as in `floe status --json`: a 63-bit id loses digits as a JSON number in
               // JavaScript and most log pipelines; null when the batch committed nothing.
               result.snapshot_id ? TraceField("snapshot", std::to_string(*result.snapshot_id))
                                  : TraceField("snapshot", nullptr),
               {"seconds", seconds}});
}

void ProgressReporter::TraceBatch(const std::string& table, int64_t batch_id, const BatchResult& result,
                                  double seconds) {
  if (trace_ == nullptr || !trace_->enabled()) return;
  const double ms = seconds * 1000.0;
  trace_->Write("batch", {{"table", table},
                          {"batch", batch_id},
                          {"start", PipelineTrace::NowMs() - ms},
                          {"ms", ms},
                          {"files", result.counts.files},
                          {"rows", result.counts.rows_read},
                          {"snapshot", result.snapshot_id.value_or(0)},
                          {"key_index_bytes", result.key_index_memory_bytes},
                          {"key_index_runs", result.key_index_runs}});
}

void ProgressReporter::EndTable(const std::string& table) {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(active_.begin(), active_.end(), [&](const auto& entry) { return entry.first == table; });
  if (it == active_.end()) return;
  if (terminal_) {
    // The table's final state stays on a line of its own; the others' line is drawn below it.
    ClearLine();
    out_ << ProgressText(it->first, it->second, std::chrono::steady_clock::now()) << "\n";
    line_active_ = false;
  }
  active_.erase(it);
  if (terminal_ && !active_.empty()) Draw(true);
  out_.flush();
}

void ProgressReporter::SetJson(const std::string& pipeline) {
  std::lock_guard lock(mu_);
  json_ = true;
  terminal_ = false;
  pipeline_ = pipeline;
}

void ProgressReporter::Message(const std::string& line) {
  LogLevel level = LogLevel::kInfo;
  if (line.starts_with("warning: ") || line.starts_with("RESET")) {
    level = LogLevel::kWarning;
  } else if (line.starts_with("run failed") || line.find(": failed") != std::string::npos ||
             line.find("could not be resolved") != std::string::npos) {
    level = LogLevel::kError;
  }
  Event("message", level, line);
}

void ProgressReporter::Event(std::string_view event, LogLevel level, const std::string& line,
                             std::initializer_list<TraceField> fields) {
  std::lock_guard lock(mu_);
  EventLocked(event, level, line, fields);
}

void ProgressReporter::EventLocked(std::string_view event, LogLevel level, const std::string& line,
                                   std::initializer_list<TraceField> fields) {
  if (json_) {
    nlohmann::ordered_json json = nlohmann::ordered_json::object();
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    json["ts"] = FormatUtcMillis(now_ms);
    json["level"] = level == LogLevel::kError ? "error" : level == LogLevel::kWarning ? "warning" : "info";
    json["pipeline"] = pipeline_;
    json["event"] = std::string(event);
    json["msg"] = line;
    for (const TraceField& field : fields) {
      std::visit(
          [&](const auto& value) {
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::monostate>) {
              json[std::string(field.key)] = nullptr;
            } else {
              json[std::string(field.key)] = value;
            }
          },
          field.value);
    }
    out_ << json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    out_.flush();
    return;
  }
  if (terminal_ && line_active_) {
    ClearLine();
    out_ << Stamp() << line << "\n";
    Draw(true);
    return;
  }
  out_ << Stamp() << line << "\n";
  out_.flush();
}

std::string ProgressReporter::Stamp() const {
  if (!timestamps_) return "";
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return FormatUtcMillis(now_ms) + " ";
}

std::string FormatUtcMillis(int64_t epoch_ms) {
  const std::time_t seconds =
      static_cast<std::time_t>(epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return std::to_string(epoch_ms);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  char millis[8];
  std::snprintf(millis, sizeof(millis), ".%03dZ", static_cast<int>(((epoch_ms % 1000) + 1000) % 1000));
  return std::string(text) + millis;
}

void ProgressReporter::ClearLine() {
  out_ << "\r\033[K";
}

std::string ProgressReporter::ProgressText(const std::string& table, const TableProgress& progress,
                                           std::chrono::steady_clock::time_point now) {
  const double seconds = std::chrono::duration<double>(now - progress.start).count();
  const int64_t rate =
      seconds > 0.0 ? static_cast<int64_t>(static_cast<double>(progress.bytes) / seconds) : 0;
  return "[" + table + "] files " + std::to_string(progress.files) + "/" +
         std::to_string(progress.total_files) + "  rows " + FormatCompactCount(progress.rows) + "  " +
         FormatByteSize(progress.bytes) + "  " + FormatByteSize(rate) + "/s";
}

void ProgressReporter::Draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && last_draw_ && now - *last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  ClearLine();
  if (active_.empty()) {
    line_active_ = false;
    return;
  }
  for (size_t i = 0; i < active_.size(); ++i) {
    if (i > 0) out_ << "  |  ";
    out_ << ProgressText(active_[i].first, active_[i].second, now);
  }
  out_.flush();
  line_active_ = true;
}

}  // namespace floe::ingest
