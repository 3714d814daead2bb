// S3 retries under injected faults: requests go through tests/tools/fault_proxy.mjs
// (500/503/SlowDown/429, dropped connections, stalls past the client timeout,
// truncated bodies) in front of s3rver. The proxy also verifies every SigV4
// signature independently, which s3rver does not do.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "io/s3/s3_file_io.h"
#include "test_util.h"
#include "unit/s3/s3_test_servers.h"

namespace floe::s3 {
namespace {

constexpr char kBucket[] = "floe-test";

std::vector<uint8_t> RandomBytes(size_t size, uint64_t seed) {
  std::vector<uint8_t> out(size);
  std::mt19937_64 rng(seed);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

std::string Uri(const std::string& key) {
  return std::string("s3://") + kBucket + "/" + key;
}

class S3FaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_reason_ = new std::string(floe::testing::S3ToolsMissingReason());
    if (!skip_reason_->empty()) return;
    dir_ = new floe::testing::TempDir();
    s3rver_ = new floe::testing::NodeProcess();
    proxy_ = new floe::testing::NodeProcess();
    const auto tools = floe::testing::SourceDir() / "tests/tools";
    auto s3_port = s3rver_->Start({"--openssl-legacy-provider", (tools / "s3rver.mjs").string(),
                                   dir_->File("data"), kBucket, "vhost.localhost"},
                                  dir_->File("s3rver.log"));
    if (!s3_port) {
      *skip_reason_ = s3rver_->error();
      return;
    }
    auto proxy_port = proxy_->Start(
        {(tools / "fault_proxy.mjs").string(), std::to_string(*s3_port), "S3RVER"}, dir_->File("proxy.log"));
    if (!proxy_port) {
      *skip_reason_ = proxy_->error();
      return;
    }
    proxy_port_ = *proxy_port;
  }
  static void TearDownTestSuite() {
    delete proxy_;
    delete s3rver_;
    delete dir_;
    delete skip_reason_;
    proxy_ = s3rver_ = nullptr;
    dir_ = nullptr;
    skip_reason_ = nullptr;
  }

  void SetUp() override {
    if (!skip_reason_->empty()) GTEST_SKIP() << "skipped: " << *skip_reason_;
    control_ = std::make_unique<http::HttpTransport>(2000, 10000);
    ASSERT_OK(Control("POST", "/__proxy/reset", "").status());
  }

  static S3Options Options() {
    S3Options options;
    options.endpoint = "http://127.0.0.1:" + std::to_string(proxy_port_);
    options.region = "us-east-1";
    options.access_key_id = "S3RVER";
    options.secret_access_key = "S3RVER";
    options.multipart_part_size = 5 << 20;
    options.multipart_threshold = 5 << 20;
    options.retry_base_delay_ms = 20;
    options.retry_max_delay_ms = 200;
    // Generous, so a loaded machine does not add timeouts the assertions do not
    // expect; the stall test uses its own short timeout.
    options.request_timeout_ms = 15000;
    return options;
  }

  Result<nlohmann::json> Control(const std::string& method, const std::string& path,
                                 const std::string& body) {
    http::HttpRequest request;
    request.method = method;
    request.url = "http://127.0.0.1:" + std::to_string(proxy_port_) + path;
    request.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    FLOE_ASSIGN_OR_RETURN(http::HttpResponse response, control_->Execute(request));
    if (response.status != 200)
      return Status::IOError("proxy control answered " + std::to_string(response.status));
    return nlohmann::json::parse(response.body);
  }
  void Inject(const std::vector<std::string>& faults) {
    ASSERT_OK(Control("POST", "/__proxy/faults", nlohmann::json(faults).dump()).status());
  }
  nlohmann::json Stats() {
    Result<nlohmann::json> stats = Control("GET", "/__proxy/stats", "");
    EXPECT_OK(stats);
    return stats.ok() ? *stats : nlohmann::json::object();
  }
  static int CountRequests(const nlohmann::json& stats, const std::string& method,
                           const std::string& url_part) {
    int n = 0;
    for (const auto& entry : stats["log"]) {
      if (entry["method"] == method && entry["url"].get<std::string>().find(url_part) != std::string::npos)
        ++n;
    }
    return n;
  }

