// Helpers shared by floe's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "common/status.h"

namespace floe::testing {

// The read-only shared test data (Parquet corpus, Iceberg fixtures): the
// directory in $FLOE_SHARED_DIR, else ../shared beside the repository.
// Returns nullopt when it is absent (a user's clone has no ../shared).
inline std::optional<std::filesystem::path> SharedDir() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("FLOE_SHARED_DIR"); env && *env) {
    dir = env;
  } else {
    dir = std::filesystem::path(FLOE_SOURCE_DIR).parent_path() / "shared";
  }
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  return dir;
}

// A fresh empty directory for one test, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "floe-test-XXXXXX").string();
    path_ = ::mkdtemp(templ.data()) ? templ : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace floe::testing

// Skips the current test, saying why, when ../shared is not there.
#define FLOE_REQUIRE_SHARED_DIR(var)                                                       \
  auto var##_opt = ::floe::testing::SharedDir();                                           \
  if (!var##_opt) {                                                                        \
    GTEST_SKIP() << "skipped: shared test data not found (set FLOE_SHARED_DIR or put the " \
                    "shared/ folder beside the repository)";                               \
  }                                                                                        \
  const std::filesystem::path var = *var##_opt

#define ASSERT_OK(expr)                                       \
  do {                                                        \
    auto&& floe_assert_tmp_ = (expr);                         \
    ASSERT_TRUE(floe_assert_tmp_.ok()) << ::floe::internal::ToStatus(floe_assert_tmp_).ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                       \
  do {                                                        \
    auto&& floe_expect_tmp_ = (expr);                         \
    EXPECT_TRUE(floe_expect_tmp_.ok()) << ::floe::internal::ToStatus(floe_expect_tmp_).ToString(); \
  } while (0)
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                            \
  auto FLOE_CONCAT(floe_test_result_, __LINE__) = (expr);          \
  ASSERT_TRUE(FLOE_CONCAT(floe_test_result_, __LINE__).ok())       \
      << FLOE_CONCAT(floe_test_result_, __LINE__).status().ToString(); \
  lhs = std::move(FLOE_CONCAT(floe_test_result_, __LINE__)).value()
