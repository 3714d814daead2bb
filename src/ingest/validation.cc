#include "ingest/validation.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "catalog/open/open_catalog.h"
#include "columnar/json_format.h"
#include "ingest/aggregate/aggregate_table.h"
#include "ingest/batch_planner.h"
#include "ingest/change_feed_table.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_ledger.h"
#include "ingest/progress_reporter.h"
#include "ingest/source.h"
#include "ingest/state/ledger.h"
#include "io/file_io.h"

namespace floe::ingest {

namespace {

// The catalog of a pipeline that has not created its catalog yet: it holds
// no table, and validation never creates one.
class NoTablesCatalog final : public catalog::Catalog {
 public:
  const std::string& warehouse() const override { return warehouse_; }
  FileIO& io() override { return *io_; }
  Status CreateNamespace(const catalog::Namespace&, const catalog::Properties&) override {
    return Status::InvalidArgument("validation creates nothing");
  }
  Result<std::vector<catalog::Namespace>> ListNamespaces(const catalog::Namespace&) override {
    return std::vector<catalog::Namespace>{};
  }
  Result<std::vector<catalog::TableIdentifier>> ListTables(const catalog::Namespace&) override {
    return std::vector<catalog::TableIdentifier>{};
  }
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(
      const catalog::TableIdentifier& table) override {
    return Status::NotFound("table " + table.ToString() + " does not exist (the catalog does not exist yet)");
  }
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const catalog::TableIdentifier&,
                                                                const catalog::TableCreation&) override {
    return Status::InvalidArgument("validation creates nothing");
  }

 private:
  std::string warehouse_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The units a run would apply, per source table, in the ledger's order.
Result<std::map<std::string, std::vector<SourceUnit>>> PendingUnits(const DiscoveryResult& discovery,
                                                                    Ledger* ledger) {
  std::map<std::string, FileState> known;
  std::vector<SourceUnit> pending;
  if (ledger != nullptr) {
    FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> files, ledger->Files(LedgerFilter{}));
    for (LedgerFile& file : files) {
      known[file.file.uri] = file.state;
      if (file.state == FileState::kDiscovered) pending.push_back(std::move(file.file));
    }
  }
  for (const SourceUnit& unit : discovery.files) {
    if (known.count(unit.uri) == 0) pending.push_back(unit);
  }
  std::stable_sort(pending.begin(), pending.end(), [](const SourceUnit& a, const SourceUnit& b) {
    return a.order_key != b.order_key ? a.order_key < b.order_key : a.uri < b.uri;
  });
  std::map<std::string, std::vector<SourceUnit>> by_table;
  for (SourceUnit& unit : pending) by_table[unit.table].push_back(std::move(unit));
  return by_table;
}

void ValidateTable(const PipelineConfig& config, const ValidateOptions& options, catalog::Catalog& catalog,
                   const Source& source, const std::vector<SourceUnit>& units, TableValidation& out) {
  out.units = static_cast<int64_t>(units.size());
  auto target = TargetTableOf(config, out.source_table);
  if (!target.ok()) {
    out.error = target.status().ToString();
    return;
  }
  out.target = target->ToString();
  TableIngestorOptions ingestor_options;
  ingestor_options.pipeline_name = config.name;
  ingestor_options.table = *target;
  auto settings = SourceTableSettings(config, *source.discovery, out.source_table);
  if (!settings.ok()) {
    out.error = settings.status().ToString();
    return;
  }
  ingestor_options.settings = std::move(settings).value();
  ingestor_options.state_dir = config.state_dir;  // checked for merge mode, never used by a dry run
  ingestor_options.dry_run = true;
  ingestor_options.dry_run_rows = options.rows;
  ingestor_options.on_quarantine = [&out](const QuarantinedFile& file) { out.set_aside.push_back(file); };
  auto ingestor = TableIngestor::Open(catalog, source.opener, MakeLocalFileIO(), std::move(ingestor_options));
  if (!ingestor.ok()) {
    out.error = ingestor.status().ToString();
    return;
  }
  int64_t max_bytes = config.trigger.max_bytes_per_batch;
  if (source.discovery->finds_streams()) {
    max_bytes = std::min(max_bytes, std::max<int64_t>(config.performance.memory_budget_bytes / 8, 1));
  }
  std::vector<std::vector<SourceUnit>> batches =
      PlanBatches(units, {config.trigger.max_files_per_batch, max_bytes});
  std::reverse(batches.begin(), batches.end());  // the next at the back
  int64_t rows_kept = 0;
  while (!batches.empty()) {
    std::vector<SourceUnit> batch = std::move(batches.back());
    batches.pop_back();
    auto applied = (*ingestor)->ApplyBatch(batch, 0);
    if (!applied.ok()) {
      out.error = applied.status().ToString();
      return;
    }
    BatchResult& result = *applied;
    if (result.budget_cut_at) {
      std::set<std::string> set_aside;
      for (const QuarantinedFile& file : result.quarantined) set_aside.insert(file.uri);
      auto parts = SplitAtBudgetCut(batch, *result.budget_cut_at, set_aside);
      for (auto part = parts.rbegin(); part != parts.rend(); ++part) batches.push_back(std::move(*part));
      continue;
    }
    out.counts.Add(result.counts);
    for (RowProblem& problem : result.problems) out.problems.push_back(std::move(problem));
    for (RecordBatch& rows : result.sample) {
      if (rows_kept >= options.rows) break;
      rows_kept += rows.num_rows;
      out.rows.push_back(std::move(rows));
    }
  }
}

// `aggregate` against its tables as they are in `catalog`.
AggregateValidation ValidateAggregate(const PipelineConfig& config, catalog::Catalog& catalog,
                                      const AggregateConfig& aggregate) {
  AggregateValidation out;
  out.name = aggregate.name;
  auto target = TargetTableOf(config, aggregate.table);
  if (!target.ok()) {
    out.error = target.status().ToString();
    return out;
  }
  out.source = target->ToString();
  out.name = AggregateTableOf(*target, aggregate).ToString();
  auto source = LoadTableIfExists(catalog, *target);
  if (!source.ok()) {
    out.error = source.status().ToString();
    return out;
  }
  if (!*source || !(*source)->metadata().current_snapshot_id) {
    out.state = "its table does not exist yet or has no rows: columns checked at its first commit";
    return out;
  }
  AggregateTable table(catalog, *target, aggregate, AggregateOptions{});
  auto inspected = table.Inspect((*source)->metadata());
  if (!inspected.ok()) {
    out.error = inspected.status().ToString();
    return out;
  }
  const AggregateInspection& state = *inspected;
  if (!state.exists) {
    out.state = "columns match; the table does not exist yet: built from the current rows of " + out.source;
  } else if (state.rebuild) {
    out.state = "matches; rebuilt from the current rows of " + out.source +
                " (no source snapshot recorded that is still in its history)";
  } else if (state.snapshots_behind == 0) {
    out.state = "matches, up to date";
  } else {
    out.state = "matches, " + FormatThousands(state.snapshots_behind) +
                (state.snapshots_behind == 1 ? " source snapshot" : " source snapshots") +
                " behind (caught up by the next run)";
  }
  if (aggregate.watermark_ms && state.exists) {
    out.state += "; watermark " +
                 (state.watermark_ms ? FormatTimestamp(*state.watermark_ms, TimeUnit::kMilli, true)
                                     : std::string("not set yet")) +
                 ", " + FormatThousands(state.late_changes) + " late changes so far";
  }
  return out;
}

}  // namespace

