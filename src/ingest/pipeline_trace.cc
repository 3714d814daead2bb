#include "ingest/pipeline_trace.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace floe::ingest {

namespace {

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void AppendNumber(std::string& out, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.3f", value);
  out += text;
}

double MicrosToMs(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e3 + static_cast<double>(tv.tv_usec) / 1e3;
}

}  // namespace

ProcessUsage CurrentProcessUsage() {
  ProcessUsage usage;
  rusage self{};
  if (getrusage(RUSAGE_SELF, &self) == 0)
    usage.cpu_ms = MicrosToMs(self.ru_utime) + MicrosToMs(self.ru_stime);
  if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
    long long pages = 0;
    long long resident = 0;
    if (std::fscanf(statm, "%lld %lld", &pages, &resident) == 2) {
      usage.rss_bytes = static_cast<int64_t>(resident) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(statm);
  }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = mallinfo2();
  usage.heap_in_use_bytes = static_cast<int64_t>(info.uordblks + info.hblkhd);
  usage.heap_free_bytes = static_cast<int64_t>(info.fordblks);
#endif
  return usage;
}

Result<std::unique_ptr<PipelineTrace>> PipelineTrace::Open(const std::string& path) {
  auto trace = std::make_unique<PipelineTrace>();
  if (path.empty()) return trace;
  auto out = std::make_unique<std::ofstream>(path, std::ios::app);
  if (!out->is_open()) return Status::IOError("cannot open the pipeline trace file " + path);
  trace->out_ = std::move(out);
  trace->enabled_.store(true);
  return trace;
}

double PipelineTrace::NowMs() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count()) /
         1e3;
}

void PipelineTrace::Write(std::string_view event, std::initializer_list<TraceField> fields) {
  if (!enabled_.load(std::memory_order_relaxed)) return;
  std::string line = "{\"event\":";
  AppendJsonString(line, event);
  line += ",\"t\":";
  AppendNumber(line, NowMs());
  for (const TraceField& field : fields) {
    line.push_back(',');
    AppendJsonString(line, field.key);
    line.push_back(':');
    if (const auto* integer = std::get_if<int64_t>(&field.value)) {
      line += std::to_string(*integer);
    } else if (const auto* real = std::get_if<double>(&field.value)) {
      AppendNumber(line, *real);
    } else if (const auto* flag = std::get_if<bool>(&field.value)) {
      line += *flag ? "true" : "false";
    } else if (std::holds_alternative<std::monostate>(field.value)) {
      line += "null";
    } else {
      AppendJsonString(line, std::get<std::string>(field.value));
    }
  }
  line += "}\n";
  std::lock_guard<std::mutex> guard(mutex_);
  if (out_ == nullptr) return;
  *out_ << line << std::flush;
  if (!*out_) {
    out_.reset();
    enabled_.store(false);
  }
}

}  // namespace floe::ingest
