#include <filesystem>

#include "io/file_io.h"
#include "test_util.h"

namespace floe {
namespace {

TEST(LocalFileIOTest, WriteIsInvisibleUntilClose) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  std::string path = dir.File("a/b/data.bin");
  ASSERT_OK_AND_ASSIGN(auto out, io->Create(path));
  ASSERT_OK(out->Write(std::string("hello world")));
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_OK_AND_ASSIGN(int64_t size, out->Close());
  EXPECT_EQ(size, 11);
  ASSERT_OK_AND_ASSIGN(auto in, io->OpenRead("file://" + path));
  ASSERT_OK_AND_ASSIGN(auto bytes, in->Read(6, 5));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "world");
}

TEST(LocalFileIOTest, AbortLeavesNothing) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  {
    ASSERT_OK_AND_ASSIGN(auto out, io->Create(dir.File("x")));
    ASSERT_OK(out->Write(std::string("partial")));
    out->Abort();
  }
  {
    ASSERT_OK_AND_ASSIGN(auto out, io->Create(dir.File("y")));
    ASSERT_OK(out->Write(std::string("dropped unclosed")));
  }
  ASSERT_OK_AND_ASSIGN(auto files, io->List(dir.path().string()));
  EXPECT_TRUE(files.empty());
}

TEST(LocalFileIOTest, ReadPastEndNamesFileAndRange) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK(io->WriteAll(dir.File("short"), std::string("abc")));
  ASSERT_OK_AND_ASSIGN(auto in, io->OpenRead(dir.File("short")));
  auto r = in->Read(1, 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("short"), std::string::npos);
  EXPECT_NE(r.status().message().find("offset 1"), std::string::npos);
}

TEST(LocalFileIOTest, IfNotExistsRefusesToReplace) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK(io->WriteAll(dir.File("v1.json"), std::string("one"), {.if_not_exists = true}));
  Status st = io->WriteAll(dir.File("v1.json"), std::string("two"), {.if_not_exists = true});
  EXPECT_EQ(st.kind(), ErrorKind::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(auto bytes, io->ReadAll(dir.File("v1.json")));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "one");
}

TEST(LocalFileIOTest, ListIsRecursiveAndSorted) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK(io->WriteAll(dir.File("b/2.parquet"), std::string("2")));
  ASSERT_OK(io->WriteAll(dir.File("a/1.parquet"), std::string("1")));
  ASSERT_OK_AND_ASSIGN(auto files, io->List(dir.path().string()));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, dir.File("a/1.parquet"));
  EXPECT_EQ(files[1].size, 1);
  EXPECT_EQ(io->OpenRead(dir.File("missing")).status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe
