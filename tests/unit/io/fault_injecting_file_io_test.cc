// FaultInjectingFileIO: calls are counted in order, the planned call fails
// the planned way (error, short read, torn or lost write at close), sticky
// plans fail everything after, and nothing else is disturbed.
#include "io/fault_injecting_file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace floe {
namespace {

using ::testing::HasSubstr;

std::string ReadLocal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(FaultInjectingFileIOTest, CountsEveryCallAndPassesThrough) {
  testing::TempDir dir;
  FaultInjectingFileIO io(MakeLocalFileIO());
  ASSERT_OK(io.WriteAll(dir.File("a"), std::string("hello")));  // Create, Write, Close
  ASSERT_OK_AND_ASSIGN(auto in, io.OpenRead(dir.File("a")));    // OpenRead
  ASSERT_OK_AND_ASSIGN(int64_t size, in->Size());               // Size
  EXPECT_EQ(size, 5);
  ASSERT_OK_AND_ASSIGN(auto bytes, in->Read(1, 3));  // ReadAt
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "ell");
  ASSERT_OK_AND_ASSIGN(bool exists, io.Exists(dir.File("a")));  // Exists
  EXPECT_TRUE(exists);
  ASSERT_OK(io.Stat(dir.File("a")));        // Stat
  ASSERT_OK(io.List(dir.path().string()));  // List
  ASSERT_OK(io.Delete(dir.File("a")));      // Delete
  EXPECT_EQ(io.calls(), 10);
  EXPECT_FALSE(io.fault_fired());
  const std::vector<std::string> log = io.CallLog();
  ASSERT_EQ(log.size(), 10u);
  EXPECT_EQ(log[0], "0 Create " + dir.File("a"));
  EXPECT_EQ(log[2], "2 Close " + dir.File("a"));
  EXPECT_EQ(log[5], "5 ReadAt " + dir.File("a"));
}

TEST(FaultInjectingFileIOTest, FailsExactlyThePlannedCall) {
  testing::TempDir dir;
  for (int64_t n = 0; n < 3; ++n) {
    FaultPlan plan;
    plan.fail_at = n;
    FaultInjectingFileIO io(MakeLocalFileIO(), plan);
    Status status = io.WriteAll(dir.File("f"), std::string("data"));
    ASSERT_FALSE(status.ok()) << n;
    EXPECT_EQ(status.kind(), ErrorKind::kIOError);
    EXPECT_FALSE(status.retryable());
    EXPECT_THAT(status.message(), HasSubstr("call " + std::to_string(n)));
    EXPECT_TRUE(io.fault_fired());
    EXPECT_FALSE(std::filesystem::exists(dir.File("f"))) << "call " << n << " left a file";
    // The next call goes through: only the planned call fails.
    EXPECT_OK(io.WriteAll(dir.File("g"), std::string("x")));
  }
  FaultPlan retryable;
  retryable.fail_at = 0;
  retryable.retryable = true;
  FaultInjectingFileIO io(MakeLocalFileIO(), retryable);
  EXPECT_TRUE(io.Exists(dir.File("g")).status().retryable());
}

TEST(FaultInjectingFileIOTest, ShortReadFillsHalfAndFails) {
  testing::TempDir dir;
  ASSERT_OK(MakeLocalFileIO()->WriteAll(dir.File("a"), std::string("abcdefgh")));
  FaultPlan plan;
  plan.fail_at = 1;  // OpenRead is 0, the read is 1
  plan.kind = FaultKind::kShortRead;
  FaultInjectingFileIO io(MakeLocalFileIO(), plan);
  ASSERT_OK_AND_ASSIGN(auto in, io.OpenRead(dir.File("a")));
  std::string out(8, '.');
  Status status = in->ReadAt(0, 8, reinterpret_cast<uint8_t*>(out.data()));
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("short read"));
  EXPECT_EQ(out, "abcd....");
  ASSERT_OK(in->ReadAt(0, 8, reinterpret_cast<uint8_t*>(out.data())));
  EXPECT_EQ(out, "abcdefgh");
}

TEST(FaultInjectingFileIOTest, TornAndLostWritesAtClose) {
  testing::TempDir dir;
  FaultPlan torn;
  torn.fail_at = 2;  // Create 0, Write 1, Close 2
  torn.kind = FaultKind::kTornWrite;
  FaultInjectingFileIO torn_io(MakeLocalFileIO(), torn);
  Status status = torn_io.WriteAll(dir.File("t"), std::string("0123456789"));
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("torn write"));
  EXPECT_EQ(ReadLocal(dir.File("t")), "01234");  // a partial file at the path

  FaultPlan lost;
  lost.fail_at = 2;
  lost.kind = FaultKind::kLostWrite;
  FaultInjectingFileIO lost_io(MakeLocalFileIO(), lost);
  EXPECT_OK(lost_io.WriteAll(dir.File("l"), std::string("0123456789")));  // reported written...
  EXPECT_FALSE(std::filesystem::exists(dir.File("l")));                   // ...but gone

  // A torn-write plan on a call that is not a Close is a plain error.
  FaultPlan not_close = torn;
  not_close.fail_at = 0;
  FaultInjectingFileIO plain(MakeLocalFileIO(), not_close);
  EXPECT_THAT(plain.WriteAll(dir.File("p"), std::string("x")).message(), HasSubstr("injected fault"));
}

TEST(FaultInjectingFileIOTest, StickyPlansFailEverythingAfterAndHooksRunOnce) {
  testing::TempDir dir;
  int hooked = 0;
  FaultEvent seen;
  FaultPlan plan;
  plan.fail_at = 1;
  plan.sticky = true;
  plan.on_fault = [&](const FaultEvent& event) {
    ++hooked;
    seen = event;
  };
  FaultInjectingFileIO io(MakeLocalFileIO(), plan);
  EXPECT_OK(io.Exists(dir.File("a")));
  EXPECT_FALSE(io.Exists(dir.File("b")).ok());
  EXPECT_FALSE(io.List(dir.path().string()).ok());
  EXPECT_FALSE(io.Delete(dir.File("c")).ok());
  EXPECT_EQ(hooked, 1);
  EXPECT_EQ(seen.index, 1);
  EXPECT_EQ(seen.call, "Exists");
  EXPECT_EQ(seen.path, dir.File("b"));
  io.Reset({});
  EXPECT_EQ(io.calls(), 0);
  EXPECT_OK(io.Exists(dir.File("a")));
}

TEST(FaultInjectingFileIOTest, WrappedViewsShareOneCounter) {
  testing::TempDir dir;
  FaultPlan plan;
  plan.fail_at = 2;
  FaultInjectingFileIO io(MakeLocalFileIO(), plan);
  std::shared_ptr<FileIO> other = io.Wrap(MakeLocalFileIO());
  EXPECT_OK(io.Exists(dir.File("a")));              // 0
  EXPECT_OK(other->Exists(dir.File("b")));          // 1
  EXPECT_FALSE(other->Exists(dir.File("c")).ok());  // 2: the planned call, through the view
  EXPECT_EQ(io.calls(), 3);
  EXPECT_TRUE(io.fault_fired());
}

}  // namespace
}  // namespace floe
