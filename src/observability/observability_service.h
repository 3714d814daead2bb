// ObservabilityService: what `floe run --http ADDR` serves beside a running
// pipeline, on floe's HTTP server (http_server/http_server.h):
//   GET /metrics      Prometheus text 0.0.4: the pipeline's counters,
//                     gauges and histograms (PipelineMetrics) plus, read
//                     from the ledger when scraped, the backlog and last
//                     commit per table, and process figures
//   GET /healthz      200 while the process serves
//   GET /readyz       200 when the last poll reached the source, the
//                     catalog answers and no table is stopped; else 503
//                     saying why
//   GET /api/status   the `floe status --json` document
//   GET /             the dashboard (dashboard_assets.h)
//
// Contract: requests are admitted by http_server::HeadAdmission (Host,
// Origin, bearer token; only GET and HEAD). With a token, every route
// needs it except the probes and the dashboard's static files: /healthz and
// /readyz answer without it but say why they are not ready only to a
// request that carries it, and the page itself holds no data. Reads go to
// the service's own read-only ledger and its own catalog connection (the
// pipeline's are not thread-safe), one request at a time; the status
// document is cached for `status_cache_ms`, the readiness check of the
// catalog for 5 s, a table's small-file count per snapshot. So a scrape
// costs two bounded ledger reads and no catalog call. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "catalog/table/catalog.h"
#include "http_server/head_admission.h"
#include "http_server/http_service.h"
#include "ingest/config/config.h"
#include "ingest/pipeline_metrics.h"
#include "ingest/state/ledger.h"

namespace floe::observability {

struct ObservabilityOptions {
  ingest::PipelineConfig config;
  std::shared_ptr<ingest::PipelineMetrics> metrics;  // required
  http_server::HeadAdmissionOptions admission;
  int64_t status_cache_ms = 2000;
};

class ObservabilityService final : public http_server::HttpService {
 public:
  static Result<std::unique_ptr<ObservabilityService>> Create(ObservabilityOptions options);

  std::optional<http_server::HttpResponse> Admit(const http_server::HttpRequest& head) override;
  http_server::HttpResponse HandleAdmitted(const http_server::HttpRequest& request) override;
  http_server::HttpResponse ErrorResponse(int status, const std::string& message) const override;
  bool requires_auth() const override { return admission_.requires_token(); }

  // The /metrics body (for tests and benchmarks).
  Result<std::string> Scrape();

 private:
  explicit ObservabilityService(ObservabilityOptions options);

  http_server::HttpResponse Metrics();
  http_server::HttpResponse Ready(bool detailed);
  http_server::HttpResponse ApiStatus();
  Result<ingest::Ledger*> LedgerLocked();             // mutex_ held
  Result<catalog::Catalog*> CatalogLocked();          // mutex_ held
  std::optional<std::string> CatalogProblemLocked();  // mutex_ held; cached

  ObservabilityOptions options_;
  http_server::HeadAdmission admission_;
  const int64_t start_ms_;

  std::mutex mutex_;  // guards everything below
  std::unique_ptr<ingest::Ledger> ledger_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::string status_json_;
  std::chrono::steady_clock::time_point status_at_;
  std::optional<std::string> catalog_problem_;
  std::optional<std::chrono::steady_clock::time_point> catalog_checked_at_;
  // Per table: the snapshot whose small files were counted, and the count.
  std::map<std::string, std::pair<int64_t, int64_t>> small_files_;
};

}  // namespace floe::observability
