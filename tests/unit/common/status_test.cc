#include "common/status.h"

#include "test_util.h"

namespace floe {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::InvalidArgument("value " + std::to_string(v) + " is not positive");
  return v;
}

Result<int> DoubledPositive(int v) {
  FLOE_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return 2 * x;
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesKindMessageAndRetryable) {
  Status s = Status::IOError("GET s3://b/k: 503", /*retryable=*/true);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kIOError);
  EXPECT_TRUE(s.retryable());
  EXPECT_EQ(s.ToString(), "IO error: GET s3://b/k: 503");
  Status c = s.WithContext("reading part-0.parquet");
  EXPECT_EQ(c.message(), "reading part-0.parquet: GET s3://b/k: 503");
  EXPECT_TRUE(c.retryable());
}

TEST(ResultTest, PropagatesErrorsAndValues) {
  auto ok = DoubledPositive(4);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 8);
  auto bad = DoubledPositive(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "value -1 is not positive");
}

TEST(ResultTest, OkStatusWithoutValueBecomesInternalError) {
  Result<int> r(Status::OK());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInternal);
}

}  // namespace
}  // namespace floe

// Regression: FLOE_RETURN_IF_ERROR(f().status()) bound a reference into the
// temporary Result, which died before the Status was copied (ASan:
// heap-use-after-free in MetastoreCatalog::LoadTable for a missing table).
namespace {
floe::Result<std::string> FailWithLongMessage() {
  return floe::Status::NotFound(std::string(200, 'x') + " table cda.claims does not exist");
}
floe::Status ForwardStatusOfTemporary() {
  FLOE_RETURN_IF_ERROR(FailWithLongMessage().status());
  return floe::Status::OK();
}
}  // namespace

TEST(StatusTest, ReturnIfErrorCopiesTheStatusOfATemporaryResult) {
  floe::Status status = ForwardStatusOfTemporary();
  EXPECT_EQ(status.kind(), floe::ErrorKind::kNotFound);
  EXPECT_EQ(status.message(), std::string(200, 'x') + " table cda.claims does not exist");
}
