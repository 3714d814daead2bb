#include "ingest/pipeline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "catalog/open/open_catalog.h"
#include "catalog/open/serialized_catalog.h"
#include "common/malloc_tuning.h"
#include "common/strings.h"
#include "common/text_table.h"
#include "ingest/batch_planner.h"
#include "ingest/pipeline_impl.h"
#include "ingest/pipeline_ledger.h"
#include "ingest/pipeline_maintenance.h"
#include "ingest/pipeline_trace.h"
#include "ingest/progress_reporter.h"
#include "ingest/side_tables.h"
#include "ingest/source.h"
#include "ingest/stream_positions.h"
#include "io/s3/file_io_factory.h"

namespace floe::ingest {

namespace {

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "quarantined <uri>: <reason>", the one spelling of a quarantine line; a
// reason that rose through the unit's reader and starts with its path does
// not repeat it.
std::string QuarantineLine(const QuarantinedFile& file) {
  std::string_view reason = file.reason;
  while (reason.size() > file.uri.size() + 2 && reason.starts_with(file.uri) &&
         reason.substr(file.uri.size(), 2) == ": ") {
    reason.remove_prefix(file.uri.size() + 2);
  }
  return "quarantined " + file.uri + ": " + std::string(reason);
}

}  // namespace

std::vector<LedgerExpectationCount> LedgerExpectationCounts(const BatchCounts& counts) {
  std::vector<LedgerExpectationCount> out;
  for (const ExpectationCount& count : counts.expectations) {
    LedgerExpectationCount row;
    row.name = count.name;
    row.action = ExpectationActionName(count.action);
    row.checked = count.checked;
    row.passed = count.passed();
    row.failed = count.failed;
    out.push_back(std::move(row));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Summaries

void TableRunSummary::Add(const TableRunSummary& other) {
  if (table.empty()) table = other.table;
  batches += other.batches;
  counts.Add(other.counts);
  quarantined += other.quarantined;
  recovered_batches += other.recovered_batches;
  elapsed_ms += other.elapsed_ms;
  if (!other.error.empty()) error = other.error;
}

bool RunSummary::ok() const {
  return std::all_of(tables.begin(), tables.end(), [](const auto& entry) {
    return entry.second.error.empty() && entry.second.quarantined == 0;
  });
}

void RunSummary::Add(const RunSummary& other) {
  for (const auto& [name, table] : other.tables) tables[name].Add(table);
  batches_committed += other.batches_committed;
  // The latest poll's view of what is waiting.
  settling_files = other.settling_files;
  settling_first_ms = other.settling_first_ms;
  settling_last_ms = other.settling_last_ms;
  settle_ms = other.settle_ms;
  earlier_quarantined = other.earlier_quarantined;
  more_ready = other.more_ready;
  if (!other.config_path.empty()) config_path = other.config_path;
}

std::string RunSummary::Format() const {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"table", "target", "batches", "files", "rows", "inserted", "updated", "deleted", "stale",
                  "ignored", "quarantined", "bytes", "elapsed", "status"});
  TableRunSummary total;
  auto row_of = [](const std::string& name, const TableRunSummary& t) {
    const BatchCounts& c = t.counts;
    std::string status =
        t.error.empty() ? (t.quarantined > 0 ? "quarantined files" : "ok") : "error: " + t.error;
    return std::vector<std::string>{
        name,
        t.table,
        FormatThousands(t.batches),
        FormatThousands(c.files),
        FormatThousands(c.rows_read),
        FormatThousands(c.inserted),
        FormatThousands(c.updated),
        FormatThousands(c.deleted),
        FormatThousands(c.stale),
        FormatThousands(c.ignored),
        FormatThousands(t.quarantined),
        FormatByteSize(c.bytes_read),
        FormatSeconds(static_cast<double>(t.elapsed_ms) / 1000.0),
        status,
    };
  };
  int64_t errors = 0;
  for (const auto& [name, table] : tables) {
    rows.push_back(row_of(name, table));
    TableRunSummary copy = table;
    copy.error.clear();
    total.Add(copy);
    if (!table.error.empty()) ++errors;
  }
  auto total_row = row_of("total", total);
  total_row[1] =
      FormatThousands(static_cast<int64_t>(tables.size())) + (tables.size() == 1 ? " table" : " tables");
  total_row.back() = errors == 0
                         ? (total.quarantined > 0 ? "quarantined files" : "ok")
                         : FormatThousands(errors) + (errors == 1 ? " table failed" : " tables failed");
  rows.push_back(std::move(total_row));

  // Names and the status read left to right; numbers line up on the right.
  const size_t columns = rows.front().size();
  std::string out = FormatTextTable(rows, [columns](size_t i) { return i > 1 && i + 1 != columns; });
  const std::string config = config_path.empty() ? "CONFIG" : config_path;
  if (settling_files > 0) {
    out += FormatThousands(settling_files) + (settling_files == 1 ? " file is" : " files are") +
           " still settling (changed less than [source] settle = " +
           FormatSeconds(static_cast<double>(settle_ms) / 1000.0) + " ago); the next run takes " +
           (settling_files == 1 ? "it from " + FormatUtcMillis(settling_first_ms)
                                : "them from " + FormatUtcMillis(settling_first_ms) + " (the last from " +
                                      FormatUtcMillis(settling_last_ms) + ")") +
           "\n";
  }
  if (earlier_quarantined > 0) {
    out += FormatThousands(earlier_quarantined) + (earlier_quarantined == 1 ? " file" : " files") +
           " quarantined by earlier runs " + (earlier_quarantined == 1 ? "stays" : "stay") +
           " set aside (`floe files " + config + " --state quarantined` lists them; `floe files " + config +
           " --retry FILE` takes one again after a fix)\n";
  }
  return out;
}

// ---------------------------------------------------------------------------
// Pipeline

int64_t Pipeline::Impl::NowMs() const {
  return options.now_ms_for_tests != 0 ? options.now_ms_for_tests : SystemNowMs();
}

Result<catalog::TableIdentifier> Pipeline::Impl::TargetOf(const std::string& source_table) const {
  return TargetTableOf(config, source_table);
}

Result<catalog::TableIdentifier> TargetTableOf(const PipelineConfig& config,
                                               const std::string& source_table) {
  const TableSettings settings = config.ForTable(source_table);
  catalog::TableIdentifier id;
  id.name = settings.target_table.empty() ? AsciiLower(source_table) : settings.target_table;
  if (id.name.empty()) return Status::InvalidArgument("source table name is empty");
  FLOE_ASSIGN_OR_RETURN(id.ns, catalog::ParseNamespace(settings.target.ns));
  return id;
}

std::string Pipeline::Impl::MetricsTable(const std::string& source_table) const {
  auto id = TargetOf(source_table);
  return id.ok() ? id->ToString() : source_table;
}

void Pipeline::Impl::CountAggregateLateChanges(const std::string& source_table, TableIngestor& ingestor) {
  std::map<std::string, int64_t> late = ingestor.TakeAggregateLateChanges();
  if (!options.metrics) return;
  for (const auto& [aggregate, count] : late)
    options.metrics->AggregateLateChanges(MetricsTable(source_table), aggregate, count);
}

Status Pipeline::Impl::SetCondition(const std::string& source_table, const std::string& state,
                                    const std::string& reason) {
  auto known = conditions.find(source_table);
  if (known != conditions.end() && known->second == std::make_pair(state, reason)) return Status::OK();
  FLOE_RETURN_IF_ERROR(Ledgered(ledger->SetTableCondition(source_table, state, reason, NowMs())));
  conditions[source_table] = {state, reason};
  if (options.metrics) options.metrics->TableCondition(MetricsTable(source_table), state, reason);
  return Status::OK();
}

Status Pipeline::Impl::ClearCondition(const std::string& source_table) {
  if (conditions.count(source_table) == 0) return Status::OK();
  FLOE_RETURN_IF_ERROR(Ledgered(ledger->ClearTableCondition(source_table)));
  conditions.erase(source_table);
  if (options.metrics) options.metrics->TableCondition(MetricsTable(source_table), "", "");
  return Status::OK();
}

void Pipeline::Impl::PublishStreamLag() {
  if (!options.metrics || !stream_positions_loaded) return;
  auto lag = StreamLag(stream_positions, stream_marks);
  if (!lag.ok()) return;
  std::vector<std::string> labels;
  for (const StreamPartitionLag& partition : *lag) labels.push_back(MetricsTable(partition.table));
  options.metrics->SetStreamLag(*lag, labels);
}

void Pipeline::Impl::AdvanceCommittedPositions(const std::vector<SourceUnit>& batch) {
  if (!stream_positions_loaded) return;
  for (const SourceUnit& unit : batch) {
    if (unit.kind != UnitKind::kStreamRange) continue;
    Ledger::StreamPosition& position = stream_positions[{unit.range.stream, unit.range.partition}];
    if (position.committed_last.empty() || ComparePositions(unit.range.last, position.committed_last) > 0) {
      position.committed_last = unit.range.last;
    }
    if (position.recorded_last.empty() || ComparePositions(unit.range.last, position.recorded_last) > 0) {
      position.recorded_last = unit.range.last;
    }
  }
  PublishStreamLag();
}

std::string Pipeline::Impl::TableStateDir(const catalog::TableIdentifier& id) const {
  return (std::filesystem::path(config.state_dir) / "tables" / id.ToString()).string();
}

Result<TableIngestor*> Pipeline::Impl::IngestorFor(const std::string& source_table) {
  auto it = ingestors.find(source_table);
  if (it != ingestors.end()) return it->second.get();
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, TargetOf(source_table));
  TableIngestorOptions ingestor_options;
  ingestor_options.pipeline_name = config.name;
  ingestor_options.table = id;
  FLOE_ASSIGN_OR_RETURN(ingestor_options.settings,
                        SourceTableSettings(config, *source.discovery, source_table));
  ingestor_options.state_dir = TableStateDir(id);
  ingestor_options.now_ms_for_tests = options.now_ms_for_tests;
  ingestor_options.lease_epoch = LeaseEpochOf(source_table);
  // Quarantines are recorded as they happen, before the batch commits.
  // Called inside ApplyBatch, where the table's thread does not hold state_mutex.
  ingestor_options.on_quarantine = [this, source_table](const QuarantinedFile& file) {
    std::lock_guard state(state_mutex);
    Status recorded = ledger->Quarantine(file.uri, file.reason);
    if (!recorded.ok()) quarantine_errors.emplace(source_table, recorded);  // the first one stays
  };
  std::error_code ec;
  std::filesystem::create_directories(ingestor_options.state_dir, ec);
  if (ec) {
    return Status::IOError("cannot create the table state directory " + ingestor_options.state_dir + ": " +
                           ec.message());
  }
  FLOE_ASSIGN_OR_RETURN(auto ingestor,
                        TableIngestor::Open(*tables, source.opener, state_io, std::move(ingestor_options)));
  TableIngestor* raw = ingestor.get();
  ingestors[source_table] = std::move(ingestor);
  return raw;
}

