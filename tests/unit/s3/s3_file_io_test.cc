// S3FileIO and S3Client against a real local S3 server (s3rver, started by the
// test). Skips with a reason when node or s3rver is missing.
#include "io/s3/s3_file_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "io/s3/file_io_factory.h"
#include "test_util.h"
#include "unit/s3/s3_test_servers.h"

namespace floe::s3 {
namespace {

constexpr char kBucket[] = "floe-test";

std::vector<uint8_t> RandomBytes(size_t size, uint64_t seed) {
  std::vector<uint8_t> out(size);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t v = rng();
    for (size_t j = 0; j < 8 && i + j < size; ++j) out[i + j] = static_cast<uint8_t>(v >> (8 * j));
  }
  return out;
}

class S3FileIOTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_reason_ = new std::string(floe::testing::S3ToolsMissingReason());
    if (!skip_reason_->empty()) return;
    dir_ = new floe::testing::TempDir();
    server_ = new floe::testing::NodeProcess();
    std::filesystem::create_directories(dir_->path() / "data");
    auto port = server_->Start(
        {"--openssl-legacy-provider", (floe::testing::SourceDir() / "tests/tools/s3rver.mjs").string(),
         dir_->File("data"), kBucket, "other-bucket"},
        dir_->File("s3rver.log"));
    if (!port) {
      *skip_reason_ = server_->error();
      return;
    }
    port_ = *port;
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
    delete skip_reason_;
    server_ = nullptr;
    dir_ = nullptr;
    skip_reason_ = nullptr;
  }

  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << "skipped: " << *skip_reason_;
    ASSERT_OK_AND_ASSIGN(io_, MakeS3FileIO(Options()));
  }

  static S3Options Options() {
    S3Options options;
    options.endpoint = "http://127.0.0.1:" + std::to_string(port_);
    options.region = "us-east-1";
    options.access_key_id = "S3RVER";  // the only key s3rver knows
    options.secret_access_key = "S3RVER";
    options.multipart_part_size = 5 << 20;
    options.multipart_threshold = 5 << 20;
    options.retry_base_delay_ms = 10;
    return options;
  }

  static std::string Uri(const std::string& key) { return std::string("s3://") + kBucket + "/" + key; }

  static inline std::string* skip_reason_ = nullptr;
  static inline floe::testing::TempDir* dir_ = nullptr;
  static inline floe::testing::NodeProcess* server_ = nullptr;
  static inline int port_ = 0;
  std::shared_ptr<S3FileIO> io_;
};

TEST_F(S3FileIOTest, PutGetHeadAndRangedRead) {
  const std::string text = "hello, object storage! 0123456789";
  ASSERT_OK(io_->WriteAll(Uri("basic/hello.txt"), text));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> all, io_->ReadAll(Uri("basic/hello.txt")));
  EXPECT_EQ(std::string(all.begin(), all.end()), text);

  ASSERT_OK_AND_ASSIGN(FileInfo info, io_->Stat(Uri("basic/hello.txt")));
  EXPECT_EQ(info.size, static_cast<int64_t>(text.size()));
  EXPECT_GT(info.mtime_ms, 1600000000000);  // after 2020
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(Uri("basic/hello.txt")));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(bool missing, io_->Exists(Uri("basic/absent.txt")));
  EXPECT_FALSE(missing);

  ASSERT_OK_AND_ASSIGN(auto file, io_->OpenRead(Uri("basic/hello.txt")));
  ASSERT_OK_AND_ASSIGN(int64_t size, file->Size());
  EXPECT_EQ(size, static_cast<int64_t>(text.size()));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> middle, file->Read(7, 6));
  EXPECT_EQ(std::string(middle.begin(), middle.end()), "object");
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> tail, file->Read(size - 10, 10));
  EXPECT_EQ(std::string(tail.begin(), tail.end()), "0123456789");

  // A read past the end names the object, offset and length.
  Result<std::vector<uint8_t>> past = file->Read(size - 4, 10);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("s3://floe-test/basic/hello.txt"), std::string::npos)
      << past.status().ToString();
  EXPECT_NE(past.status().message().find("offset " + std::to_string(size - 4)), std::string::npos)
      << past.status().ToString();
}