  static inline std::string* skip_reason_ = nullptr;
  static inline floe::testing::TempDir* dir_ = nullptr;
  static inline floe::testing::NodeProcess* s3rver_ = nullptr;
  static inline floe::testing::NodeProcess* proxy_ = nullptr;
  static inline int proxy_port_ = 0;
  std::unique_ptr<http::HttpTransport> control_;
};

TEST_F(S3FaultTest, SignaturesAreVerifiedIndependently) {
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(Options()));
  const std::string key = "sig/a b+c&d=e%f/caf\xC3\xA9~!*'().txt";
  ASSERT_OK(io->WriteAll(Uri(key), "signed"));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> back, io->ReadAll(Uri(key)));
  EXPECT_EQ(std::string(back.begin(), back.end()), "signed");
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, io->List(Uri("sig")));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].path, Uri(key));
  // Temporary credentials: the session token is sent and signed.
  S3Options with_token = Options();
  with_token.session_token = "FwoGZXIvYXdzEXAMPLE//token+=";
  ASSERT_OK_AND_ASSIGN(auto token_io, MakeS3FileIO(with_token));
  ASSERT_OK(token_io->WriteAll(Uri("sig/with-token"), "t"));
  ASSERT_OK_AND_ASSIGN(auto token_file, token_io->OpenRead(Uri("sig/with-token")));
  nlohmann::json stats = Stats();
  EXPECT_EQ(stats["signatureFailures"], 0) << stats.dump(1);
  EXPECT_GE(stats["requests"].get<int>(), 6);

  // Negative control: a wrong secret is caught by the verifier, reported at
  // once (403 is not retried), and the secret is not in the message.
  S3Options wrong = Options();
  wrong.secret_access_key = "not-the-secret-XYZ";
  wrong.session_token = "session-token-ABC";
  ASSERT_OK_AND_ASSIGN(auto bad_io, MakeS3FileIO(wrong));
  Status st = bad_io->WriteAll(Uri("sig/other"), "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("HTTP 403 SignatureDoesNotMatch"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("s3://floe-test/sig/other"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().find("not-the-secret"), std::string::npos);
  EXPECT_EQ(st.message().find("session-token"), std::string::npos);
  EXPECT_EQ(st.message().find("after"), std::string::npos) << "403 must not be retried: " << st.ToString();
}

TEST_F(S3FaultTest, RetriesRecoverFromEveryFault) {
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(Options()));
  const std::vector<uint8_t> small = RandomBytes(100000, 1);

  Inject({"PUT:500", "PUT:503", "PUT:drop"});
  ASSERT_OK(io->WriteAll(Uri("faults/small.bin"), small));

  Inject({"HEAD:429", "HEAD:drop"});
  ASSERT_OK_AND_ASSIGN(auto file, io->OpenRead(Uri("faults/small.bin")));
  Inject({"GET:slowdown", "GET:drop", "GET:truncate", "GET:drop-after"});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> range, file->Read(1000, 50000));
  EXPECT_TRUE(std::equal(range.begin(), range.end(), small.begin() + 1000));

  // A stalled answer: the request times out and the retry succeeds.
  S3Options short_timeout = Options();
  short_timeout.request_timeout_ms = 1000;
  ASSERT_OK_AND_ASSIGN(auto impatient_io, MakeS3FileIO(short_timeout));
  ASSERT_OK_AND_ASSIGN(auto impatient_file, impatient_io->OpenRead(Uri("faults/small.bin")));
  Inject({"GET:stall"});
  auto stall_start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> after_stall, impatient_file->Read(0, 4096));
  EXPECT_TRUE(std::equal(after_stall.begin(), after_stall.end(), small.begin()));
  EXPECT_GE(std::chrono::steady_clock::now() - stall_start, std::chrono::milliseconds(900));

  // Multipart: faults on part uploads, on create and on complete.
  const std::vector<uint8_t> big = RandomBytes(20 << 20, 2);
  Inject({"POST:503", "PUT:500", "PUT:drop", "PUT:slowdown", "PUT:drop-after"});
  ASSERT_OK_AND_ASSIGN(auto out, io->Create(Uri("faults/big.bin")));
  ASSERT_OK(out->Write(big));
  Inject({"POST:500"});  // only CompleteMultipartUpload posts after this point
  ASSERT_OK_AND_ASSIGN(int64_t written, out->Close());
  EXPECT_EQ(written, static_cast<int64_t>(big.size()));
  Inject({"GET:truncate", "GET:500", "GET:drop"});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> big_back, io->ReadAll(Uri("faults/big.bin")));
  EXPECT_TRUE(big_back == big);

  // The answer to a successful Complete is lost; the retry finds no upload
  // (AWS's answer, simulated by the proxy), and the writer confirms the object
  // instead of reporting a failure.
  const std::vector<uint8_t> lost = RandomBytes(11 << 20, 4);
  ASSERT_OK_AND_ASSIGN(auto lost_out, io->Create(Uri("faults/lost-answer.bin")));
  ASSERT_OK(lost_out->Write(lost));
  Inject({"POST:drop-after", "POST:nosuchupload"});
  ASSERT_OK_AND_ASSIGN(int64_t lost_size, lost_out->Close());
  EXPECT_EQ(lost_size, static_cast<int64_t>(lost.size()));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> lost_back, io->ReadAll(Uri("faults/lost-answer.bin")));
  EXPECT_TRUE(lost_back == lost);

  // Listing with paging under faults.
  for (int i = 0; i < 12; ++i) ASSERT_OK(io->WriteAll(Uri("faults/list/k" + std::to_string(100 + i)), "v"));
  Inject({"GET:500", "GET:truncate", "GET:slowdown"});
  S3ListRequest request;
  request.prefix = "faults/list/";
  request.max_keys = 5;
  std::vector<std::string> keys;
  for (;;) {
    ASSERT_OK_AND_ASSIGN(S3ListPage page, io->client().ListObjectsV2(kBucket, request));
    for (const auto& object : page.objects) keys.push_back(object.key);
    if (!page.truncated) break;
    request.continuation_token = page.next_continuation_token;
  }
  ASSERT_EQ(keys.size(), 12u);
  EXPECT_EQ(keys.front(), "faults/list/k100");

  nlohmann::json stats = Stats();
  EXPECT_EQ(stats["queued"], 0) << "every injected fault was hit: " << stats.dump(1);
  EXPECT_EQ(stats["signatureFailures"], 0);
  EXPECT_GE(CountRequests(stats, "PUT", "partNumber="), 4 + 4);  // 4 parts plus the failed tries
  EXPECT_GE(CountRequests(stats, "POST", "uploadId="), 2 + 2);   // each complete: one failure, one retry
  EXPECT_GE(stats["maxConcurrent"].get<int>(), 2) << "part uploads ran in parallel";
}

