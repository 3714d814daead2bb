// ProgressReporter and its number formatting: the exact lines a person reads.
#include "ingest/progress_reporter.h"

#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace floe::ingest {
namespace {

TEST(ProgressFormatTest, Thousands) {
  EXPECT_EQ(FormatThousands(0), "0");
  EXPECT_EQ(FormatThousands(999), "999");
  EXPECT_EQ(FormatThousands(1000), "1,000");
  EXPECT_EQ(FormatThousands(34512), "34,512");
  EXPECT_EQ(FormatThousands(1234567), "1,234,567");
  EXPECT_EQ(FormatThousands(-1234), "-1,234");
  EXPECT_EQ(FormatThousands(std::numeric_limits<int64_t>::min()), "-9,223,372,036,854,775,808");
}

TEST(ProgressFormatTest, CompactCountsAndSizes) {
  EXPECT_EQ(FormatCompactCount(999), "999");
  EXPECT_EQ(FormatCompactCount(12345), "12.3K");
  EXPECT_EQ(FormatCompactCount(1234567), "1.2M");
  EXPECT_EQ(FormatCompactCount(3'400'000'000), "3.4G");
  EXPECT_EQ(FormatByteSize(512), "512 B");
  EXPECT_EQ(FormatByteSize(1536), "1.5 KB");
  EXPECT_EQ(FormatByteSize(36175872), "34.5 MB");
  EXPECT_EQ(FormatByteSize(int64_t{3} << 40), "3.0 TB");
  EXPECT_EQ(FormatSeconds(0.84), "0.8 s");
  EXPECT_EQ(FormatSeconds(75.0), "1 min 15 s");
  EXPECT_EQ(FormatSeconds(7300.0), "2 h 1 min");
}

BatchResult SampleBatch() {
  BatchResult result;
  result.snapshot_id = 123;
  result.counts.files = 12;
  result.counts.rows_read = 34512;
  result.counts.inserted = 1024;
  result.counts.updated = 30;
  result.counts.deleted = 2;
  result.counts.stale = 5;
  result.quarantined.push_back({"bad.parquet", "not parquet"});
  return result;
}

TEST(ProgressReporterTest, LogModeWritesOneLinePerBatchWithoutCarriageReturns) {
  std::ostringstream out;
  ProgressReporter reporter(out, /*terminal=*/false);
  reporter.StartTable("cc_claim", 13);
  for (int i = 0; i < 13; ++i) reporter.FileRead("cc_claim", 100, 1000);
  reporter.BatchDone("cc_claim", 7, SampleBatch(), 0.8);
  BatchResult empty;
  empty.counts.files = 1;
  empty.counts.rows_read = 1;
  reporter.BatchDone("cc_claim", 8, empty, 0.04);
  reporter.EndTable("cc_claim");
  reporter.Message("done");
  EXPECT_EQ(out.str(),
            "batch 7 cc_claim: 12 files, 34,512 rows (1,024 ins, 30 upd, 2 del, 5 stale), 1 quarantined, "
            "snapshot 123, 0.8 s\n"
            "batch 8 cc_claim: 1 file, 1 row (0 ins, 0 upd, 0 del, 0 stale), 0 quarantined, no snapshot, "
            "0.0 s\n"
            "done\n");
}

TEST(ProgressReporterTest, JsonModeWritesOneObjectPerLineWithStableKeys) {
  std::ostringstream out;
  ProgressReporter reporter(out, /*terminal=*/true);  // JSON never draws a progress line
  reporter.SetJson("orders");
  reporter.StartTable("cc_claim", 13);
  for (int i = 0; i < 13; ++i) reporter.FileRead("cc_claim", 100, 1000);
  reporter.BatchDone("cc_claim", 7, SampleBatch(), 0.8);
  reporter.EndTable("cc_claim");
  reporter.Message("warning: cc_claim: a \"quoted\" name\nand \xff bytes");
  reporter.Event("quarantined", LogLevel::kWarning, "quarantined /l/<script>.csv: bad",
                 {{"table", "cc_claim"}, {"uri", "/l/<script>.csv"}, {"reason", "bad"}});
  reporter.Message("run failed: the catalog is down");
  BatchResult empty = SampleBatch();
  empty.snapshot_id.reset();
  reporter.BatchDone("cc_claim", 8, empty, 0.1);
  std::istringstream lines(out.str());
  std::vector<nlohmann::json> parsed;
  for (std::string line; std::getline(lines, line);) {
    ASSERT_EQ(line.find('\r'), std::string::npos);
    parsed.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(parsed.size(), 5u);
  for (const nlohmann::json& line : parsed) {
    for (const char* key : {"ts", "level", "pipeline", "event", "msg"})
      EXPECT_TRUE(line.contains(key)) << key;
    EXPECT_EQ(line["pipeline"], "orders");
    EXPECT_EQ(line["ts"].get<std::string>().size(), 24u);  // 2026-12-01T12:00:05.250Z
  }
  EXPECT_EQ(parsed[0]["event"], "batch");
  EXPECT_EQ(parsed[0]["level"], "info");
  EXPECT_EQ(parsed[0]["batch"], 7);
  EXPECT_EQ(parsed[0]["inserted"], 1024);
  EXPECT_EQ(parsed[0]["snapshot"], "123");  // a string: 63-bit ids are not safe as JSON numbers
  EXPECT_EQ(parsed[0]["quarantined"], 1);
  EXPECT_EQ(parsed[1]["level"], "warning");
  EXPECT_EQ(parsed[1]["msg"], "warning: cc_claim: a \"quoted\" name\nand \xef\xbf\xbd bytes");
  EXPECT_EQ(parsed[2]["event"], "quarantined");
  EXPECT_EQ(parsed[2]["uri"], "/l/<script>.csv");
  EXPECT_EQ(parsed[3]["level"], "error");
  EXPECT_TRUE(parsed[4]["snapshot"].is_null());  // committed nothing
}

TEST(ProgressReporterTest, TerminalModeRedrawsOneLineAndEndsItWithANewline) {
  std::ostringstream out;
  ProgressReporter reporter(out, /*terminal=*/true);
  reporter.StartTable("cc_claim", 2);
  reporter.FileRead("cc_claim", 1'200'000, 2048);
  reporter.FileRead("cc_claim", 1, 1024);  // the last file always redraws
  reporter.Message("quarantined x: bad");
  reporter.EndTable("cc_claim");
  const std::string text = out.str();
  EXPECT_NE(text.find("\r\033[K[cc_claim] files 0/2  rows 0  0 B"), std::string::npos) << text;
  EXPECT_NE(text.find("[cc_claim] files 2/2  rows 1.2M  3.0 KB  "), std::string::npos) << text;
  // The message replaces the progress line, which is drawn again below it.
  EXPECT_NE(text.find("\r\033[Kquarantined x: bad\n\r\033[K[cc_claim] files 2/2"), std::string::npos) << text;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("batch "), std::string::npos);
}

TEST(ProgressReporterTest, TerminalModeShowsTablesAppliedInParallelOnOneLine) {
  std::ostringstream out;
  ProgressReporter reporter(out, /*terminal=*/true);
  reporter.StartTable("cc_claim", 1);
  reporter.StartTable("cc_contact", 2);
  reporter.FileRead("cc_contact", 10, 1024);
  reporter.FileRead("cc_claim", 5, 2048);  // its last file: redrawn
  const std::string both = out.str();
  EXPECT_NE(both.find("[cc_claim] files 1/1  rows 5  2.0 KB  "), std::string::npos) << both;
  EXPECT_NE(both.find("  |  [cc_contact] files 1/2  rows 10  1.0 KB  "), std::string::npos) << both;
  reporter.EndTable("cc_claim");
  const std::string after = out.str().substr(both.size());
  // The finished table keeps its final state on a line of its own; the other one goes on below it.
  EXPECT_EQ(after.find("\r\033[K[cc_claim] files 1/1  rows 5  2.0 KB  "), 0u) << after;
  const size_t newline = after.find('\n');
  ASSERT_NE(newline, std::string::npos) << after;
  EXPECT_EQ(after.find("|"), std::string::npos) << after;
  EXPECT_EQ(after.find("\r\033[K[cc_contact] files 1/2", newline), newline + 1) << after;
  reporter.FileRead("cc_claim", 1, 1);  // a table that ended reports nothing
  reporter.EndTable("cc_contact");
  const std::string text = out.str();
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("rows 6"), std::string::npos) << text;
}

}  // namespace
}  // namespace floe::ingest
