// PipelineTrace: one flushed JSON object per event, strings escaped, a
// disabled trace writes nothing, an unwritable path is an error; process
// usage figures are plausible.
#include "ingest/pipeline_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "test_util.h"

namespace floe::ingest {
namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(PipelineTraceTest, WritesOneFlushedJsonObjectPerEvent) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "trace.jsonl").string();
  ASSERT_OK_AND_ASSIGN(auto trace, PipelineTrace::Open(path));
  ASSERT_TRUE(trace->enabled());
  const double before = PipelineTrace::NowMs();
  trace->Write("poll", {{"new_files", int64_t{3}}, {"ms", 1.25}, {"ok", true}, {"table", "cc_claim"}});
  // Visible before the trace is closed.
  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), 1u);
  const std::string& line = lines[0];
  EXPECT_EQ(line.rfind("{\"event\":\"poll\",\"t\":", 0), 0u) << line;
  EXPECT_NE(line.find(",\"new_files\":3,\"ms\":1.250,\"ok\":true,\"table\":\"cc_claim\"}"), std::string::npos)
      << line;
  const double t = std::stod(line.substr(line.find("\"t\":") + 4));
  EXPECT_GE(t, before - 1);
  EXPECT_LE(t, PipelineTrace::NowMs() + 1);

  trace->Write("odd", {{"text", std::string("a\"b\\c\nd\x01")}});
  lines = Lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find(R"("text":"a\"b\\c\nd\u0001")"), std::string::npos) << lines[1];
}

TEST(PipelineTraceTest, AppendsToAnExistingFile) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "trace.jsonl").string();
  std::ofstream(path) << "{\"event\":\"earlier\"}\n";
  ASSERT_OK_AND_ASSIGN(auto trace, PipelineTrace::Open(path));
  trace->Write("later", {});
  const std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "{\"event\":\"earlier\"}");
  EXPECT_EQ(lines[1].rfind("{\"event\":\"later\",\"t\":", 0), 0u) << lines[1];
}

TEST(PipelineTraceTest, DisabledTraceWritesNothingAndABadPathIsAnError) {
  ASSERT_OK_AND_ASSIGN(auto disabled, PipelineTrace::Open(""));
  EXPECT_FALSE(disabled->enabled());
  disabled->Write("poll", {{"n", 1}});  // no effect, no crash

  testing::TempDir dir;
  auto bad = PipelineTrace::Open((dir.path() / "missing" / "trace.jsonl").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("trace.jsonl"), std::string::npos) << bad.status().ToString();
}

TEST(PipelineTraceTest, ProcessUsageIsPlausible) {
  const ProcessUsage usage = CurrentProcessUsage();
  EXPECT_GT(usage.rss_bytes, 0);
  EXPECT_GE(usage.cpu_ms, 0.0);
  // Under a sanitizer's allocator glibc's malloc figures read 0.
  EXPECT_GE(usage.heap_in_use_bytes, 0);
}

}  // namespace
}  // namespace floe::ingest
