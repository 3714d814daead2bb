#include "observability/observability_service.h"

#include <nlohmann/json.hpp>

#include "catalog/open/open_catalog.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_ledger.h"
#include "ingest/pipeline_trace.h"
#include "metrics/prometheus_text.h"
#include "observability/dashboard_assets.h"
#include "observability/pipeline_status.h"
#include "observability/status_format.h"

namespace floe::observability {

namespace {

using http_server::HttpRequest;
using http_server::HttpResponse;

constexpr auto kCatalogCheckEvery = std::chrono::seconds(5);
constexpr const char* kDashboardPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string PathOf(const std::string& target) {
  return target.substr(0, target.find('?'));
}

// Routes that answer without a token: the probes, and the page and its files (which hold no data).
bool TokenExempt(const std::string& path) {
  return path == "/" || path == "/index.html" || path == "/dashboard.js" || path == "/dashboard.css" ||
         path == "/healthz" || path == "/readyz" || path == "/favicon.ico";
}

HttpResponse Text(int status, std::string body, std::string content_type = "text/plain; charset=utf-8") {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  response.content_type = std::move(content_type);
  return response;
}

void AddCommonHeaders(HttpResponse* response) {
  response->headers.emplace_back("Cache-Control", "no-store");
  response->headers.emplace_back("X-Content-Type-Options", "nosniff");
  response->headers.emplace_back("Referrer-Policy", "no-referrer");
}

metrics::MetricFamily Gauge(std::string name, std::string help) {
  return metrics::MetricFamily{std::move(name), std::move(help), metrics::MetricType::kGauge, {}, {}};
}

}  // namespace

ObservabilityService::ObservabilityService(ObservabilityOptions options)
    : options_(std::move(options)), admission_(options_.admission), start_ms_(NowMs()) {}

Result<std::unique_ptr<ObservabilityService>> ObservabilityService::Create(ObservabilityOptions options) {
  if (!options.metrics)
    return Status::InvalidArgument("the observability service needs the pipeline's metrics");
  if (!options.admission.token.empty()) {
    if (std::string problem = http_server::HeadAdmission::CheckTokenText(options.admission.token);
        !problem.empty()) {
      return Status::InvalidArgument("[observability] token: " + problem);
    }
  }
  for (const std::string& origin : options.admission.cors_origins) {
    if (origin.rfind("http://", 0) != 0 && origin.rfind("https://", 0) != 0) {
      return Status::InvalidArgument("[observability] cors_origins: '" + origin +
                                     "' must be scheme://host[:port]");
    }
  }
  options.admission.allowed_methods = "GET, HEAD";
  options.admission.allowed_host_flag = "[observability] allowed_hosts";
  options.admission.cors_origin_flag = "[observability] cors_origins";
  return std::unique_ptr<ObservabilityService>(new ObservabilityService(std::move(options)));
}

std::optional<HttpResponse> ObservabilityService::Admit(const HttpRequest& head) {
  const std::string path = PathOf(head.target);
  std::optional<http_server::AdmissionVerdict> verdict = admission_.Check(head, TokenExempt(path));
  std::optional<HttpResponse> answer;
  if (verdict) {
    answer = verdict->status == 204 ? Text(204, "") : ErrorResponse(verdict->status, verdict->message);
    for (auto& header : verdict->headers) answer->headers.push_back(std::move(header));
  } else if (head.method != "GET" && head.method != "HEAD") {
    answer = ErrorResponse(405, head.method + " is not allowed on " + path + " (GET and HEAD are)");
    answer->headers.emplace_back("Allow", "GET, HEAD");
  }
  if (answer && head.method == "HEAD") answer->body.clear();
  return answer;
}

HttpResponse ObservabilityService::ErrorResponse(int status, const std::string& message) const {
  nlohmann::ordered_json json{{"error", {{"code", status}, {"message", message}}}};
  HttpResponse response =
      Text(status, json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
           "application/json");
  AddCommonHeaders(&response);
  return response;
}

HttpResponse ObservabilityService::HandleAdmitted(const HttpRequest& request) {
  const std::string path = PathOf(request.target);
  HttpResponse response;
  if (path == "/metrics") {
    response = Metrics();
  } else if (path == "/healthz") {
    response = Text(200, "ok\n");
  } else if (path == "/readyz") {
    response = Ready(!admission_.requires_token() || admission_.Authorized(request));
  } else if (path == "/api/status") {
    response = ApiStatus();
  } else if (path == "/" || path == "/index.html") {
    response = Text(200, std::string(DashboardHtml()), "text/html; charset=utf-8");
    response.headers.emplace_back("Content-Security-Policy", kDashboardPolicy);
    response.headers.emplace_back("X-Frame-Options", "DENY");
  } else if (path == "/dashboard.js") {
    response = Text(200, std::string(DashboardScript()), "text/javascript; charset=utf-8");
  } else if (path == "/dashboard.css") {
    response = Text(200, std::string(DashboardStyle()), "text/css; charset=utf-8");
  } else {
    response = ErrorResponse(404, "no route " + path + " (try /, /metrics, /healthz, /readyz, /api/status)");
  }
  if (response.status < 400) AddCommonHeaders(&response);
  http_server::HeadAdmission::AddCorsHeaders(request, &response);
  if (request.method == "HEAD") response.body.clear();
  return response;
}

Result<ingest::Ledger*> ObservabilityService::LedgerLocked() {
  if (!ledger_) {
    FLOE_ASSIGN_OR_RETURN(ledger_,
                          ingest::Ledger::OpenReadOnly(ingest::PipelineLedgerOptions(options_.config)));
  }
  return ledger_.get();
}

Result<catalog::Catalog*> ObservabilityService::CatalogLocked() {
  if (!catalog_) {
    catalog::CatalogOptions reading = options_.config.catalog;
    reading.create_if_missing = false;  // the pipeline creates it; a reader never does
    FLOE_ASSIGN_OR_RETURN(catalog_, catalog::OpenCatalog(reading));
  }
  return catalog_.get();
}

std::optional<std::string> ObservabilityService::CatalogProblemLocked() {
  const auto now = std::chrono::steady_clock::now();
  if (catalog_checked_at_ && now - *catalog_checked_at_ < kCatalogCheckEvery) return catalog_problem_;
  catalog_checked_at_ = now;
  catalog_problem_.reset();
  auto opened = CatalogLocked();
  Status reached = opened.ok() ? (*opened)->ListNamespaces({}).status() : opened.status();
  if (!reached.ok()) {
    catalog_problem_ = reached.ToString();
    catalog_.reset();  // a broken connection is not reused
  }
  return catalog_problem_;
}

Result<std::string> ObservabilityService::Scrape() {
  std::vector<metrics::MetricFamily> families = options_.metrics->registry().Collect();
  const metrics::Labels& constant = options_.metrics->registry().constant_labels();
  auto labelled = [&constant](std::vector<std::pair<std::string, std::string>> more) {
    metrics::Labels labels = constant;
    for (auto& label : more) labels.push_back(std::move(label));
    return labels;
  };
  std::map<std::string, ingest::TableBacklog> backlog;
  std::map<std::string, ingest::BatchRecord> last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RETURN(ingest::Ledger * ledger, LedgerLocked());
    FLOE_ASSIGN_OR_RETURN(backlog, ledger->Backlog());
    FLOE_ASSIGN_OR_RETURN(last, ledger->LastCommittedBatches());
  }
  std::map<std::string, std::string> target_of;  // source table -> label
  auto target = [&](const std::string& source) -> const std::string& {
    auto it = target_of.find(source);
    if (it != target_of.end()) return it->second;
    auto id = ingest::TargetTableOf(options_.config, source);
    return target_of[source] = id.ok() ? id->ToString() : source;
  };
  for (const auto& [name, unused] : last) backlog.try_emplace(name);
  metrics::MetricFamily pending_files =
      Gauge("floe_files_pending", "Source units discovered and waiting for a batch.");
  metrics::MetricFamily pending_bytes =
      Gauge("floe_bytes_pending", "Bytes of the source units waiting for a batch.");
  metrics::MetricFamily oldest = Gauge("floe_oldest_pending_file_age_seconds",
                                       "Age of the oldest source unit waiting for a batch (0: none waits).");
  metrics::MetricFamily in_batch = Gauge("floe_files_in_batch", "Source units in a batch being applied.");
  metrics::MetricFamily quarantined =
      Gauge("floe_quarantined_files", "Source units set aside now (quarantined) and not retried yet.");
  metrics::MetricFamily last_commit =
      Gauge("floe_last_commit_timestamp_seconds", "When the table's last batch was committed (Unix time).");
  const int64_t now_ms = NowMs();
  for (const auto& [name, b] : backlog) {
    const metrics::Labels labels = labelled({{"table", target(name)}});
    pending_files.samples.push_back({labels, static_cast<double>(b.pending_files)});
    pending_bytes.samples.push_back({labels, static_cast<double>(b.pending_bytes)});
    oldest.samples.push_back(
        {labels, b.oldest_pending_ms
                     ? std::max(0.0, static_cast<double>(now_ms - *b.oldest_pending_ms) / 1000.0)
                     : 0.0});
    in_batch.samples.push_back({labels, static_cast<double>(b.in_batch_files)});
    quarantined.samples.push_back({labels, static_cast<double>(b.quarantined_files)});
    if (auto it = last.find(name); it != last.end() && it->second.committed_at_ms) {
      last_commit.samples.push_back({labels, static_cast<double>(*it->second.committed_at_ms) / 1000.0});
    }
  }
  for (metrics::MetricFamily* family :
       {&pending_files, &pending_bytes, &oldest, &in_batch, &quarantined, &last_commit}) {
    families.push_back(std::move(*family));
  }
  const ingest::ProcessUsage usage = ingest::CurrentProcessUsage();
  families.push_back({"process_cpu_seconds_total",
                      "User and system CPU time of the floe process.",
                      metrics::MetricType::kCounter,
                      {{constant, usage.cpu_ms / 1000.0}},
                      {}});
  families.push_back({"process_resident_memory_bytes",
                      "Resident memory of the floe process.",
                      metrics::MetricType::kGauge,
                      {{constant, static_cast<double>(usage.rss_bytes)}},
                      {}});
  families.push_back({"process_start_time_seconds",
                      "When the observability server started (Unix time).",
                      metrics::MetricType::kGauge,
                      {{constant, static_cast<double>(start_ms_) / 1000.0}},
                      {}});
  families.push_back({"floe_build_info",
                      "The floe version serving these metrics.",
                      metrics::MetricType::kGauge,
                      {{labelled({{"version", FLOE_VERSION}}), 1}},
                      {}});
  return metrics::WritePrometheusText(families);
}