bool Pipeline::Impl::Holds(const std::string& source_table) const {
  return !leases || LeaseEpochOf(source_table).has_value();
}

const std::string& Pipeline::Impl::LeaseNameOf(const std::string& source_table) const {
  auto known = lease_names.find(source_table);
  if (known != lease_names.end()) return known->second;
  auto id = TargetOf(source_table);
  return lease_names.emplace(source_table, id.ok() ? id->ToString() : std::string()).first->second;
}

std::optional<TableLease> Pipeline::Impl::LeaseOf(const std::string& source_table) const {
  if (!leases) return std::nullopt;
  const std::string& name = LeaseNameOf(source_table);
  if (name.empty()) return std::nullopt;
  return leases->LeaseOf(name);
}

MaintenanceCommitSummary Pipeline::Impl::MaintenanceSummaryOf(const std::string& source_table) const {
  if (!leases) return nullptr;
  const std::string& name = LeaseNameOf(source_table);
  if (name.empty()) return nullptr;
  return [held = leases.get(), name]() -> std::map<std::string, std::string> {
    const std::optional<TableLease> lease = held->LeaseOf(name);
    if (!lease) return {};
    return {{kSummaryLeaseEpoch, std::to_string(lease->epoch)}};
  };
}

std::optional<int64_t> Pipeline::Impl::LeaseEpochOf(const std::string& source_table) const {
  const std::optional<TableLease> lease = LeaseOf(source_table);
  if (!lease) return std::nullopt;
  return lease->epoch;
}

