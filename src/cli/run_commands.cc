// `floe run CONFIG`: the ingestion pipeline, once or continuously.
// `floe validate CONFIG`: a dry run over the pending units (ingest/validation.h).
// `floe files CONFIG`: the pipeline's ledger of source files; --retry puts
// quarantined and skipped files (all, of --table, or those a path or glob
// names) back in line; --skip sets a file aside on purpose with a reason;
// --reload-table forgets a table's records so the next run loads its whole
// current export (the way out of a CDA reset when [source] reload_on_reset
// is off).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/text_table.h"
#include "ingest/config/config.h"
#include "ingest/discovery/glob.h"
#include "ingest/discovery/landing_path.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_ledger.h"
#include "ingest/progress_reporter.h"
#include "ingest/state/ledger.h"
#include "ingest/stream_lag.h"
#include "ingest/validation.h"
#include "observability/observability_endpoint.h"

namespace floe::cli {

namespace {

using ingest::FileState;
using ingest::LedgerFile;

int Fail(const Status& status) {
  std::cerr << "floe: " << status.ToString() << "\n";
  return 1;
}

Result<ingest::PipelineConfig> LoadConfig(const std::string& path, const std::string& state_dir) {
  FLOE_ASSIGN_OR_RETURN(ingest::PipelineConfig config, ingest::LoadPipelineConfig(path));
  if (!state_dir.empty()) config.state_dir = std::filesystem::absolute(state_dir).string();
  return config;
}

// ---------------------------------------------------------------------------
// floe run

struct RunOptions {
  std::string config_path;
  std::string state_dir;
  bool once = false;
  bool quiet = false;
  bool verbose = false;
  std::string http;  // overrides [observability] http
};

// Set by SIGINT/SIGTERM; the pipeline finishes its batch and returns.
std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");
// With JSON log lines the handler writes nothing (it cannot format a time
// safely); the run logs the stop as a JSON line when it returns.
std::atomic<bool> g_quiet_stop{false};

extern "C" void RequestStop(int) {
  g_stop_requested.store(true);
  if (g_quiet_stop.load()) return;
  static const char kMessage[] =
      "\nfloe: stopping after the batch in progress (a second signal stops at once)\n";
  // write(2) is async-signal-safe; its result cannot be acted on here.
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
}

// Installs the stop handlers for the lifetime of the object. SA_RESETHAND
// restores the default action, so a second signal terminates at once.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = RequestStop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

int RunPipeline(const RunOptions& options) {
  auto config = LoadConfig(options.config_path, options.state_dir);
  if (!config.ok()) return Fail(config.status());
  // --quiet keeps only the final summary and errors on stdout/stderr.
  static std::ostream discard(nullptr);
  ingest::PipelineOptions pipeline_options;
  pipeline_options.progress_bar = !options.quiet && ::isatty(STDERR_FILENO) == 1;
  pipeline_options.log = options.quiet ? &discard : &std::cerr;
  pipeline_options.verbose = options.verbose && !options.quiet;
  pipeline_options.timestamps = pipeline_options.verbose;
  pipeline_options.log_format = config->observability.log_format;
  // The run's own lines on stderr ("serving ...", failures) in the pipeline's
  // log format, so a JSON log stays one JSON object per line.
  const bool json_log = config->observability.log_format == ingest::LogFormat::kJson;
  ingest::ProgressReporter run_log(std::cerr, /*terminal=*/false);
  if (json_log) run_log.SetJson(config->name);
  auto fail = [&](const Status& status) {
    if (!json_log) return Fail(status);
    run_log.Event("message", ingest::LogLevel::kError, "floe: " + status.ToString());
    return 1;
  };
  const std::string listen = options.http.empty() ? config->observability.http : options.http;
  observability::ObservabilityOptions serving;
  if (!listen.empty()) {
    pipeline_options.metrics = std::make_shared<ingest::PipelineMetrics>(config->name);
    serving.config = *config;
    serving.metrics = pipeline_options.metrics;
    serving.admission.token = config->observability.token;
    if (serving.admission.token.empty()) {
      if (const char* token = std::getenv("FLOE_HTTP_TOKEN"); token && *token)
        serving.admission.token = token;
    }
    serving.admission.allowed_hosts = config->observability.allowed_hosts;
    serving.admission.cors_origins = config->observability.cors_origins;
  }
  auto pipeline = ingest::Pipeline::Open(std::move(*config), pipeline_options);
  if (!pipeline.ok()) return fail(pipeline.status());
  // Served once the ledger exists (the pipeline created it), until the run ends.
  std::unique_ptr<observability::ObservabilityEndpoint> endpoint;
  if (!listen.empty()) {
    auto started = observability::ObservabilityEndpoint::Start(listen, std::move(serving));
    if (!started.ok()) return fail(started.status());
    endpoint = std::move(*started);
    run_log.Message("floe: serving /metrics, /healthz, /readyz, /api/status and the dashboard at " +
                    endpoint->url() + "/");
  }

  // The summary table is the command's result: stdout, in both log formats.
  if (options.once) {
    auto summary = (*pipeline)->RunOnce();
    if (!summary.ok()) return fail(summary.status());
    std::cout << summary->Format();
    if (!summary->ok()) {
      run_log.Event("message", ingest::LogLevel::kError,
                    "floe: the run did not complete cleanly (see the status column)");
      return 1;
    }
    return 0;
  }
  g_stop_requested.store(false);
  g_quiet_stop.store(json_log);
  StopSignals signals;
  auto total = (*pipeline)->Run(g_stop_requested);
  if (json_log && g_stop_requested.load())
    run_log.Message("floe: stopped by a signal after the batch in progress");
  if (!total.ok()) return fail(total.status());
  std::cout << total->Format();
  return 0;
}

// ---------------------------------------------------------------------------
// floe validate

struct ValidateCommandOptions {
  std::string config_path;
  std::string state_dir;
  std::string table;
  int64_t rows = 0;
  bool errors = false;
};

int Validate(const ValidateCommandOptions& options) {
  auto config = LoadConfig(options.config_path, options.state_dir);
  if (!config.ok()) return Fail(config.status());
  if (options.rows > 0 && options.errors)
    return Fail(Status::InvalidArgument("give --rows N or --errors, not both"));
  ingest::ValidateOptions validate;
  if (!options.table.empty()) validate.table = options.table;
  validate.rows = options.rows;
  auto report = ingest::ValidatePipeline(*config, validate);
  if (!report.ok()) return Fail(report.status());
  std::cout << report->Format(validate);
  return report->would_fail() ? 1 : 0;
}

// ---------------------------------------------------------------------------
// floe files

struct FilesOptions {
  std::string config_path;
  std::string state_dir;
  std::string table;
  std::string state;
  std::string format = "text";
  bool retry = false;
  std::string retry_target;  // with --retry: a path or glob; empty: every quarantined/skipped file
  std::string skip;
  std::string reason;
  std::string reload_table;
  bool lag = false;
  bool expectations = false;
};

// `floe files CONFIG --expectations`: per committed batch and expectation,
// the change rows checked, passed and failed.
Status PrintExpectationCounts(ingest::Ledger& ledger, const std::optional<std::string>& table,
                              const std::string& format) {
  FLOE_ASSIGN_OR_RETURN(std::vector<ingest::LedgerExpectationCount> counts, ledger.ExpectationCounts(table));
  if (format == "jsonl") {
    for (const auto& c : counts) {
      nlohmann::ordered_json line = {{"batch", c.batch_id}, {"table", c.table},     {"expectation", c.name},
                                     {"action", c.action},  {"checked", c.checked}, {"passed", c.passed},
                                     {"failed", c.failed}};
      std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows = {
      {"batch", "table", "expectation", "action", "checked", "passed", "failed"}};
  for (const auto& c : counts) {
    rows.push_back({std::to_string(c.batch_id), c.table, c.name, c.action, std::to_string(c.checked),
                    std::to_string(c.passed), std::to_string(c.failed)});
  }
  std::cout << FormatTextTable(rows, [](size_t column) { return column >= 4; });
  return Status::OK();
}

// `floe files CONFIG --lag` of a stream source (ingest::QueryStreamLagReport):
// one row per partition or shard, as a table or JSON lines. `ledger` is null
// before the pipeline's first run.
Status PrintStreamLag(const ingest::PipelineConfig& config, ingest::Ledger* ledger,
                      const std::string& format) {
  FLOE_ASSIGN_OR_RETURN(ingest::StreamLagReport lag, ingest::QueryStreamLagReport(config, ledger));
  if (format == "jsonl") {
    for (const auto& row : lag.rows) std::cout << row.dump() << "\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;
  for (const auto& row : lag.rows) {
    if (rows.empty()) {
      rows.emplace_back();
      for (auto it = row.begin(); it != row.end(); ++it) {
        rows.back().push_back(it.key());
        numeric.push_back(it.value().is_number());
      }
    }
    rows.emplace_back();
    for (auto it = row.begin(); it != row.end(); ++it) {
      rows.back().push_back(it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    }
  }
  if (!rows.empty()) {
    std::cout << FormatTextTable(rows,
                                 [&](size_t column) { return column < numeric.size() && numeric[column]; });
  }
  std::cout << lag.summary << "\n";
  return Status::OK();
}

Result<FileState> ParseFileState(const std::string& text) {
  for (FileState state : {FileState::kDiscovered, FileState::kInBatch, FileState::kCommitted,
                          FileState::kQuarantined, FileState::kSkipped}) {
    if (text == ingest::FileStateName(state)) return state;
  }
  return Status::InvalidArgument("--state: unknown state '" + text +
                                 "' (expected discovered, in_batch, committed, quarantined or skipped)");
}

// Snapshot id 0 marks a batch that committed nothing (pipeline.h).
std::optional<int64_t> VisibleSnapshot(const LedgerFile& file) {
  if (!file.snapshot_id || *file.snapshot_id == ingest::kNoSnapshot) return std::nullopt;
  return file.snapshot_id;
}

void PrintText(const std::vector<LedgerFile>& files) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"table", "state", "batch", "snapshot", "size", "uri", "reason"});
  for (const LedgerFile& f : files) {
    const auto snapshot = VisibleSnapshot(f);
    rows.push_back(
        {f.file.table, ingest::FileStateName(f.state), f.batch_id ? std::to_string(*f.batch_id) : "-",
         snapshot ? std::to_string(*snapshot) : "-", std::to_string(f.file.size), f.file.uri, f.reason});
  }
  std::cout << FormatTextTable(rows);
}

void PrintJsonLines(const std::vector<LedgerFile>& files) {
  for (const LedgerFile& f : files) {
    nlohmann::json line;
    line["table"] = f.file.table;
    line["state"] = ingest::FileStateName(f.state);
    line["batch"] = f.batch_id ? nlohmann::json(*f.batch_id) : nlohmann::json(nullptr);
    const auto snapshot = VisibleSnapshot(f);
    line["snapshot"] = snapshot ? nlohmann::json(*snapshot) : nlohmann::json(nullptr);
    line["size"] = f.file.size;
    line["uri"] = f.file.uri;
    line["reason"] = f.reason;
    line["order_key"] = f.file.order_key;
    line["discovered_at_ms"] = f.discovered_at_ms;
    line["updated_at_ms"] = f.updated_at_ms;
    // Invalid UTF-8 in a uri or reason is replaced, never a thrown exception.
    std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
}

// Forgets every ledger record of one source table (files, batches, the
// watermark), as `[source] reload_on_reset = true` does on a detected reset.
// Refused while a batch of the table is open: only a run can tell whether it
// committed, and forgetting it could load its files twice.
Status ReloadTable(ingest::Ledger& ledger, const ingest::PipelineConfig& config, const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(std::vector<ingest::LedgerBatch> open, ledger.OpenBatches());
  for (const ingest::LedgerBatch& batch : open) {
    if (batch.table != table) continue;
    return Status::InvalidArgument("batch " + std::to_string(batch.batch_id) + " of table " + table +
                                   " is open (a run stopped mid-batch); run `floe run " + config.config_path +
                                   " --once` first: it resolves open batches");
  }
  FLOE_ASSIGN_OR_RETURN(std::optional<ingest::TableWatermark> watermark, ledger.Watermark(table));
  ingest::LedgerFilter filter;
  filter.table = table;
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> files, ledger.Files(filter));
  if (!watermark && files.empty()) {
    return Status::NotFound("pipeline " + config.name + " has no records of source table '" + table +
                            "' (names are the source's, as `floe files` lists them)");
  }
  FLOE_RETURN_IF_ERROR(ledger.ResetTable(table));
  const ingest::TableSettings settings = config.ForTable(table);
  std::cout << "forgot " << files.size() << (files.size() == 1 ? " file" : " files") << " of source table "
            << table << "; the next `floe run` loads its whole current export "
            << (settings.merge.mode == ingest::WriteMode::kMerge
                    ? "and merges it on top of the rows already in the table (the newest change per key wins)"
                    : "and, in mode append, appends every row AGAIN")
            << "\n";
  return Status::OK();
}

bool HasGlobCharacters(const std::string& text) {
  return text.find_first_of("*?[") != std::string::npos;
}

// The ledger files `target` names: a uri or path (relative paths resolve
// against the working directory), or a glob matched against the uri and,
// for a relative glob, the uri's path below the source uri.
std::vector<const LedgerFile*> FilesNamed(const std::vector<LedgerFile>& files, const std::string& target,
                                          const ingest::PipelineConfig& config) {
  std::vector<const LedgerFile*> named;
  const std::string root = ingest::ListingRoot(config.source.uri);
  const bool relative = !target.empty() && target[0] != '/' && target.find("://") == std::string::npos;
  std::string as_path = target;
  if (relative && !HasGlobCharacters(target)) {
    std::error_code ec;
    as_path = std::filesystem::absolute(target, ec).lexically_normal().string();
  }
  for (const LedgerFile& file : files) {
    const std::string& uri = file.file.uri;
    bool match = uri == target || uri == as_path;
    if (!match && HasGlobCharacters(target)) {
      match = ingest::GlobMatch(target, uri, ingest::GlobMode::kPath);
      if (!match && relative) {
        auto below = ingest::RelativeTo(root, uri);
        match = below && ingest::GlobMatch(target, *below, ingest::GlobMode::kPath);
      }
    }
    if (!match && relative && !HasGlobCharacters(target)) {
      auto below = ingest::RelativeTo(root, uri);
      match = below && *below == target;
    }
    if (match) named.push_back(&file);
  }
  return named;
}

// --retry FILE|GLOB: the named quarantined or skipped files back to discovered.
Status RetryNamed(ingest::Ledger& ledger, const ingest::PipelineConfig& config, const std::string& target) {
  ingest::LedgerFilter filter;
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> files, ledger.Files(filter));
  std::vector<std::string> uris;
  std::vector<std::string> not_set_aside;
  for (const LedgerFile* file : FilesNamed(files, target, config)) {
    if (file->state == FileState::kQuarantined || file->state == FileState::kSkipped) {
      uris.push_back(file->file.uri);
    } else {
      not_set_aside.push_back(file->file.uri + " (" + ingest::FileStateName(file->state) + ")");
    }
  }
  if (uris.empty()) {
    std::string why = not_set_aside.empty()
                          ? "no file in the ledger of pipeline " + config.name + " matches"
                          : "no quarantined or skipped file matches; it names " + not_set_aside.front() +
                                (not_set_aside.size() > 1 ? " and others" : "");
    return Status::NotFound("--retry " + target + ": " + why);
  }
  FLOE_RETURN_IF_ERROR(ledger.RetryFiles(uris));
  std::cout << uris.size() << (uris.size() == 1 ? " file" : " files") << " back to discovered";
  if (uris.size() == 1) std::cout << " (" << uris.front() << ")";
  std::cout << "; the next `floe run` ingests " << (uris.size() == 1 ? "it" : "them") << "\n";
  return Status::OK();
}

// --skip FILE: sets one discovered or quarantined file aside on purpose.
Status SkipNamed(ingest::Ledger& ledger, const ingest::PipelineConfig& config, const std::string& target,
                 const std::string& reason) {
  if (HasGlobCharacters(target)) {
    return Status::InvalidArgument(
        "--skip takes one file (its uri or path as `floe files` lists it), not a glob");
  }
  ingest::LedgerFilter filter;
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> files, ledger.Files(filter));
  std::vector<const LedgerFile*> named = FilesNamed(files, target, config);
  if (named.empty()) {
    return Status::NotFound("--skip " + target + ": not in the ledger of pipeline " + config.name +
                            " (a run must have discovered it; `floe files " + config.config_path +
                            "` lists the files)");
  }
  const LedgerFile& file = *named.front();
  if (file.state == FileState::kInBatch) {
    return Status::InvalidArgument("--skip " + file.file.uri + ": it is in open batch " +
                                   std::to_string(file.batch_id.value_or(0)) + "; run `floe run " +
                                   config.config_path + " --once` first (it resolves open batches)");
  }
  if (file.state == FileState::kCommitted) {
    return Status::InvalidArgument("--skip " + file.file.uri +
                                   ": it is committed already; its rows are in the table");
  }
  const std::string why = reason.empty() ? "skipped by the operator (floe files --skip)" : reason;
  FLOE_RETURN_IF_ERROR(ledger.Skip(file.file.uri, why));
  std::cout << "skipped " << file.file.uri << ": " << why << "; `floe files " << config.config_path
            << " --retry " << file.file.uri << "` takes it again\n";
  return Status::OK();
}

Status ListOrRetry(const FilesOptions& options) {
  FLOE_ASSIGN_OR_RETURN(ingest::PipelineConfig config, LoadConfig(options.config_path, options.state_dir));
  if (options.format != "text" && options.format != "jsonl") {
    return Status::InvalidArgument("--format: expected text or jsonl, got '" + options.format + "'");
  }
  std::optional<FileState> state;
  if (!options.state.empty()) {
    FLOE_ASSIGN_OR_RETURN(state, ParseFileState(options.state));
  }
  const bool has_state = !config.state_uri.empty() || std::filesystem::exists(config.state_dir);
  if (options.lag && !has_state) {
    // Before the first run: nothing consumed, everything there is behind.
    if (state || !options.table.empty())
      return Status::InvalidArgument("--lag takes no --state or --table (it lists every partition)");
    return PrintStreamLag(config, nullptr, options.format);
  }
  if (!has_state) {
    return Status::NotFound("pipeline " + config.name + " has no state at " + config.state_dir +
                            " (has `floe run` run with this config?)");
  }
  const int actions =
      (options.retry ? 1 : 0) + (!options.reload_table.empty() ? 1 : 0) + (!options.skip.empty() ? 1 : 0);
  if (actions > 1)
    return Status::InvalidArgument("--retry, --skip and --reload-table are separate actions; give one");
  if (!options.reason.empty() && options.skip.empty()) {
    return Status::InvalidArgument("--reason goes with --skip FILE");
  }
  // Listing reads a snapshot without the lock, so it works beside a running `floe run`.
  const bool writes = actions > 0;
  const ingest::LedgerOptions ledger_options = ingest::PipelineLedgerOptions(config);
  FLOE_ASSIGN_OR_RETURN(auto ledger, writes ? ingest::Ledger::Open(ledger_options)
                                            : ingest::Ledger::OpenReadOnly(ledger_options));
  if (!options.reload_table.empty()) {
    if (state || !options.table.empty()) {
      return Status::InvalidArgument("--reload-table takes no --state or --table (it names its table)");
    }
    return ReloadTable(*ledger, config, options.reload_table);
  }
  if (!options.skip.empty()) {
    if (state || !options.table.empty()) return Status::InvalidArgument("--skip takes no --state or --table");
    return SkipNamed(*ledger, config, options.skip, options.reason);
  }
  std::optional<std::string> table;
  if (!options.table.empty()) table = options.table;
  if (options.retry) {
    if (state)
      return Status::InvalidArgument("--retry takes no --state (it retries quarantined and skipped files)");
    if (!options.retry_target.empty()) {
      if (table) return Status::InvalidArgument("--retry FILE takes no --table (the file names its table)");
      return RetryNamed(*ledger, config, options.retry_target);
    }
    FLOE_ASSIGN_OR_RETURN(int64_t retried, ledger->Retry(table));
    std::cout << retried << (retried == 1 ? " file" : " files") << " back to discovered"
              << (table ? " in table " + *table : "") << "; the next `floe run` ingests them\n";
    return Status::OK();
  }
  if (options.expectations) {
    if (state || options.lag) return Status::InvalidArgument("--expectations takes no --state or --lag");
    return PrintExpectationCounts(*ledger, table, options.format);
  }
  if (options.lag) {
    if (state || table)
      return Status::InvalidArgument("--lag takes no --state or --table (it lists every partition)");
    return PrintStreamLag(config, ledger.get(), options.format);
  }
  ingest::LedgerFilter filter;
  filter.table = table;
  filter.state = state;
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> files, ledger->Files(filter));
  if (options.format == "jsonl") {
    PrintJsonLines(files);
  } else {
    PrintText(files);
  }
  return Status::OK();
}

}  // namespace