HttpResponse ObservabilityService::Metrics() {
  auto text = Scrape();
  if (!text.ok()) return ErrorResponse(503, "metrics unavailable: " + text.status().ToString());
  return Text(200, std::move(*text), metrics::kPrometheusContentType);
}

HttpResponse ObservabilityService::Ready(bool detailed) {
  const ingest::PipelineMetrics::Health health = options_.metrics->health();
  std::vector<std::string> problems;
  if (!health.polled) problems.push_back("starting: no poll has ended yet");
  if (health.polled && !health.source_ok) problems.push_back("source unreachable: " + health.source_error);
  if (!health.catalog_ok) problems.push_back("catalog unreachable: " + health.catalog_error);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::optional<std::string> problem = CatalogProblemLocked()) {
      problems.push_back("catalog unreachable: " + *problem);
    }
  }
  for (const auto& [table, condition] : health.conditions) {
    if (condition.first == ingest::kTableStopped)
      problems.push_back("table " + table + " stopped: " + condition.second);
  }
  if (problems.empty()) return Text(200, "ready\n");
  std::string body = "not ready\n";
  if (detailed) {
    for (const std::string& problem : problems) body += problem + "\n";
  }
  return Text(503, body);
}

HttpResponse ObservabilityService::ApiStatus() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (status_json_.empty() || now - status_at_ >= std::chrono::milliseconds(options_.status_cache_ms)) {
    auto ledger = LedgerLocked();
    if (!ledger.ok()) return ErrorResponse(503, "status unavailable: " + ledger.status().ToString());
    StatusOptions status_options;
    auto catalog = CatalogLocked();
    status_options.catalog = catalog.ok() ? *catalog : nullptr;
    status_options.stream_lag = options_.metrics->stream_lag();
    status_options.cached_small_files = [this](const std::string& table,
                                               int64_t snapshot) -> std::optional<int64_t> {
      auto it = small_files_.find(table);
      if (it == small_files_.end() || it->second.first != snapshot) return std::nullopt;
      return it->second.second;
    };
    auto status = ComputePipelineStatus(options_.config, **ledger, status_options);
    if (!status.ok()) return ErrorResponse(503, "status unavailable: " + status.status().ToString());
    if (!catalog.ok()) status->errors.push_back("catalog: " + catalog.status().ToString());
    for (const TableStatus& table : status->tables) {
      if (table.maintenance.current_snapshot_id && table.maintenance.small_files) {
        small_files_[table.target] = {*table.maintenance.current_snapshot_id, *table.maintenance.small_files};
      }
    }
    status_json_ = StatusJsonText(*status);
    status_at_ = now;
  }
  return Text(200, status_json_, "application/json");
}

}  // namespace floe::observability