Result<std::set<std::string>> Pipeline::Impl::BalanceLeases(
    const std::set<std::string>& sources, bool take, const std::map<std::string, int64_t>& pending_bytes,
    const std::vector<std::string>& not_started_sources) {
  std::set<std::string> gained_sources;
  if (!leases) return gained_sources;
  std::map<std::string, std::vector<std::string>> sources_of_target;
  for (const std::string& name : sources) {
    if (const std::string& target = LeaseNameOf(name); !target.empty())
      sources_of_target[target].push_back(name);
  }
  std::vector<std::string> targets;
  for (const auto& [target, names] : sources_of_target) targets.push_back(target);
  std::map<std::string, int64_t> pending_of_target;
  for (const auto& [name, bytes] : pending_bytes) {
    if (const std::string& target = LeaseNameOf(name); !target.empty()) pending_of_target[target] += bytes;
  }
  std::vector<std::string> not_started;
  for (const std::string& name : not_started_sources) {
    const std::string& target = LeaseNameOf(name);
    if (!target.empty() && std::find(not_started.begin(), not_started.end(), target) == not_started.end())
      not_started.push_back(target);
  }
  const double start_ms = PipelineTrace::NowMs();
  auto balanced = leases->Balance(targets, take, pending_of_target, not_started);
  if (!balanced.ok() && balanced.status().kind() == ErrorKind::kFenced) {
    // Everything this worker did under its old leases is refused from now
    // on; what it knew of its tables may be stale: forget it all.
    Log("scale-out: " + balanced.status().message() +
        "; this worker drops every table it had and joins the pipeline again");
    ingestors.clear();
    maintenance_due.clear();
    FLOE_RETURN_IF_ERROR(leases->Rejoin());
    Log("scale-out: joined again as worker " + leases->worker_id());
    balanced = leases->Balance(targets, take, pending_of_target, not_started);
  }
  if (!balanced.ok()) return balanced.status().WithContext("table leases of " + PipelineLedgerName(config));
  for (const std::string& dead : balanced->dead_workers) {
    Log("scale-out: worker " + dead + " sent no heartbeat for longer than [state] lease_timeout (" +
        FormatSeconds(static_cast<double>(config.lease_timeout_ms) / 1000.0) + "): its tables are free");
  }
  for (const std::string& gone : balanced->exited_workers) {
    Log("scale-out: worker " + gone + " ran on this machine and has exited: its tables are free");
  }
  for (const std::string& target : balanced->released) {
    Log("scale-out: released " + target + " to another worker (" + std::to_string(balanced->live_workers) +
        " workers share " + std::to_string(balanced->tables) + " tables)");
  }
  // Tables gained between the tables of a poll (`sources` empty): their
  // source names are those seen so far.
  auto sources_named = [&](const std::string& target) -> const std::vector<std::string>& {
    std::vector<std::string>& names = sources_of_target[target];
    if (names.empty()) {
      for (const auto& [name, lease_name] : lease_names) {
        if (lease_name == target) names.push_back(name);
      }
    }
    return names;
  };
  for (const auto& [target, worker] : balanced->handed_over) {
    Log("scale-out: handed " + target + " to worker " + worker +
        ", which had no work waiting (its files had not been started here; it still counts in this worker's "
        "share)");
  }
  for (const std::string& target : balanced->gained) {
    Log("scale-out: took " + target + " (lease epoch " + std::to_string(balanced->held.at(target)) + ")");
    for (const std::string& name : sources_named(target)) gained_sources.insert(name);
  }
  for (const std::string& target : balanced->handed_in) {
    Log("scale-out: " + target + " was handed over by another worker (lease epoch " +
        std::to_string(balanced->held.at(target)) + ")");
    for (const std::string& name : sources_named(target)) gained_sources.insert(name);
  }
  // What this worker knew of tables it no longer holds, or just gained (another
  // worker committed meanwhile), is stale.
  for (auto it = ingestors.begin(); it != ingestors.end();) {
    if (!Holds(it->first) || gained_sources.count(it->first) > 0) {
      it = ingestors.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(maintenance_due,
                [&](const DueMaintenance& due) { return balanced->held.count(due.table.ToString()) == 0; });
  if (!gained_sources.empty()) {
    for (const std::string& name : gained_sources) {
      watermarks.erase(name);
      watermark_checked.erase(name);
      stream_tables_seeded.erase(name);
    }
    stream_ends_loaded = false;
    FLOE_ASSIGN_OR_RETURN(auto stored, Ledgered(ledger->TableConditions()));
    conditions.clear();
    for (const auto& [table, condition] : stored) conditions[table] = {condition.state, condition.reason};
  }
  trace->Write("leases", {{"start", start_ms},
                          {"ms", PipelineTrace::NowMs() - start_ms},
                          {"held", static_cast<int64_t>(balanced->held.size())},
                          {"gained", static_cast<int64_t>(balanced->gained.size())},
                          {"released", static_cast<int64_t>(balanced->released.size())},
                          {"workers", balanced->live_workers}});
  return gained_sources;
}

Result<bool> Pipeline::Impl::TakeLeasedTables(DiscoveryResult& discovery) {
  std::set<std::string> sources(discovery.tables.begin(), discovery.tables.end());
  for (const auto& [name, message] : discovery.table_errors) sources.insert(name);
  for (const std::string& name : discovery.reset_tables) sources.insert(name);
  for (const SourceUnit& unit : discovery.files) sources.insert(unit.table);
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> with_work, Ledgered(ledger->TablesWithWork()));
  sources.insert(with_work.begin(), with_work.end());
  // Free tables are dealt out by what waits in them, so that workers that
  // start together get alike amounts of work, not just alike counts.
  std::map<std::string, int64_t> pending_bytes;
  for (const SourceUnit& unit : discovery.files) pending_bytes[unit.table] += std::max<int64_t>(unit.size, 0);
  FLOE_ASSIGN_OR_RETURN(std::set<std::string> gained, BalanceLeases(sources, /*take=*/true, pending_bytes));
  // An SQS notification reaches one worker of the queue, whatever table it
  // announces: the files of tables other workers hold go into the shared
  // ledger for their holders, and this worker keeps the notification until
  // the ledger says they are committed (SettleNotifications), instead of
  // handing it back to the queue (where a redrive policy would count each
  // return as a failed receive).
  if (config.source.notifications.kind == NotificationKind::kSqs) {
    std::vector<SourceUnit> others;
    for (const SourceUnit& unit : discovery.files) {
      if (unit.kind != UnitKind::kStreamRange && !Holds(unit.table)) others.push_back(unit);
    }
    if (!others.empty()) FLOE_RETURN_IF_ERROR(Ledgered(ledger->RecordForHolders(others, NowMs())).status());
  }
  KeepHeldTables(discovery);
  return !gained.empty();
}

void Pipeline::Impl::KeepHeldTables(DiscoveryResult& discovery) const {
  auto not_held = [this](const std::string& name) { return !Holds(name); };
  std::erase_if(discovery.files, [&](const SourceUnit& unit) { return not_held(unit.table); });
  std::erase_if(discovery.tables, not_held);
  std::erase_if(discovery.reset_tables, not_held);
  std::erase_if(discovery.new_watermarks, [&](const TableWatermark& mark) { return not_held(mark.table); });
  std::erase_if(discovery.table_errors, [&](const auto& entry) { return not_held(entry.first); });
  std::erase_if(discovery.stream_marks,
                [&](const DiscoveryResult::StreamMarks& marks) { return not_held(marks.table); });
}

Result<DiscoveryResult> Pipeline::Impl::DiscoverWithWatermarks() {
  stream_ends_loaded_this_poll = !stream_ends_loaded;
  if (!all_watermarks_loaded) {
    FLOE_ASSIGN_OR_RETURN(auto stored, Ledgered(ledger->Watermarks()));
    for (auto& [name, watermark] : stored) {
      watermarks[name] = std::move(watermark);
      watermark_checked.insert(name);
    }
    all_watermarks_loaded = true;
  }
  if (source.discovery->finds_streams()) {
    if (!stream_ends_loaded) {
      FLOE_ASSIGN_OR_RETURN(stream_ends, Ledgered(ledger->StreamEnds()));
      stream_ends_loaded = true;
    }
    source.discovery->SetStreamEnds(stream_ends);
  }
  FLOE_ASSIGN_OR_RETURN(DiscoveryResult discovery, source.discovery->Discover(watermarks, NowMs()));
  if (source.discovery->finds_streams()) {
    // Each round seeds at least one more table, so this ends.
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool raised, SeedStreamEndsFromTables(discovery));
      if (!raised) break;
      source.discovery->SetStreamEnds(stream_ends);
      FLOE_ASSIGN_OR_RETURN(discovery, source.discovery->Discover(watermarks, NowMs()));
    }
  }
  std::set<std::string> names(discovery.tables.begin(), discovery.tables.end());
  for (const auto& [name, message] : discovery.table_errors) names.insert(name);
  for (const std::string& name : discovery.reset_tables) names.insert(name);
  for (const SourceUnit& file : discovery.files) names.insert(file.table);
  bool learned = false;
  for (const std::string& name : names) {
    if (!watermark_checked.insert(name).second) continue;
    FLOE_ASSIGN_OR_RETURN(std::optional<TableWatermark> stored, Ledgered(ledger->Watermark(name)));
    if (stored) {
      watermarks[name] = std::move(*stored);
      learned = true;
    }
  }
  if (!learned) return discovery;
  return source.discovery->Discover(watermarks, NowMs());
}

Result<bool> Pipeline::Impl::SeedStreamEndsFromTables(const DiscoveryResult& discovery) {
  bool raised = false;
  for (const SourceUnit& unit : discovery.files) {
    if (unit.kind != UnitKind::kStreamRange || !stream_tables_seeded.insert(unit.table).second) continue;
    auto ends = [&]() -> Result<StreamEnds> {
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, TargetOf(unit.table));
      auto ops = tables->LoadTable(id);
      if (!ops.ok() && ops.status().kind() == ErrorKind::kNotFound) return StreamEnds{};
      if (!ops.ok()) return ops.status().WithContext("table " + id.ToString());
      FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, (*ops)->Load());
      auto found = TableStreamEnds(loaded.metadata, config.name);
      if (!found.ok()) return found.status().WithContext("table " + id.ToString());
      return found;
    }();
    if (!ends.ok()) {
      stream_tables_seeded.erase(unit.table);  // asked again next poll; nothing is read meanwhile
      return ends.status().WithContext("the stream positions of " + unit.table);
    }
    if (RaiseStreamEnds(*ends, &stream_ends)) {
      raised = true;
      Log("table " + unit.table + ": its snapshots hold stream positions past the ledger's (a new or " +
          "restored state directory): reading on after them");
    }
  }
  return raised;
}

