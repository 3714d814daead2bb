// ObservabilityService without a socket: which routes need the token, what
// /readyz says before the first poll, when the source or catalog fails and
// when a table is stopped (details only with the token), /metrics with the
// ledger's backlog and no file names, the dashboard's security headers and
// that the page carries no data.
#include "observability/observability_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/open/open_catalog.h"
#include "ingest/pipeline.h"
#include "test_util.h"

namespace floe::observability {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "observability-test-token";

http_server::HttpRequest Get(const std::string& target, bool with_token = false) {
  http_server::HttpRequest request{"GET", target, {{"host", "127.0.0.1:9464"}}, ""};
  if (with_token) request.headers["authorization"] = std::string("Bearer ") + kToken;
  return request;
}

std::string Header(const http_server::HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return "";
}

class ObservabilityServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.name = "orders";
    config_.state_dir = dir_.File("state");
    config_.target.ns = "lake";
    config_.catalog =
        catalog::CatalogOptionsForUri("sqlite://" + dir_.File("catalog.db"), dir_.File("wh"), "floe");
    config_.catalog.create_if_missing = true;
    ASSERT_OK(catalog::OpenCatalog(config_.catalog).status());  // as the pipeline opens it first
    auto ledger = ingest::Ledger::Open(config_.state_dir);
    ASSERT_OK(ledger.status());
    ledger_ = std::move(*ledger);
    ingest::SourceUnit unit;
    unit.uri = "/landing/a/<script>secret-name</script>.csv";
    unit.table = "a";
    unit.order_key = "1";
    unit.size = 42;
    ASSERT_OK(ledger_->RecordDiscovered({unit}, 1).status());
    metrics_ = std::make_shared<ingest::PipelineMetrics>("orders");
  }

  std::unique_ptr<ObservabilityService> Service(const std::string& token) {
    ObservabilityOptions options;
    options.config = config_;
    options.metrics = metrics_;
    options.admission.token = token;
    auto service = ObservabilityService::Create(std::move(options));
    EXPECT_TRUE(service.ok()) << service.status().ToString();
    return std::move(*service);
  }

  // Admit, then HandleAdmitted, as the server does.
  http_server::HttpResponse Serve(ObservabilityService& service, const http_server::HttpRequest& request) {
    if (auto refused = service.Admit(request)) return *refused;
    return service.HandleAdmitted(request);
  }

  floe::testing::TempDir dir_;
  ingest::PipelineConfig config_;
  std::unique_ptr<ingest::Ledger> ledger_;
  std::shared_ptr<ingest::PipelineMetrics> metrics_;
};

TEST_F(ObservabilityServiceTest, WithATokenOnlyTheProbesAndThePageAnswerWithoutIt) {
  auto service = Service(kToken);
  EXPECT_TRUE(service->requires_auth());
  EXPECT_EQ(Serve(*service, Get("/metrics")).status, 401);
  EXPECT_EQ(Serve(*service, Get("/api/status")).status, 401);
  EXPECT_EQ(Serve(*service, Get("/metrics", true)).status, 200);
  EXPECT_EQ(Serve(*service, Get("/healthz")).status, 200);
  EXPECT_EQ(Serve(*service, Get("/")).status, 200);
  EXPECT_EQ(Serve(*service, Get("/dashboard.js")).status, 200);
  const http_server::HttpResponse anonymous = Serve(*service, Get("/readyz"));
  EXPECT_EQ(anonymous.status, 503);
  EXPECT_EQ(anonymous.body, "not ready\n") << "no details without the token";
  EXPECT_THAT(Serve(*service, Get("/readyz", true)).body, HasSubstr("starting: no poll has ended yet"));
  http_server::HttpRequest post = Get("/metrics", true);
  post.method = "POST";
  const http_server::HttpResponse refused = Serve(*service, post);
  EXPECT_EQ(refused.status, 405);
  EXPECT_EQ(Header(refused, "Allow"), "GET, HEAD");
  EXPECT_EQ(Serve(*service, Get("/nowhere", true)).status, 404);
}

TEST_F(ObservabilityServiceTest, AShortOrSpacedTokenIsRefused) {
  ObservabilityOptions options;
  options.config = config_;
  options.metrics = metrics_;
  options.admission.token = "short";
  EXPECT_FALSE(ObservabilityService::Create(options).ok());
}