TEST_F(S3FileIOTest, EmptyObject) {
  ASSERT_OK_AND_ASSIGN(auto out, io_->Create(Uri("basic/empty")));
  ASSERT_OK_AND_ASSIGN(int64_t size, out->Close());
  EXPECT_EQ(size, 0);
  ASSERT_OK_AND_ASSIGN(FileInfo info, io_->Stat(Uri("basic/empty")));
  EXPECT_EQ(info.size, 0);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, io_->ReadAll(Uri("basic/empty")));
  EXPECT_TRUE(bytes.empty());
  EXPECT_FALSE(io_->OpenRead(Uri("")).ok()) << "a bucket is not a file";
}

TEST_F(S3FileIOTest, MissingKeyErrorNamesBucketKeyAndStatus) {
  Result<std::unique_ptr<InputFile>> file = io_->OpenRead(Uri("no/such/key.parquet"));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(file.status().message().find("s3://floe-test/no/such/key.parquet"), std::string::npos);
  EXPECT_NE(file.status().message().find("HTTP 404"), std::string::npos) << file.status().ToString();
  EXPECT_EQ(file.status().message().find("S3RVER"), std::string::npos) << "credentials leaked";

  // GET (not HEAD) carries an S3 error document: its Code is reported.
  Result<std::string> body = io_->client().GetObject(kBucket, "no/such/key.parquet");
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.status().message().find("NoSuchKey"), std::string::npos) << body.status().ToString();
  Status missing_bucket = io_->client().PutObject("no-such-bucket", "k", {});
  EXPECT_FALSE(missing_bucket.ok());
  EXPECT_NE(missing_bucket.message().find("NoSuchBucket"), std::string::npos) << missing_bucket.ToString();
}

TEST_F(S3FileIOTest, KeysNeedingEncodingRoundTrip) {
  const std::vector<std::string> keys = {"enc/a b+c&d%e=f.txt", "enc/caf\xC3\xA9/x;y,z'q\".bin",
                                         "enc/brackets[1](2){3}!*~$@.txt"};
  for (const std::string& key : keys) ASSERT_OK(io_->WriteAll(Uri(key), key));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, io_->List(Uri("enc")));
  ASSERT_EQ(listed.size(), keys.size());
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(listed[i].path, Uri(sorted[i]));
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, io_->ReadAll(listed[i].path));
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), sorted[i]);
  }
}