bool TableValidation::would_fail() const {
  return !error.empty() || !set_aside.empty() ||
         std::any_of(problems.begin(), problems.end(), [](const RowProblem& p) { return p.fails; });
}

bool ValidationReport::would_fail() const {
  return std::any_of(tables.begin(), tables.end(), [](const TableValidation& t) { return t.would_fail(); }) ||
         std::any_of(aggregates.begin(), aggregates.end(),
                     [](const AggregateValidation& a) { return a.would_fail(); });
}

std::string ValidationReport::Format(const ValidateOptions& options) const {
  std::string out;
  for (const std::string& note : notes) out += "note: " + note + "\n";
  for (const TableValidation& table : tables) {
    out += "table " + table.source_table + (table.target.empty() ? "" : " -> " + table.target) + ": " +
           FormatThousands(table.units) + (table.units == 1 ? " pending unit" : " pending units") + "\n";
    if (options.rows > 0) {
      for (const RecordBatch& rows : table.rows) {
        std::string lines;
        for (int64_t row = 0; row < rows.num_rows; ++row) {
          AppendJsonRow(rows, row, &lines);
          lines += '\n';
        }
        out += lines;
      }
    } else {
      // Every problem, grouped by file in the order met.
      std::vector<std::string> files;
      std::map<std::string, std::vector<std::string>> by_file;
      auto add = [&](const std::string& uri, std::string line) {
        if (by_file.count(uri) == 0) files.push_back(uri);
        by_file[uri].push_back(std::move(line));
      };
      for (const QuarantinedFile& file : table.set_aside) add(file.uri, "quarantined: " + file.reason);
      for (const RowProblem& problem : table.problems) {
        add(problem.uri,
            (problem.row >= 0 ? "row " + std::to_string(problem.row) + ": " : "") + problem.what);
      }
      for (const std::string& uri : files) {
        out += "  " + uri + "\n";
        for (const std::string& line : by_file[uri]) out += "    " + line + "\n";
      }
    }
    const BatchCounts& c = table.counts;
    out += "  " + FormatThousands(c.rows_read) + " rows read, " + FormatThousands(c.inserted) +
           " would be written, " + FormatThousands(c.deleted + c.ignored) + " deletes, " +
           FormatThousands(c.bad_rows) + " bad rows, " + FormatThousands(c.filtered) + " filtered, " +
           FormatThousands(c.dropped) + " dropped, " + FormatThousands(c.quarantined_rows) +
           " quarantined rows, " + FormatThousands(static_cast<int64_t>(table.set_aside.size())) +
           " units set aside\n";
    for (const ExpectationCount& e : c.expectations) {
      out += "  expectation " + e.name + " (" + ExpectationActionName(e.action) +
             "): " + FormatThousands(e.checked) + " checked, " + FormatThousands(e.passed()) + " passed, " +
             FormatThousands(e.failed) + " failed\n";
    }
    if (!table.error.empty()) out += "  error: " + table.error + "\n";
    out += std::string("  ") + (table.would_fail() ? "would FAIL" : "ok") + "\n";
  }
  if (tables.empty()) out += "nothing pending\n";
  for (const AggregateValidation& aggregate : aggregates) {
    out += "aggregate " + aggregate.name + (aggregate.source.empty() ? "" : " over " + aggregate.source) +
           (aggregate.state.empty() ? "" : ": " + aggregate.state) + "\n";
    if (!aggregate.error.empty()) out += "  error: " + aggregate.error + "\n";
    out += std::string("  ") + (aggregate.would_fail() ? "would FAIL" : "ok") + "\n";
  }
  return out;
}