Status Pipeline::Impl::SettleNotifications() {
  const std::vector<std::string> awaited = source.discovery->AwaitedUnits();
  if (awaited.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(auto states, Ledgered(ledger->StatesOf(awaited)));
  std::map<std::string, UnitFate> fates;
  for (const std::string& uri : awaited) {
    auto state = states.find(uri);
    UnitFate fate = UnitFate::kUnknown;
    if (state != states.end()) {
      fate = state->second == FileState::kDiscovered || state->second == FileState::kInBatch
                 ? UnitFate::kPending
                 : UnitFate::kDone;
    }
    fates[uri] = fate;
  }
  for (const std::string& warning : source.discovery->SettleUnits(fates)) Log("warning: " + warning);
  return Status::OK();
}

void Pipeline::Impl::SettleNotificationsOf(const std::vector<SourceUnit>& batch) {
  std::map<std::string, UnitFate> fates;
  for (const SourceUnit& unit : batch) fates[unit.uri] = UnitFate::kDone;
  for (const std::string& warning : source.discovery->SettleUnits(fates)) Log("warning: " + warning);
}

Status Pipeline::Impl::ResetTable(const std::string& source_table) {
  FLOE_RETURN_IF_ERROR(Ledgered(ledger->ResetTable(source_table)));
  watermarks.erase(source_table);
  const TableSettings settings = config.ForTable(source_table);
  const std::string target = TargetOf(source_table).ValueOr(catalog::TableIdentifier{}).ToString();
  std::string consequence = settings.merge.mode == WriteMode::kMerge
                                ? "the re-exported rows merge on top of the rows already in " + target +
                                      " (the newest change per key wins)"
                                : "mode append: every re-exported row is appended AGAIN to " + target +
                                      ", which will hold the old history twice";
  Log("RESET: source table " + source_table +
      " was re-exported; its ledger records are forgotten and every file is loaded again: " + consequence);
  return Status::OK();
}

Status Pipeline::Impl::ProcessTable(const std::string& source_table, const std::atomic<bool>& stop,
                                    RunSummary& summary, std::unique_lock<std::mutex>& state) {
  const auto started = std::chrono::steady_clock::now();
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> pending, Ledgered(ledger->Pending(source_table)));
  if (pending.empty()) return Status::OK();
  TableRunSummary& table_summary = summary.tables[source_table];
  auto target = TargetOf(source_table);
  if (!target.ok()) {
    table_summary.error = target.status().ToString();
    Log("table " + source_table + ": " + table_summary.error);
    return Status::OK();
  }
  table_summary.table = target->ToString();

  std::vector<SourceUnit> files;
  files.reserve(pending.size());
  for (LedgerFile& entry : pending) files.push_back(std::move(entry.file));
  // A stream batch is fetched once and held decoded for both passes (the
  // opener keeps a quarter of [performance] memory_budget, decoded rows
  // taking about twice their records): its records stay within an eighth.
  int64_t max_bytes = config.trigger.max_bytes_per_batch;
  if (source.discovery->finds_streams()) {
    max_bytes = std::min(max_bytes, std::max<int64_t>(config.performance.memory_budget_bytes / 8, 1));
  }
  const std::vector<std::vector<SourceUnit>> batches =
      PlanBatches(files, {config.trigger.max_files_per_batch, max_bytes});

  auto ingestor = IngestorFor(source_table);
  if (!ingestor.ok()) {
    table_summary.error = ingestor.status().ToString();
    Log("table " + source_table + ": " + table_summary.error);
    return Status::OK();
  }

  reporter->StartTable(source_table, static_cast<int64_t>(files.size()));
  Status ledger_status = ApplyBatches(source_table, table_summary.table, batches, **ingestor, stop, summary,
                                      table_summary, state);
  reporter->EndTable(source_table);
  table_summary.elapsed_ms += MillisSince(started);
  return ledger_status;
}

std::unique_lock<std::mutex> Pipeline::Impl::LockTable(const std::string& target) {
  std::mutex& lock = table_locks.For(target);
  std::unique_lock<std::mutex> held(lock, std::try_to_lock);
  if (held.owns_lock()) return held;
  const double start_ms = PipelineTrace::NowMs();
  held.lock();
  trace->Write("table_lock_wait",
               {{"table", target}, {"start", start_ms}, {"ms", PipelineTrace::NowMs() - start_ms}});
  return held;
}