void RegisterRunCommands(CLI::App& app, ExitCode& exit_code) {
  {
    auto options = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand(
        "run", "Ingest the source of a pipeline config into Iceberg tables, continuously or --once");
    cmd->add_option("config", options->config_path, "Pipeline configuration (TOML)")->required();
    cmd->add_flag("--once", options->once, "One run: discover, ingest everything pending, print the summary");
    cmd->add_option("--state-dir", options->state_dir, "Pipeline state directory (overrides [state] dir)");
    cmd->add_flag("--quiet", options->quiet, "No progress or per-batch lines; only the summary and errors");
    cmd->add_flag("--verbose", options->verbose,
                  "Timestamped log lines, idle polls and settling files every poll (continuous mode always "
                  "timestamps)");
    cmd->add_option(
        "--http", options->http,
        "HOST:PORT to serve /metrics, /healthz, /readyz, /api/status and the dashboard on (overrides "
        "[observability] http; beyond loopback a token is required)");
    cmd->callback([options, &exit_code] { exit_code.value = RunPipeline(*options); });
  }
  {
    auto options = std::make_shared<ValidateCommandOptions>();
    auto* cmd = app.add_subcommand(
        "validate",
        "Read the pending units through the whole path (format, changes, schema drift, transforms, "
        "expectations) without writing anything; exit 1 when the run would fail");
    cmd->add_option("config", options->config_path, "Pipeline configuration (TOML)")->required();
    cmd->add_option("--state-dir", options->state_dir, "Pipeline state directory (overrides [state] dir)");
    cmd->add_option("--table", options->table, "Only this source table");
    cmd->add_option("--rows", options->rows, "Print the first N output rows of each table (JSON lines)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--errors", options->errors, "Print every problem per file (the default)");
    cmd->callback([options, &exit_code] { exit_code.value = Validate(*options); });
  }
  {
    auto options = std::make_shared<FilesOptions>();
    auto* cmd = app.add_subcommand("files", "The pipeline's ledger: every source file with its state");
    cmd->add_option("config", options->config_path, "Pipeline configuration (TOML)")->required();
    cmd->add_option("--state-dir", options->state_dir, "Pipeline state directory (overrides [state] dir)");
    cmd->add_option("--table", options->table, "Only this source table");
    cmd->add_option("--state", options->state,
                    "Only files in this state: discovered, in_batch, committed, "
                    "quarantined, skipped");
    cmd->add_option("--format", options->format,
                    "text (aligned columns) or jsonl (one JSON object per file)");
    auto* retry =
        cmd->add_option("--retry", options->retry_target,
                        "Put quarantined and skipped files back to discovered: all (of --table), or "
                        "the file or glob given (a uri or path as listed, or relative to [source] uri)")
            ->expected(0, 1);
    cmd->add_option("--skip", options->skip,
                    "Set one discovered or quarantined file aside on purpose (recorded with --reason); "
                    "--retry FILE takes it again");
    cmd->add_option("--reason", options->reason, "Why --skip sets the file aside (shown by `floe files`)");
    cmd->add_option("--reload-table", options->reload_table,
                    "Forget every record of this source table so the next run loads its whole current "
                    "export again (after a CDA reset, when [source] reload_on_reset is off)");
    cmd->add_flag("--lag", options->lag,
                  "Stream sources: per Kafka partition the committed and recorded offsets, the brokers' "
                  "watermarks and the lag; per Kinesis shard its state, the committed and recorded sequence "
                  "numbers and how far the next record is behind the tip (ms)");
    cmd->add_flag("--expectations", options->expectations,
                  "Per committed batch and [[expectations]] entry: change rows checked, passed and failed");
    cmd->callback([options, retry, &exit_code] {
      options->retry = retry->count() > 0;
      Status status = ListOrRetry(*options);
      exit_code.value = status.ok() ? 0 : Fail(status);
    });
  }
}

}  // namespace floe::cli