TEST_F(S3FaultTest, ExhaustedRetriesAreReportedClearly) {
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(Options()));
  ASSERT_OK(io->WriteAll(Uri("budget/obj"), std::string(1000, 'z')));
  ASSERT_OK_AND_ASSIGN(auto file, io->OpenRead(Uri("budget/obj")));

  // Zero retry budget: the first transient error is the answer.
  S3Options no_budget = Options();
  no_budget.retry_budget_ms = 0;
  // Delays of 0 ms: a fast local failure plus a 0 ms delay once slipped under
  // the "elapsed + delay > budget" check and retried (flaky before the fix;
  // with a zero base delay it retried nearly always).
  no_budget.retry_base_delay_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto strict_io, MakeS3FileIO(no_budget));
  ASSERT_OK_AND_ASSIGN(auto strict_file, strict_io->OpenRead(Uri("budget/obj")));
  Inject({"GET:slowdown"});
  Result<std::vector<uint8_t>> failed = strict_file->Read(0, 100);
  ASSERT_FALSE(failed.ok());
  const std::string& message = failed.status().message();
  EXPECT_EQ(failed.status().kind(), ErrorKind::kIOError);
  EXPECT_TRUE(failed.status().retryable());
  EXPECT_NE(message.find("S3 GetObject s3://floe-test/budget/obj: HTTP 503 SlowDown"), std::string::npos)
      << message;
  EXPECT_NE(message.find("retry budget of 0 ms exhausted"), std::string::npos) << message;
  EXPECT_EQ(message.find("S3RVER"), std::string::npos);

  // libcurl itself resends once when a reused keep-alive connection turns out
  // dead, so drop twice; then clear whatever is left for the next step.
  Inject({"GET:drop", "GET:drop"});
  failed = strict_file->Read(0, 100);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("transport error"), std::string::npos)
      << failed.status().ToString();

  ASSERT_OK(Control("POST", "/__proxy/reset", "").status());

  // Attempts exhausted: three tries, three failures.
  S3Options three = Options();
  three.max_attempts = 3;
  ASSERT_OK_AND_ASSIGN(auto three_io, MakeS3FileIO(three));
  ASSERT_OK_AND_ASSIGN(auto three_file, three_io->OpenRead(Uri("budget/obj")));
  Inject({"GET:500", "GET:500", "GET:500"});
  failed = three_file->Read(0, 100);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("HTTP 500 InternalError"), std::string::npos);
  EXPECT_NE(failed.status().message().find("after 3 attempts"), std::string::npos)
      << failed.status().ToString();
  // The same read with the default client succeeds once the faults are spent.
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> ok_read, file->Read(0, 100));
  EXPECT_EQ(ok_read.size(), 100u);
}