Status Pipeline::Impl::ApplyBatches(const std::string& source_table, const std::string& target,
                                    const std::vector<std::vector<SourceUnit>>& batches,
                                    TableIngestor& ingestor, const std::atomic<bool>& stop,
                                    RunSummary& summary, TableRunSummary& table_summary,
                                    std::unique_lock<std::mutex>& state) {
  // A batch the ingestor cut short (memory budget) is re-planned in place.
  std::vector<std::vector<SourceUnit>> queue(batches.rbegin(), batches.rend());  // next at the back
  // Files whose reading was reported: a re-planned part reads them again.
  std::set<std::string> reported;
  while (!queue.empty()) {
    const std::vector<SourceUnit> batch = std::move(queue.back());
    queue.pop_back();
    if (stop.load() || tables_halted.load()) return Status::OK();
    // Scale-out: the heartbeat found this worker dead, or the lease moved.
    if (!Holds(source_table)) {
      return Status::Fenced("this worker no longer holds the lease of " + LeaseNameOf(source_table) +
                            "; the pending files of " + source_table + " are left to its new owner");
    }
    std::vector<std::string> uris;
    uris.reserve(batch.size());
    for (const SourceUnit& file : batch) uris.push_back(file.uri);
    FLOE_ASSIGN_OR_RETURN(int64_t batch_id, Ledgered(ledger->OpenBatch(source_table, uris)));
    // Tables start only while others wait, so one left alone (the others
    // done) takes all the threads for its next batch without ever sharing
    // them. Its memory stays its slot's part: what the others' batches
    // allocated is not all back with the system yet.
    ingestor.SetShare(config.performance.memory_budget_bytes / table_slots,
                      std::max(1, config.performance.EffectiveThreads() / std::max(tables_in_flight, 1)));

    const auto started = std::chrono::steady_clock::now();
    FLOE_ASSIGN_OR_RETURN(auto last, Ledgered(ledger->LastCommittedSnapshot(source_table)));
    std::optional<TableIngestor::LastCommit> last_commit;
    if (last) last_commit = TableIngestor::LastCommit{last->first, last->second};
    // The batch itself is this table's business: the other tables' threads
    // go on meanwhile (the reporter is thread-safe, on_quarantine locks).
    state.unlock();
    // Refresh -> commit with no maintenance commit of the table in between.
    std::unique_lock<std::mutex> table_lock = LockTable(target);
    auto applied = ingestor.ApplyBatch(
        batch, batch_id,
        [this, &reported, &source_table](const std::string& uri, int64_t rows, int64_t bytes) {
          if (reported.insert(uri).second) reporter->FileRead(source_table, rows, bytes);
        },
        last_commit);
    table_lock.unlock();
    state.lock();
    LogWorkerMessages();
    CountAggregateLateChanges(source_table, ingestor);
    if (!applied.ok()) {
      // Refused by the lease's fence: nothing committed, and the batch is the
      // new owner's to resolve (this worker may no longer write the ledger's rows of the table).
      if (applied.status().kind() == ErrorKind::kFenced) {
        return applied.status().WithContext("batch " + std::to_string(batch_id) + " left open");
      }
      return FailBatch(source_table, batch_id, applied.status(), table_summary);
    }

    const BatchResult& result = *applied;
    if (auto failed = quarantine_errors.find(source_table); failed != quarantine_errors.end()) {
      Status error = std::move(failed->second);
      quarantine_errors.erase(failed);
      return Ledgered(error);
    }
    if (result.waits_for_table) {
      FLOE_RETURN_IF_ERROR(Ledgered(ledger->ReleaseBatch(batch_id)));
      if (waiting_for_table.insert(source_table).second) {
        Log("table " + source_table + ": " + FormatThousands(result.counts.dead_letters) +
            " undecodable records wait: " + target +
            " does not exist yet, and their dead letters commit with its first rows (the batch was "
            "released)");
      }
      return Status::OK();
    }
    waiting_for_table.erase(source_table);
    if (result.budget_cut_at) {
      FLOE_RETURN_IF_ERROR(Ledgered(ledger->ReleaseBatch(batch_id)));
      std::set<std::string> set_aside;
      for (const QuarantinedFile& file : result.quarantined) set_aside.insert(file.uri);
      table_summary.quarantined += static_cast<int64_t>(result.quarantined.size());
      for (const QuarantinedFile& file : result.quarantined) Log(QuarantineLine(file));
      auto parts = SplitAtBudgetCut(batch, *result.budget_cut_at, set_aside);
      Log("table " + source_table + ": batch " + std::to_string(batch_id) +
          " outgrew [performance] memory_budget; released, applied again as " + std::to_string(parts.size()) +
          " smaller batches");
      for (auto part = parts.rbegin(); part != parts.rend(); ++part) queue.push_back(std::move(*part));
      continue;
    }
    const int64_t batch_ms = MillisSince(started);
    BatchStats stats;
    stats.files = result.counts.files;
    stats.bytes = result.counts.bytes_read;
    stats.rows = result.counts.rows_read;
    stats.inserted = result.counts.inserted;
    stats.updated = result.counts.updated;
    stats.deleted = result.counts.deleted;
    stats.stale = result.counts.stale;
    stats.quarantined = static_cast<int64_t>(result.quarantined.size());
    stats.duration_ms = batch_ms;
    stats.commit_ms = static_cast<int64_t>(result.commit_seconds * 1000.0);
    FLOE_RETURN_IF_ERROR(Ledgered(ledger->CommitBatch(batch_id, result.snapshot_id.value_or(kNoSnapshot),
                                                      stats, LedgerExpectationCounts(result.counts))));
    FLOE_RETURN_IF_ERROR(ClearCondition(source_table));
    if (options.metrics) {
      options.metrics->BatchCommitted(target, result, static_cast<double>(batch_ms) / 1000.0);
      options.metrics->CatalogReached(true, "");
    }
    AdvanceCommittedPositions(batch);
    // Committed or quarantined, every unit of the batch is done: its notifications may go.
    SettleNotificationsOf(batch);
    if (Status told = source.opener->Committed(batch); !told.ok()) {
      // Advisory (lag tools): said once until it works again.
      if (source_progress_ok)
        Log("warning: " + told.ToString() + " (advisory: floe reads its positions from the ledger)");
      source_progress_ok = false;
    } else {
      source_progress_ok = true;
    }
    ++summary.batches_committed;
    ++table_summary.batches;
    table_summary.counts.Add(result.counts);
    table_summary.quarantined += static_cast<int64_t>(result.quarantined.size());
    reporter->BatchDone(source_table, batch_id, result, static_cast<double>(batch_ms) / 1000.0);
    for (const QuarantinedFile& file : result.quarantined) {
      reporter->Event("quarantined", LogLevel::kWarning, QuarantineLine(file),
                      {{"table", source_table}, {"uri", file.uri}, {"reason", file.reason}});
    }
    for (const std::string& warning : result.warnings) Log("warning: " + source_table + ": " + warning);
    if (result.counts.bad_rows > 0) {
      Log(source_table + ": " + FormatThousands(result.counts.bad_rows) +
          (result.counts.bad_rows == 1 ? " bad row" : " bad rows") + " of batch " + std::to_string(batch_id) +
          " set aside in " + target + "__bad_rows (file, row, reason, rescued_data)");
    }
    if (result.counts.quarantined_rows > 0) {
      Log(source_table + ": " + FormatThousands(result.counts.quarantined_rows) +
          (result.counts.quarantined_rows == 1 ? " row" : " rows") + " of batch " + std::to_string(batch_id) +
          " failed a quarantine expectation; kept in " + target +
          "__quarantine (_floe_failed_expectations, _floe_source_file, _floe_source_row, the row)");
    }
    if (result.counts.dead_letters > 0) {
      Log(source_table + ": " + FormatThousands(result.counts.dead_letters) +
          (result.counts.dead_letters == 1 ? " record" : " records") + " of batch " +
          std::to_string(batch_id) + " could not be decoded; kept in " + target +
          "__dead_letter (topic, partition, offset, key, value, error)");
    }
    if (result.counts.dead_letters_skipped > 0) {
      Log(source_table + ": " + FormatThousands(result.counts.dead_letters_skipped) +
          (result.counts.dead_letters_skipped == 1 ? " record" : " records") + " of batch " +
          std::to_string(batch_id) +
          " could not be decoded and were dropped ([source] on_bad_record = \"skip\")");
    }
    if (result.snapshot_id) {
      // A side table takes a commit (a small file) per batch that set rows
      // aside in it, so it is maintained with the table (MaybeMaintain).
      std::set<std::string>& sides = side_tables_committed[target];
      if (result.counts.bad_rows > 0) sides.insert(kBadRowsSuffix);
      if (result.counts.quarantined_rows > 0) sides.insert(kQuarantineSuffix);
      if (result.counts.dead_letters > 0) sides.insert(kDeadLetterSuffix);
      MaybeMaintain(source_table, ingestor, state);
    }
    // A large batch's buffers are free now, but malloc keeps up to its trim
    // threshold (256 MiB, common/malloc_tuning.h) for the next one. Past
    // the allowance (half the budget) they go back, so the next table's
    // peak does not stack on this one's free blocks; below it the next
    // batch reuses them without faulting them in again. What malloc holds
    // decides, not the bytes read: a 100M-key load's batches read 50 MB of
    // narrow, well-compressed files each but held 500 MiB between batches,
    // and a batch that found no free block large enough for its key index
    // delta mapped 92 MiB more (a load's peak 648 MiB against 512 + 37).
    if (FreeHeapBytes() >= FreeHeapAllowance(config.performance.memory_budget_bytes)) ReleaseFreeHeapMemory();
  }
  return Status::OK();
}