TEST_F(ObservabilityServiceTest, ReadinessFollowsThePollsTheCatalogAndStoppedTables) {
  auto service = Service("");
  EXPECT_EQ(Serve(*service, Get("/readyz")).status, 503);
  metrics_->PollDone(false, "landing zone /landing does not exist", 1000);
  const http_server::HttpResponse down = Serve(*service, Get("/readyz"));
  EXPECT_EQ(down.status, 503);
  EXPECT_THAT(down.body, HasSubstr("source unreachable: landing zone /landing does not exist"));
  metrics_->PollDone(true, "", 2000);
  const http_server::HttpResponse ready = Serve(*service, Get("/readyz"));
  EXPECT_EQ(ready.status, 200) << ready.body;
  metrics_->TableCondition("lake.a", ingest::kTableStopped, "CDA table a was reset");
  const http_server::HttpResponse stopped = Serve(*service, Get("/readyz"));
  EXPECT_EQ(stopped.status, 503);
  EXPECT_THAT(stopped.body, HasSubstr("table lake.a stopped: CDA table a was reset"));
  metrics_->TableCondition("lake.a", ingest::kTableFailing, "catalog timeout");
  EXPECT_EQ(Serve(*service, Get("/readyz")).status, 200) << "a failing table is retried, not stopped";
  metrics_->TableCondition("lake.a", "", "");
  metrics_->CatalogReached(false, "connection refused");
  EXPECT_THAT(Serve(*service, Get("/readyz")).body, HasSubstr("catalog unreachable: connection refused"));
}

TEST_F(ObservabilityServiceTest, MetricsCarryTheLedgersBacklogAndNoFileName) {
  auto service = Service("");
  ingest::BatchResult result;
  result.snapshot_id = 7;
  result.counts.files = 2;
  result.counts.inserted = 10;
  result.commit_seconds = 0.2;
  metrics_->BatchCommitted("lake.a", result, 1.5);
  const http_server::HttpResponse response = Serve(*service, Get("/metrics"));
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(response.body, HasSubstr("floe_files_pending{pipeline=\"orders\",table=\"lake.a\"} 1\n"));
  EXPECT_THAT(response.body, HasSubstr("floe_bytes_pending{pipeline=\"orders\",table=\"lake.a\"} 42\n"));
  EXPECT_THAT(response.body,
              HasSubstr("floe_batches_committed_total{pipeline=\"orders\",table=\"lake.a\"} 1\n"));
  EXPECT_THAT(
      response.body,
      HasSubstr("floe_rows_committed_total{pipeline=\"orders\",table=\"lake.a\",kind=\"inserted\"} 10\n"));
  EXPECT_THAT(
      response.body,
      HasSubstr("floe_commit_duration_seconds_bucket{pipeline=\"orders\",table=\"lake.a\",le=\"0.25\"} 1\n"));
  EXPECT_THAT(response.body, HasSubstr("# TYPE process_cpu_seconds_total counter\n"));
  EXPECT_THAT(response.body, Not(HasSubstr("secret-name")));
}

TEST_F(ObservabilityServiceTest, TheDashboardIsStaticAndLocksDownScripts) {
  auto service = Service("");
  const http_server::HttpResponse page = Serve(*service, Get("/"));
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_THAT(Header(page, "Content-Security-Policy"), HasSubstr("script-src 'self'"));
  EXPECT_THAT(Header(page, "Content-Security-Policy"), Not(HasSubstr("unsafe-inline")));
  EXPECT_EQ(Header(page, "X-Content-Type-Options"), "nosniff");
  EXPECT_THAT(page.body, Not(HasSubstr("secret-name")));
  EXPECT_THAT(page.body, Not(HasSubstr("http://"))) << "no external asset";
  const http_server::HttpResponse script = Serve(*service, Get("/dashboard.js"));
  EXPECT_THAT(script.body, Not(HasSubstr("innerHTML")));
  const http_server::HttpResponse status = Serve(*service, Get("/api/status"));
  ASSERT_EQ(status.status, 200) << status.body;
  auto json = nlohmann::json::parse(status.body);
  EXPECT_EQ(json["pipeline"], "orders");
  EXPECT_EQ(json["tables"][0]["pending_files"], 1);
  http_server::HttpRequest head = Get("/");
  head.method = "HEAD";
  EXPECT_TRUE(Serve(*service, head).body.empty());
}

}  // namespace
}  // namespace floe::observability