TEST_F(S3FaultTest, FailedOrAbortedMultipartUploadIsAborted) {
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(Options()));
  const std::vector<uint8_t> data = RandomBytes(16 << 20, 5);
  {
    ASSERT_OK_AND_ASSIGN(auto out, io->Create(Uri("abort/explicit.bin")));
    ASSERT_OK(out->Write(data));
    out->Abort();
  }
  nlohmann::json stats = Stats();
  EXPECT_EQ(CountRequests(stats, "DELETE", "uploadId="), 1) << stats.dump(1);

  // A part failing with a non-retryable error aborts the whole upload.
  Inject({"PUT:403"});
  ASSERT_OK_AND_ASSIGN(auto out, io->Create(Uri("abort/failed.bin")));
  Status write = out->Write(data);
  Result<int64_t> closed = write.ok() ? out->Close() : Result<int64_t>(write);
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.status().message().find("HTTP 403 AccessDenied"), std::string::npos)
      << closed.status().ToString();
  EXPECT_NE(closed.status().message().find("UploadPart s3://floe-test/abort/failed.bin"), std::string::npos);
  stats = Stats();
  EXPECT_EQ(CountRequests(stats, "DELETE", "uploadId="), 2) << stats.dump(1);
  EXPECT_EQ(CountRequests(stats, "POST", "uploadId="), 0) << "never completed";
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, io->List(Uri("abort")));
  EXPECT_TRUE(listed.empty());
}

TEST_F(S3FaultTest, ConditionalCreateSendsIfNoneMatch) {
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(Options()));
  CreateOptions exclusive;
  exclusive.if_not_exists = true;
  ASSERT_OK(io->WriteAll(Uri("cond/new"), "first", exclusive));
  // Another writer wins between our HEAD and our PUT: AWS answers 412.
  Inject({"PUT:412"});
  Status lost_race = io->WriteAll(Uri("cond/raced"), "second", exclusive);
  EXPECT_EQ(lost_race.kind(), ErrorKind::kAlreadyExists) << lost_race.ToString();
  EXPECT_NE(lost_race.message().find("s3://floe-test/cond/raced"), std::string::npos) << lost_race.ToString();
  // A multipart create-if-absent puts the condition on CompleteMultipartUpload.
  ASSERT_OK(io->WriteAll(Uri("cond/big"), std::string(6 << 20, 'b'), exclusive));
  nlohmann::json stats = Stats();
  int conditional_puts = 0;
  int conditional_completes = 0;
  for (const auto& entry : stats["log"]) {
    const std::string signed_headers = entry["signedHeaders"];
    if (signed_headers.find("if-none-match") == std::string::npos) continue;
    if (entry["method"] == "PUT") ++conditional_puts;
    if (entry["method"] == "POST" && entry["url"].get<std::string>().find("uploadId=") != std::string::npos) {
      ++conditional_completes;
    }
  }
  EXPECT_EQ(conditional_puts, 2) << stats.dump(1);
  EXPECT_EQ(conditional_completes, 1) << stats.dump(1);
  // Plain writes carry no condition.
  ASSERT_OK(Control("POST", "/__proxy/reset", "").status());
  ASSERT_OK(io->WriteAll(Uri("cond/plain"), "p"));
  stats = Stats();
  ASSERT_EQ(stats["log"].size(), 1u);
  EXPECT_EQ(stats["log"][0]["signedHeaders"].get<std::string>().find("if-none-match"), std::string::npos);
}

TEST_F(S3FaultTest, VirtualHostedAddressing) {
  // Virtual-hosted requests put the bucket in the Host header: bucket "vhost"
  // at endpoint localhost becomes host "vhost.localhost", which s3rver maps to
  // its bucket of that name. The proxy checks the signature covers that host.
  S3Options options = Options();
  options.endpoint = "http://localhost:" + std::to_string(proxy_port_);
  options.path_style = false;
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(options));
  ASSERT_OK(io->WriteAll("s3://vhost/dir/k 1.txt", "virtual"));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> back, io->ReadAll("s3://vhost/dir/k 1.txt"));
  EXPECT_EQ(std::string(back.begin(), back.end()), "virtual");
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> listed, io->List("s3://vhost/dir"));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].path, "s3://vhost/dir/k 1.txt");
  nlohmann::json stats = Stats();
  EXPECT_EQ(stats["signatureFailures"], 0) << stats.dump(1);
  EXPECT_EQ(CountRequests(stats, "PUT", "/dir/k%201.txt"), 1) << stats.dump(1);
  EXPECT_EQ(CountRequests(stats, "PUT", "/vhost/"), 0) << "the bucket is not in the path";
}

}  // namespace
}  // namespace floe::s3