TEST_F(S3FileIOTest, ListPagingStartAfterAndDelimiter) {
  // More than 1000 keys so List pages with the server's default page size.
  constexpr int kCount = 1010;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = t; i < kCount; i += 4) {
        char name[64];
        std::snprintf(name, sizeof(name), "many/k%05d", i);
        if (!io_->WriteAll(Uri(name), std::string(static_cast<size_t>(i % 7), 'x')).ok()) ++failures;
      }
    });
  }
  for (auto& w : writers) w.join();
  ASSERT_EQ(failures.load(), 0);

  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> all, io_->List(Uri("many")));
  ASSERT_EQ(all.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(all.front().path, Uri("many/k00000"));
  EXPECT_EQ(all.back().path, Uri("many/k01009"));
  EXPECT_EQ(all[13].size, 13 % 7);
  EXPECT_GT(all[13].mtime_ms, 1600000000000);

  // Small pages through the client: every key once, in order.
  S3ListRequest request;
  request.prefix = "many/";
  request.max_keys = 97;
  std::vector<std::string> paged;
  int pages = 0;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(S3ListPage page, io_->client().ListObjectsV2(kBucket, request));
    ++pages;
    for (const auto& object : page.objects) paged.push_back(object.key);
    if (!page.truncated) break;
    request.continuation_token = page.next_continuation_token;
  }
  EXPECT_EQ(pages, (kCount + 96) / 97);
  ASSERT_EQ(paged.size(), static_cast<size_t>(kCount));
  EXPECT_TRUE(std::is_sorted(paged.begin(), paged.end()));

  // Resume after a key, as an incremental source does.
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> after, io_->ListAfter(Uri("many"), Uri("many/k01000")));
  ASSERT_EQ(after.size(), 9u);
  EXPECT_EQ(after.front().path, Uri("many/k01001"));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> limited, ListAfter(*io_, Uri("many"), "many/k00010", 5));
  ASSERT_EQ(limited.size(), 5u);
  EXPECT_EQ(limited.back().path, Uri("many/k00015"));

  // Delimiter listing: direct children and "directories".
  ASSERT_OK(io_->WriteAll(Uri("tree/top.txt"), "t"));
  ASSERT_OK(io_->WriteAll(Uri("tree/a/1.txt"), "1"));
  ASSERT_OK(io_->WriteAll(Uri("tree/b/2.txt"), "2"));
  S3ListRequest by_dir;
  by_dir.prefix = "tree/";
  by_dir.delimiter = "/";
  ASSERT_OK_AND_ASSIGN(S3ListPage dirs, io_->client().ListObjectsV2(kBucket, by_dir));
  ASSERT_EQ(dirs.objects.size(), 1u);
  EXPECT_EQ(dirs.objects[0].key, "tree/top.txt");
  EXPECT_EQ(dirs.common_prefixes, (std::vector<std::string>{"tree/a/", "tree/b/"}));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> recursive, io_->List(Uri("tree/")));
  EXPECT_EQ(recursive.size(), 3u);

  // Batch delete of everything listed.
  std::vector<std::string> paths;
  for (const FileInfo& info : all) paths.push_back(info.path);
  ASSERT_OK(io_->DeleteMany(paths));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> gone, io_->List(Uri("many")));
  EXPECT_TRUE(gone.empty());
}

TEST_F(S3FileIOTest, MultipartUploadOfTwentyMiBWithParallelParts) {
  const std::vector<uint8_t> data = RandomBytes(20 << 20, 7);
  ASSERT_OK_AND_ASSIGN(auto out, io_->Create(Uri("big/object.bin")));
  // Odd-sized writes so parts are cut from the middle of writes.
  for (size_t offset = 0; offset < data.size();) {
    size_t n = std::min<size_t>(777777, data.size() - offset);
    ASSERT_OK(out->Write(std::span<const uint8_t>(data.data() + offset, n)));
    offset += n;
  }
  EXPECT_EQ(out->Position(), static_cast<int64_t>(data.size()));
  // Not visible before Close.
  ASSERT_OK_AND_ASSIGN(bool early, io_->Exists(Uri("big/object.bin")));
  EXPECT_FALSE(early);
  ASSERT_OK_AND_ASSIGN(int64_t size, out->Close());
  EXPECT_EQ(size, static_cast<int64_t>(data.size()));

  ASSERT_OK_AND_ASSIGN(S3ObjectInfo head, io_->client().HeadObject(kBucket, "big/object.bin"));
  EXPECT_EQ(head.size, static_cast<int64_t>(data.size()));
  // s3rver gives multipart objects a plain MD5 ETag; the fault-proxy test checks the parts on the wire.

  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> back, io_->ReadAll(Uri("big/object.bin")));
  EXPECT_TRUE(back == data);
  // A 12 MiB read spanning parts is split into parallel ranged GETs.
  ASSERT_OK_AND_ASSIGN(auto file, io_->OpenRead(Uri("big/object.bin")));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> slice, file->Read(3 << 20, 12 << 20));
  EXPECT_TRUE(std::equal(slice.begin(), slice.end(), data.begin() + (3 << 20)));
}