Status Pipeline::Impl::ApplyTables(const std::vector<std::string>& with_work,
                                   const std::set<std::string>& blocked, const std::atomic<bool>& stop,
                                   RunSummary& summary) {
  const int parallel = config.performance.TablesInParallel(with_work.size());
  // Scale-out and streams apply one table at a time: a lease balance between
  // tables may drop the ingestors of others, and a stream opener holds one
  // batch's records decoded at a time.
  const int slots = (leases || source.discovery->finds_streams()) ? 1 : parallel;
  table_slots = slots;
  tables_halted = false;
  size_t next = 0;
  bool first_table = true;
  std::set<std::string> gained_meanwhile;  // between tables: recovered at the next poll, not now
  std::optional<std::map<std::string, int64_t>> waiting_bytes;  // read once, when a choice is to be made
  std::optional<std::set<std::string>> tables_with_rows;        // read once, when a table could be handed
  Status failed;
  // Each slot takes the next table with work until none is left; its thread
  // holds state_mutex except while its table's batches run (ApplyBatches).
  auto apply_tables = [&]() {
    std::unique_lock<std::mutex> state(state_mutex);
    while (next < with_work.size() && !stop.load() && !tables_halted.load()) {
      const std::string name = with_work[next++];
      if (blocked.count(name) > 0 || !Holds(name) || gained_meanwhile.count(name) > 0) continue;
      // Scale-out: a worker that joined during a long poll gets its share
      // now, and a worker that has no work left gets a table of this poll
      // that would otherwise wait for the ones before it.
      if (leases && !std::exchange(first_table, false)) {
        std::vector<std::string> not_started;
        for (size_t later = next; later < with_work.size(); ++later) {
          const std::string& other = with_work[later];
          if (blocked.count(other) == 0 && Holds(other) && gained_meanwhile.count(other) == 0)
            not_started.push_back(other);
        }
        // Worked out only while another worker wants work: an indexed read
        // per table boundary, not a ledger scan per poll.
        if (!not_started.empty()) {
          auto wanted = leases->OthersWantWork();
          if (!wanted.ok() || !*wanted) not_started.clear();
        }
        if (!not_started.empty()) {
          // Only tables with no rows yet (a first load, a new table): the
          // taker of a table with rows would first build its key index from
          // the whole table, which costs more than the wait it saves.
          if (!tables_with_rows) {
            auto read = Ledgered(ledger->TablesWithCommittedFiles(with_work));
            tables_with_rows =
                read.ok() ? std::move(*read) : std::set<std::string>(with_work.begin(), with_work.end());
          }
          std::erase_if(not_started,
                        [&](const std::string& table) { return tables_with_rows->count(table) > 0; });
        }
        if (not_started.size() > 1) {
          // The most waiting first: the best to take off this worker's hands.
          if (!waiting_bytes) {
            auto read = Ledgered(ledger->WaitingBytes());
            waiting_bytes = read.ok() ? std::move(*read) : std::map<std::string, int64_t>{};
          }
          auto waiting = [&](const std::string& table) {
            auto it = waiting_bytes->find(table);
            return it == waiting_bytes->end() ? int64_t{0} : it->second;
          };
          std::stable_sort(
              not_started.begin(), not_started.end(),
              [&](const std::string& a, const std::string& b) { return waiting(a) > waiting(b); });
        }
        auto balanced = BalanceLeases({}, /*take=*/false, {}, not_started);
        if (!balanced.ok()) {
          failed = balanced.status();
          tables_halted = true;
          break;
        }
        gained_meanwhile.insert(balanced->begin(), balanced->end());
        if (!Holds(name) || gained_meanwhile.count(name) > 0) continue;
      }
      ++tables_in_flight;
      Status applied = ApplyTable(name, stop, summary, state);
      --tables_in_flight;
      if (!applied.ok()) {
        if (failed.ok()) failed = applied;
        tables_halted = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int slot = 1; slot < slots; ++slot) helpers.emplace_back(apply_tables);
  apply_tables();
  for (std::thread& helper : helpers) helper.join();
  return failed;
}

Status Pipeline::Impl::ApplyTable(const std::string& name, const std::atomic<bool>& stop, RunSummary& summary,
                                  std::unique_lock<std::mutex>& state) {
  Status processed = ProcessTable(name, stop, summary, state);
  if (processed.kind() == ErrorKind::kFenced) {
    // Another worker took the table over: its batch is the new owner's to resolve.
    Log("scale-out: table " + name + ": " + processed.message());
    ingestors.erase(name);
    return Status::OK();
  }
  FLOE_RETURN_IF_ERROR(processed);
  aggregates_checked.insert(name);  // its batches caught its aggregates up first
  // --once: the table is done for this run. Its key index finishes the
  // merges that are due (a short-lived process would otherwise leave one
  // more run per commit), then the ingestor goes, so it does not add to the
  // next table's peak memory. Maintenance runs inline in --once: nothing
  // else touches the table's state meanwhile.
  if (!continuous) {
    if (auto done = ingestors.find(name); done != ingestors.end()) {
      TableIngestor& ingestor = *done->second;
      state.unlock();  // the ingestor's own work
      std::vector<std::string> warnings = ingestor.FinishIndexWork();
      state.lock();
      for (const std::string& warning : warnings) Log("warning: " + name + ": " + warning);
      ingestors.erase(name);
    }
  }
  return Status::OK();
}

Result<RunSummary> Pipeline::Impl::RunOnce(const std::atomic<bool>& stop) {
  state_failed = false;
  held_work_last_poll = true;  // until this poll knows better
  RunSummary summary;
  std::set<std::string> blocked;
  const double start_ms = PipelineTrace::NowMs();
  // Scale-out: open batches are resolved only once the leases say whose they are.
  if (!leases) FLOE_RETURN_IF_ERROR(Recover(summary, blocked));
  summary.config_path = config.config_path;

  const double discover_start_ms = PipelineTrace::NowMs();
  auto discovered = DiscoverWithWatermarks();
  if (!discovered.ok()) {
    if (options.metrics) options.metrics->PollDone(false, discovered.status().ToString(), NowMs());
    return discovered.status();
  }
  DiscoveryResult discovery = std::move(discovered).value();
  if (leases) {
    FLOE_ASSIGN_OR_RETURN(bool gained, TakeLeasedTables(discovery));
    // A stream's ranges of tables just taken over continue after what the
    // ledger holds NOW (the previous owner recorded more since this process
    // loaded its ends): discover them again. Files need not: watermarks from
    // an earlier poll are only older, and recording a known file again
    // changes nothing; the gained tables' watermarks are reloaded next poll.
    if (gained && source.discovery->finds_streams() && !stream_ends_loaded_this_poll) {
      auto again = DiscoverWithWatermarks();
      if (!again.ok()) {
        if (options.metrics) options.metrics->PollDone(false, again.status().ToString(), NowMs());
        return again.status();
      }
      discovery = std::move(again).value();
      KeepHeldTables(discovery);
    }
    FLOE_RETURN_IF_ERROR(Recover(summary, blocked));
  }
  const double discover_end_ms = PipelineTrace::NowMs();
  if (options.metrics && source.discovery->finds_streams()) {
    if (!stream_positions_loaded) {
      FLOE_ASSIGN_OR_RETURN(stream_positions, Ledgered(ledger->StreamPositions()));
      stream_positions_loaded = true;
    }
    stream_marks = discovery.stream_marks;
  }
  for (const std::string& warning : discovery.warnings) Log("warning: " + warning);
  summary.more_ready = discovery.more_ready;
  summary.settling_files = discovery.settling.files;
  summary.settling_first_ms = discovery.settling.first_eligible_ms;
  summary.settling_last_ms = discovery.settling.last_eligible_ms;
  summary.settle_ms = config.source.settle_ms;
  if (discovery.settling.files > 0 && (options.verbose || discovery.settling.files != last_settling_files)) {
    Log(FormatThousands(discovery.settling.files) +
        (discovery.settling.files == 1 ? " file is" : " files are") + " settling ([source] settle = " +
        FormatSeconds(static_cast<double>(config.source.settle_ms) / 1000.0) + "): taken from " +
        FormatUtcMillis(discovery.settling.first_eligible_ms) +
        (discovery.settling.files == 1 ? "" : " to " + FormatUtcMillis(discovery.settling.last_eligible_ms)));
  }
  last_settling_files = discovery.settling.files;
  const std::set<std::string> previously_stopped = std::exchange(stopped_by_discovery, {});
  for (const auto& [name, message] : discovery.table_errors) {
    TableRunSummary& table_summary = summary.tables[name];
    if (auto id = TargetOf(name); id.ok()) table_summary.table = id->ToString();
    table_summary.error = message;
    Log("table " + name + ": " + message);
    blocked.insert(name);
    stopped_by_discovery.insert(name);
    FLOE_RETURN_IF_ERROR(SetCondition(name, kTableStopped, message));
  }
  // Source tables whose names differ only in case (CC_EXPOSURE, cc_exposure)
  // or that [tables.*] target_table maps together would merge into one
  // target: every one of them waits, with a message, instead.
  {
    std::set<std::string> sources(discovery.tables.begin(), discovery.tables.end());
    for (const SourceUnit& file : discovery.files) sources.insert(file.table);
    std::map<std::string, std::vector<std::string>> by_target;
    for (const std::string& name : sources) {
      if (auto id = TargetOf(name); id.ok()) by_target[id->ToString()].push_back(name);
    }
    for (const auto& [target, names] : by_target) {
      if (names.size() < 2) continue;
      std::string listed;
      for (size_t i = 0; i < names.size(); ++i) {
        listed += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
      }
      const std::string message = "source tables " + listed + " would all write " + target +
                                  " (target names are the source names lower-cased): their files wait. Give "
                                  "each its own [tables.<source table>] target_table, or exclude one";
      for (const std::string& name : names) {
        TableRunSummary& table_summary = summary.tables[name];
        table_summary.table = target;
        table_summary.error = message;
        if (blocked.insert(name).second) {
          Log("table " + name + ": " + message);
          stopped_by_discovery.insert(name);
          FLOE_RETURN_IF_ERROR(SetCondition(name, kTableStopped, message));
        }
      }
    }
  }
  // A table discovery stopped before and no longer stops goes on.
  for (const std::string& name : previously_stopped) {
    if (stopped_by_discovery.count(name) == 0 && Holds(name)) FLOE_RETURN_IF_ERROR(ClearCondition(name));
  }
  for (const std::string& name : discovery.reset_tables) {
    if (blocked.count(name) == 0) FLOE_RETURN_IF_ERROR(ResetTable(name));
  }

  std::vector<SourceUnit> record;
  record.reserve(discovery.files.size());
  for (SourceUnit& file : discovery.files) {
    if (blocked.count(file.table) == 0) record.push_back(std::move(file));
  }
  // An idle poll writes nothing: no empty transaction, no unchanged
  // watermark rewritten (each a synchronous SQLite commit).
  Ledger::DiscoverResult recorded;
  if (!record.empty()) {
    FLOE_ASSIGN_OR_RETURN(recorded, Ledgered(ledger->RecordDiscovered(record, NowMs())));
  }
  if (!record.empty() && stream_ends_loaded) {
    // What the next poll continues after (the ledger now holds these ranges).
    for (const SourceUnit& unit : record) {
      if (unit.kind != UnitKind::kStreamRange) continue;
      std::string& end = stream_ends[{unit.range.stream, unit.range.partition}];
      if (end.empty() || ComparePositions(unit.range.last, end) > 0) end = unit.range.last;
      if (stream_positions_loaded)
        stream_positions[{unit.range.stream, unit.range.partition}].recorded_last = end;
    }
  }
  for (const std::string& uri : recorded.changed_after_ingest) {
    Log("warning: " + uri + " changed after it was ingested; the change is ignored");
  }
  for (const std::string& uri : recorded.changed_after_skip) {
    Log("warning: " + uri + " changed after it was skipped (`floe files --skip`); it stays skipped until " +
        "`floe files " + config.config_path + " --retry " + uri + "`");
  }
  for (const auto& [uri, reason] : recorded.requeued) {
    Log(uri + " was quarantined (" + reason + ") and has changed since: it is taken again");
  }
  std::vector<TableWatermark> moved_watermarks;
  for (const TableWatermark& watermark : discovery.new_watermarks) {
    if (blocked.count(watermark.table) > 0) continue;
    if (auto stored = watermarks.find(watermark.table);
        stored == watermarks.end() ||
        stored->second.last_successful_write_ms != watermark.last_successful_write_ms ||
        stored->second.fingerprints != watermark.fingerprints) {
      moved_watermarks.push_back(watermark);
    }
    watermark_checked.insert(watermark.table);
  }
  FLOE_RETURN_IF_ERROR(Ledgered(ledger->SetWatermarks(moved_watermarks)));
  for (const TableWatermark& watermark : moved_watermarks) watermarks[watermark.table] = watermark;

  FLOE_RETURN_IF_ERROR(SettleNotifications());

  if (options.metrics) {
    options.metrics->PollDone(true, "", NowMs());
    PublishStreamLag();
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> with_work, Ledgered(ledger->TablesWithWork()));
  trace->Write("poll", {{"start", start_ms},
                        {"recover_ms", discover_start_ms - start_ms},
                        {"discover_ms", discover_end_ms - discover_start_ms},
                        {"record_ms", PipelineTrace::NowMs() - discover_end_ms},
                        {"listed_files", static_cast<int64_t>(record.size())},
                        {"new_files", recorded.new_files},
                        {"tables_with_work", static_cast<int64_t>(with_work.size())}});
  held_work_last_poll = std::any_of(with_work.begin(), with_work.end(), [&](const std::string& name) {
    return blocked.count(name) == 0 && Holds(name);
  });
  // Scale-out: work of its own again; a worker busy with it is not offered more.
  if (leases && held_work_last_poll) {
    if (Status taken_back = leases->SetWantsWork(false); !taken_back.ok())
      Log("warning: scale-out: " + taken_back.ToString() + " (it may be handed a table it starts next poll)");
  }
  FLOE_RETURN_IF_ERROR(ApplyTables(with_work, blocked, stop, summary));
  // Aggregates a crash left behind their table (between the table's commit
  // and theirs) catch up once per process, also where no new file came.
  for (const AggregateConfig& aggregate : config.aggregates) {
    const std::string& name = aggregate.table;
    if (stop.load() || blocked.count(name) > 0 || !Holds(name)) continue;
    if (!aggregates_checked.insert(name).second) continue;
    auto target = TargetOf(name);
    if (!target.ok()) continue;
    std::unique_lock<std::mutex> held = LockTable(target->ToString());
    auto ingestor = IngestorFor(name);
    if (!ingestor.ok()) {
      Log("warning: " + name + ": aggregates: " + ingestor.status().ToString());
      continue;
    }
    for (const std::string& warning : (*ingestor)->CatchUpAggregates())
      Log("warning: " + name + ": " + warning);
    CountAggregateLateChanges(name, **ingestor);
    if (!continuous) ingestors.erase(name);
  }
  // --once: what stays set aside from earlier runs (this run's quarantines
  // are in the table rows). Continuous polls skip the query.
  if (continuous) return summary;
  LedgerFilter quarantined;
  quarantined.state = FileState::kQuarantined;
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerFile> set_aside, Ledgered(ledger->Files(quarantined)));
  int64_t this_run = 0;
  for (const auto& [name, table] : summary.tables) this_run += table.quarantined;
  summary.earlier_quarantined = std::max<int64_t>(0, static_cast<int64_t>(set_aside.size()) - this_run);
  return summary;
}

Pipeline::Pipeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pipeline::~Pipeline() {
  // A clean stop hands the tables over now rather than after lease_timeout.
  if (impl_ && impl_->leases) {
    impl_->worker.reset();
    impl_->ingestors.clear();
    if (Status left = impl_->leases->Leave(); !left.ok())
      impl_->Log("scale-out: leaving: " + left.ToString() +
                 " (the tables are free after [state] lease_timeout)");
  }
}

Result<std::unique_ptr<Pipeline>> Pipeline::Open(PipelineConfig config, PipelineOptions options) {
  if (config.name.empty()) return Status::InvalidArgument("the pipeline has no name");
  if (config.state_dir.empty())
    return Status::InvalidArgument("pipeline " + config.name + " has no state dir");
  auto impl = std::make_unique<Impl>();
  impl->reporter = std::make_unique<ProgressReporter>(options.log != nullptr ? *options.log : std::cerr,
                                                      options.progress_bar);
  std::string trace_path = options.trace_path;
  if (trace_path.empty()) {
    if (const char* from_env = std::getenv(kPipelineTraceEnv); from_env != nullptr) trace_path = from_env;
  }
  auto trace = PipelineTrace::Open(trace_path);
  if (!trace.ok()) return trace.status();
  impl->trace = std::move(*trace);
  impl->reporter->SetTrace(impl->trace.get());
  impl->reporter->SetTimestamps(options.timestamps || options.verbose);
  impl->options = options;
  if (!impl->options.maintain) impl->options.maintain = ConfiguredMaintenance(config.maintenance);

  std::error_code ec;
  std::filesystem::create_directories(config.state_dir, ec);
  if (ec) return Status::IOError("cannot create the state dir " + config.state_dir + ": " + ec.message());
  auto ledger = Ledger::Open(PipelineLedgerOptions(config));
  if (!ledger.ok()) return ledger.status().WithContext("ledger " + PipelineLedgerName(config));
  impl->ledger = std::move(*ledger);
  if (!config.state_uri.empty()) {
    // Scale-out: every `floe run` of the pipeline is a worker that commits
    // only the tables it holds (worker_leases.h, docs/scale-out.md).
    auto leases = WorkerLeases::Join({config.state_uri, config.name, config.lease_timeout_ms});
    if (!leases.ok()) return leases.status().WithContext("ledger " + PipelineLedgerName(config));
    impl->leases = std::move(*leases);
    impl->lease_guard = std::make_shared<LeaseGuard>(*impl->leases, config.state_uri);
    config.catalog.commit_guard = impl->lease_guard;
    Impl* raw = impl.get();
    FLOE_RETURN_IF_ERROR(
        impl->ledger->SetFence([raw](const std::string& source_table) -> std::optional<TableLease> {
          return raw->LeaseOf(source_table);
        }));
    impl->leases->StartHeartbeats(std::max<int64_t>(config.lease_timeout_ms / 3, 1000));
    impl->Log("scale-out: worker " + impl->leases->worker_id() + " joined pipeline " + config.name +
              " (ledger " + PipelineLedgerName(config) + ", [state] lease_timeout = " +
              FormatSeconds(static_cast<double>(config.lease_timeout_ms) / 1000.0) + ")");
  }
  auto conditions = impl->ledger->TableConditions();
  if (!conditions.ok()) return conditions.status().WithContext("ledger " + PipelineLedgerName(config));
  for (const auto& [table, condition] : *conditions) {
    impl->conditions[table] = {condition.state, condition.reason};
  }
  if (options.log_format == LogFormat::kJson) impl->reporter->SetJson(config.name);

  auto source = OpenSource(config.source, config.s3, config.performance.memory_budget_bytes, config.trigger,
                           options.wrap_file_io);
  if (!source.ok()) return source.status();
  impl->source = std::move(*source);

  if (options.wrap_file_io) config.catalog.wrap_io = options.wrap_file_io;
  auto tables = catalog::OpenCatalog(config.catalog);
  if (!tables.ok()) return tables.status();
  // The tables of a poll are applied in parallel, sharing the catalog.
  impl->tables = catalog::SerializeCatalog(std::move(*tables));
  impl->state_io = MakeLocalFileIO();
  if (options.wrap_file_io) impl->state_io = options.wrap_file_io(impl->state_io);
  impl->config = std::move(config);
  if (impl->options.metrics) {
    for (const auto& [table, condition] : impl->conditions) {
      impl->options.metrics->TableCondition(impl->MetricsTable(table), condition.first, condition.second);
    }
  }
  return std::unique_ptr<Pipeline>(new Pipeline(std::move(impl)));
}

Result<RunSummary> Pipeline::RunOnce() {
  const std::atomic<bool> never{false};
  FLOE_ASSIGN_OR_RETURN(RunSummary total, impl_->RunOnce(never));
  // A stream discovery that stopped at its bound (a backlog larger than it
  // holds at once): read on while batches commit, until the source is caught up.
  bool again = total.more_ready && total.batches_committed > 0;
  while (again) {
    FLOE_ASSIGN_OR_RETURN(RunSummary next, impl_->RunOnce(never));
    again = next.more_ready && next.batches_committed > 0;
    total.Add(next);
  }
  return total;
}

Result<RunSummary> Pipeline::Run(const std::atomic<bool>& stop) {
  Impl& impl = *impl_;
  impl.continuous = true;
  impl.source.opener->SetStopFlag(&stop);
  impl.source.discovery->SetStopFlag(&stop);
  impl.reporter->SetTimestamps(true);  // a long-running log needs its times
  if (impl.options.maintain && impl.config.maintenance.enabled) {
    // Its own catalog connection: catalogs are not thread-safe, and its
    // transactions must not interleave with the loop's.
    impl.worker = std::make_unique<MaintenanceWorker>(
        impl.options.maintain, [config = impl.config] { return catalog::OpenCatalog(config.catalog); },
        impl.table_locks, *impl.trace, impl.options.metrics.get());
  }
  RunSummary total;
  bool worked_since_idle = false;
  Status state_error;
  while (!stop.load()) {
    const auto poll_started = std::chrono::steady_clock::now();
    const ProcessUsage before = impl.trace->enabled() ? CurrentProcessUsage() : ProcessUsage{};
    auto run = impl.RunOnce(stop);
    bool committed = false;
    if (run.ok()) {
      if (!run->tables.empty()) {
        impl.Log(run->Format());
      } else if (impl.options.verbose) {
        impl.Log("idle: nothing to ingest from " + impl.config.source.uri + "; next poll in " +
                 FormatSeconds(static_cast<double>(impl.config.trigger.interval_ms) / 1000.0));
      }
      total.Add(*run);
      committed = run->batches_committed > 0;
    } else if (impl.state_failed && !run.status().retryable()) {
      // A ledger that cannot be trusted ends the run; a lost connection to a
      // PostgreSQL ledger is retried like a catalog error (the next poll
      // reconnects and recovers the open batches).
      state_error = run.status();
    } else {
      impl.Log("run failed: " + run.status().ToString() + "; trying again in " +
               FormatSeconds(static_cast<double>(impl.config.trigger.interval_ms) / 1000.0));
    }
    impl.LogWorkerMessages();
    // New data first: after a poll of files that committed, look again at
    // once. A stream poll applies everything up to the watermarks it saw, so
    // the next one waits for the interval (counted from this poll's start)
    // unless this one took the whole interval (a backlog): a steady stream
    // commits about once per interval, not once per fetch. Due maintenance
    // goes to the worker when the loop waits (a table with files still
    // pending would make its compaction give up).
    const bool poll_again = state_error.ok() && committed &&
                            (!impl.source.discovery->finds_streams() || run->more_ready ||
                             std::chrono::steady_clock::now() - poll_started >=
                                 std::chrono::milliseconds(impl.config.trigger.interval_ms));
    if (!poll_again && state_error.ok() && run.ok() && !stop.load()) impl.SubmitDueMaintenance();
    // Scale-out: nothing waits in this worker's tables and no maintenance
    // runs on them, so it says it wants work (until a poll finds work of its
    // own): a busy worker may hand it a table it has not started.
    if (impl.leases && !poll_again && state_error.ok() && run.ok() && !stop.load() &&
        !impl.held_work_last_poll && impl.maintenance_due.empty() && (!impl.worker || impl.worker->Idle())) {
      if (Status wished = impl.leases->SetWantsWork(true); !wished.ok())
        impl.Log("warning: scale-out: " + wished.ToString() +
                 " (this worker is not offered work until it works)");
    }
    worked_since_idle = worked_since_idle || committed;
    bool trimmed = false;
    if (!poll_again && worked_since_idle) {
      // The batches' buffers were freed, but malloc keeps the pages: give them back while idle.
      trimmed = ReleaseFreeHeapMemory();
      worked_since_idle = false;
    }
    if (impl.trace->enabled()) {
      const ProcessUsage after = CurrentProcessUsage();
      impl.trace->Write("iteration", {{"ms", static_cast<double>(MillisSince(poll_started))},
                                      {"batches", run.ok() ? run->batches_committed : int64_t{0}},
                                      {"ok", run.ok()},
                                      {"poll_again", poll_again},
                                      {"cpu_ms", after.cpu_ms - before.cpu_ms},
                                      {"trimmed", trimmed},
                                      {"rss_bytes", after.rss_bytes},
                                      {"heap_in_use_bytes", after.heap_in_use_bytes},
                                      {"heap_free_bytes", after.heap_free_bytes}});
    }
    if (!state_error.ok()) break;
    if (poll_again) continue;
    // The interval counts from the start of the previous poll; the wait is
    // cut in steps (a listing's 100 ms, a long poll that a stop abandons) so
    // a stop request is honoured promptly, and a notification discovery
    // ends it as soon as files are announced.
    const auto wake = poll_started + std::chrono::milliseconds(impl.config.trigger.interval_ms);
    impl.trace->Write("sleep", {{"ms", static_cast<double>(std::max<int64_t>(
                                           0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  wake - std::chrono::steady_clock::now())
                                                  .count()))}});
    while (!stop.load() && std::chrono::steady_clock::now() < wake) {
      // Scale-out: another worker handed this idle one a table (seen by the
      // heartbeat): poll at once. (Listing discovery returns every 100 ms.)
      const bool notified = impl.source.discovery->WaitForNotifications(wake, stop);
      impl.LogWorkerMessages();
      if (notified || (impl.leases && impl.leases->TakeHandedWorkSignal())) break;
    }
  }
  if (impl.worker != nullptr) {
    impl.worker->Stop();
    impl.LogWorkerMessages();
    impl.worker.reset();
  }
  impl.maintenance_due.clear();
  impl.continuous = false;
  impl.source.opener->SetStopFlag(nullptr);
  impl.source.discovery->SetStopFlag(nullptr);
  if (!state_error.ok()) return state_error;
  return total;
}

Ledger& Pipeline::ledger() {
  return *impl_->ledger;
}
catalog::Catalog& Pipeline::table_catalog() {
  return *impl_->tables;
}
const PipelineConfig& Pipeline::config() const {
  return impl_->config;
}
Result<catalog::TableIdentifier> Pipeline::TargetOf(const std::string& source_table) const {
  return impl_->TargetOf(source_table);
}

}  // namespace floe::ingest
