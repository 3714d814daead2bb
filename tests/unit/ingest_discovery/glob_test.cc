#include "ingest/discovery/glob.h"

#include <gtest/gtest.h>

#include <string>

namespace floe::ingest {
namespace {

TEST(GlobTest, NameModeWildcards) {
  EXPECT_TRUE(GlobMatch("pc_*", "pc_policy", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("pc_*", "cc_claim", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("*", "", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("t?ccount", "taccount", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("t?ccount", "tccount", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("*count*", "taccount_x", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("a*", "a/b", GlobMode::kName));  // '/' is ordinary in names
  EXPECT_FALSE(GlobMatch("abc", "abcd", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("", "a", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("", "", GlobMode::kName));
}

TEST(GlobTest, Sets) {
  EXPECT_TRUE(GlobMatch("[pc]c_*", "cc_claim", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("[a-c]x", "bx", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("[a-c]x", "dx", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("[!a-c]x", "dx", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("[^a-c]x", "dx", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("[!a-c]x", "ax", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("[]]", "]", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("[a-]", "-", GlobMode::kName));
  // No closing bracket: a literal '['.
  EXPECT_TRUE(GlobMatch("[ab", "[ab", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("[ab", "a", GlobMode::kName));
}

TEST(GlobTest, Escapes) {
  EXPECT_TRUE(GlobMatch("a\\*", "a*", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("a\\*", "ab", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("\\?", "?", GlobMode::kName));
}

TEST(GlobTest, PathModeSeparators) {
  EXPECT_TRUE(GlobMatch("*.parquet", "a.parquet", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("*.parquet", "x/a.parquet", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("x?a.parquet", "x/a.parquet", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("x[/]a", "x/a", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("**/*.parquet", "a.parquet", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("**/*.parquet", "x/y/a.parquet", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("x/**/a.parquet", "x/a.parquet", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("x/**/a.parquet", "x/p/q/a.parquet", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("x/**/a.parquet", "y/p/a.parquet", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("region=eu/**", "region=eu/day=1/a.parquet", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("region=eu/*", "region=eu/day=1/a.parquet", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("a**z", "a/b/z", GlobMode::kPath));
}

TEST(GlobTest, LongInputsStayFast) {
  // Backtracking matchers blow up on many stars against a near miss.
  std::string text(2000, 'a');
  std::string pattern;
  for (int i = 0; i < 50; ++i) pattern += "*a";
  pattern += "b";
  EXPECT_FALSE(GlobMatch(pattern, text, GlobMode::kPath));
  EXPECT_TRUE(GlobMatch(pattern.substr(0, pattern.size() - 1), text, GlobMode::kPath));
}

TEST(GlobTest, FilterIncludeExclude) {
  std::vector<std::string> none;
  EXPECT_TRUE(GlobFilterAccepts(none, none, "anything", GlobMode::kName));
  EXPECT_TRUE(GlobFilterAccepts({"pc_*", "cc_*"}, none, "cc_claim", GlobMode::kName));
  EXPECT_FALSE(GlobFilterAccepts({"pc_*"}, none, "cc_claim", GlobMode::kName));
  EXPECT_FALSE(GlobFilterAccepts({"pc_*"}, {"pc_*_tmp"}, "pc_x_tmp", GlobMode::kName));
  EXPECT_FALSE(GlobFilterAccepts(none, {"*"}, "x", GlobMode::kName));
}

}  // namespace
}  // namespace floe::ingest