TEST_F(S3FileIOTest, AbortAndUnclosedFilesLeaveNothing) {
  const std::vector<uint8_t> data = RandomBytes(12 << 20, 3);
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->Create(Uri("aborted/multipart.bin")));
    ASSERT_OK(out->Write(data));  // past the threshold: a multipart upload is running
    out->Abort();
    EXPECT_FALSE(out->Close().ok());
  }
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->Create(Uri("aborted/dropped.bin")));
    ASSERT_OK(out->Write(data));
  }  // destroyed unclosed
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->Create(Uri("aborted/small.bin")));
    ASSERT_OK(out->Write(std::string("tiny")));
    out->Abort();
  }
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, io_->List(Uri("aborted")));
  EXPECT_TRUE(listed.empty());
  // s3rver does not implement AbortMultipartUpload (405); the fault-proxy test checks it is sent.
}

TEST_F(S3FileIOTest, DeleteAndCreateIfNotExists) {
  ASSERT_OK(io_->WriteAll(Uri("del/one"), "1"));
  ASSERT_OK(io_->Delete(Uri("del/one")));
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(Uri("del/one")));
  EXPECT_FALSE(exists);
  EXPECT_OK(io_->Delete(Uri("del/never-there")));

  CreateOptions exclusive;
  exclusive.if_not_exists = true;
  ASSERT_OK(io_->WriteAll(Uri("del/exclusive"), "first", exclusive));
  Status again = io_->WriteAll(Uri("del/exclusive"), "second", exclusive);
  EXPECT_EQ(again.kind(), ErrorKind::kAlreadyExists) << again.ToString();
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> kept, io_->ReadAll(Uri("del/exclusive")));
  EXPECT_EQ(std::string(kept.begin(), kept.end()), "first");
}

TEST_F(S3FileIOTest, FactoryPicksStorageByUri) {
  ASSERT_OK_AND_ASSIGN(auto s3_io, FileIOForUri("s3a://" + std::string(kBucket) + "/x", Options()));
  EXPECT_NE(dynamic_cast<S3FileIO*>(s3_io.get()), nullptr);
  ASSERT_OK(s3_io->WriteAll("s3a://floe-test/factory/a.txt", "via s3a"));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, s3_io->ReadAll(Uri("factory/a.txt")));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "via s3a");

  ASSERT_OK_AND_ASSIGN(auto local, FileIOForUri("/tmp/some/path"));
  EXPECT_EQ(dynamic_cast<S3FileIO*>(local.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(auto local_uri, FileIOForUri("file:///tmp/x"));
  EXPECT_EQ(dynamic_cast<S3FileIO*>(local_uri.get()), nullptr);
  Result<std::shared_ptr<FileIO>> gcs = FileIOForUri("gs://bucket/x");
  EXPECT_EQ(gcs.status().kind(), ErrorKind::kNotSupported);

  floe::testing::TempDir tmp;
  auto local_io = MakeLocalFileIO();
  for (const char* name : {"a", "b", "c"}) ASSERT_OK(local_io->WriteAll(tmp.File(name), std::string(name)));
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> after_a,
                       ListAfter(*local_io, tmp.path().string(), tmp.File("a")));
  ASSERT_EQ(after_a.size(), 2u);
  EXPECT_EQ(after_a[0].path, tmp.File("b"));
}

TEST(S3UriTest, ParsesBucketAndKey) {
  ASSERT_OK_AND_ASSIGN(S3Location a, ParseS3Uri("s3://bucket/dir/file.parquet"));
  EXPECT_EQ(a.bucket, "bucket");
  EXPECT_EQ(a.key, "dir/file.parquet");
  ASSERT_OK_AND_ASSIGN(S3Location b, ParseS3Uri("s3a://bucket"));
  EXPECT_EQ(b.bucket, "bucket");
  EXPECT_EQ(b.key, "");
  EXPECT_FALSE(ParseS3Uri("s3:///key").ok());
  EXPECT_FALSE(ParseS3Uri("http://bucket/key").ok());
  EXPECT_FALSE(ParseS3Uri("s3://user@bucket/key").ok());
}

}  // namespace
}  // namespace floe::s3