Result<ValidationReport> ValidatePipeline(const PipelineConfig& config, const ValidateOptions& options) {
  ValidationReport report;
  std::unique_ptr<Ledger> ledger;
  auto opened = Ledger::OpenReadOnly(PipelineLedgerOptions(config));
  if (opened.ok()) {
    ledger = std::move(opened).value();
  } else if (opened.status().kind() == ErrorKind::kNotFound) {
    report.notes.push_back("no ledger at " + PipelineLedgerName(config) +
                           " yet: every discovered unit is pending");
  } else {
    return opened.status().WithContext("ledger " + PipelineLedgerName(config));
  }
  catalog::CatalogOptions catalog_options = config.catalog;
  catalog_options.create_if_missing = false;
  std::unique_ptr<catalog::Catalog> catalog;
  auto opened_catalog = catalog::OpenCatalog(catalog_options);
  if (opened_catalog.ok()) {
    catalog = std::move(opened_catalog).value();
  } else if (opened_catalog.status().kind() == ErrorKind::kNotFound) {
    report.notes.push_back("the catalog does not exist yet: every table is new");
    catalog = std::make_unique<NoTablesCatalog>();
  } else {
    return opened_catalog.status();
  }
  // A listing sees every pending file; notifications are not read, so a dry
  // run never takes, hides or holds a queue's messages (the run's to consume).
  SourceConfig listed_source = config.source;
  listed_source.notifications = NotificationConfig{};
  FLOE_ASSIGN_OR_RETURN(Source source, OpenSource(listed_source, config.s3,
                                                  config.performance.memory_budget_bytes, config.trigger));
  std::map<std::string, TableWatermark> watermarks;
  if (ledger) {
    FLOE_ASSIGN_OR_RETURN(watermarks, ledger->Watermarks());
    if (source.discovery->finds_streams()) {
      FLOE_ASSIGN_OR_RETURN(auto ends, ledger->StreamEnds());
      source.discovery->SetStreamEnds(ends);
    }
  }
  FLOE_ASSIGN_OR_RETURN(DiscoveryResult discovery, source.discovery->Discover(watermarks, NowMs()));
  for (const std::string& warning : discovery.warnings) report.notes.push_back(warning);
  FLOE_ASSIGN_OR_RETURN(auto pending, PendingUnits(discovery, ledger.get()));
  std::set<std::string> names;
  for (const auto& [name, units] : pending) names.insert(name);
  for (const auto& [name, message] : discovery.table_errors) names.insert(name);
  for (const std::string& name : names) {
    if (options.table && *options.table != name) continue;
    TableValidation table;
    table.source_table = name;
    if (auto error = discovery.table_errors.find(name); error != discovery.table_errors.end()) {
      table.error = error->second;
    } else {
      ValidateTable(config, options, *catalog, source, pending[name], table);
    }
    report.tables.push_back(std::move(table));
  }
  for (const AggregateConfig& aggregate : config.aggregates) {
    if (options.table && *options.table != aggregate.table) continue;
    report.aggregates.push_back(ValidateAggregate(config, *catalog, aggregate));
  }
  if (options.table && report.tables.empty()) {
    report.notes.push_back("source table " + *options.table + " has no pending units");
  }
  return report;
}

}  // namespace floe::ingest
