#include "ingest/stream/table_changes_discovery.h"

#include <algorithm>
#include <charconv>

#include "catalog/metastore.h"
#include "catalog/open/open_catalog.h"
#include "iceberg/scan/changelog_scan.h"
#include "iceberg/spec/snapshot_ancestry.h"

namespace floe::ingest {

namespace {

std::optional<int64_t> ParseSequence(const std::string& text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::string Described(const iceberg::Snapshot& snapshot) {
  return "snapshot " + std::to_string(snapshot.snapshot_id) + " (sequence number " +
         std::to_string(snapshot.sequence_number) + ")";
}

}  // namespace

std::string FeedTableName(const std::string& qualified) {
  const size_t dot = qualified.rfind('.');
  return dot == std::string::npos ? qualified : qualified.substr(dot + 1);
}

Result<std::shared_ptr<FeedTables>> FeedTables::Open(const catalog::CatalogOptions& options) {
  catalog::CatalogOptions existing = options;
  existing.create_if_missing = false;
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> opened, catalog::OpenCatalog(existing));
  return std::shared_ptr<FeedTables>(new FeedTables(std::shared_ptr<catalog::Catalog>(std::move(opened))));
}

Result<FeedTables::Loaded> FeedTables::Load(const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(name));
  std::shared_ptr<iceberg::TableOperations> ops;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RETURN(ops, catalog_->LoadTable(id));
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, ops->Load());
  Loaded out;
  out.metadata = std::move(loaded.metadata);
  // The FileIO lives as long as the table operations (and they the catalog).
  auto keep_alive = std::make_shared<
      std::pair<std::shared_ptr<catalog::Catalog>, std::shared_ptr<iceberg::TableOperations>>>(catalog_, ops);
  out.io = std::shared_ptr<FileIO>(keep_alive, &ops->io());
  return out;
}

Result<std::vector<const iceberg::Snapshot*>> FeedCommitsAfter(const iceberg::TableMetadata& metadata,
                                                               const std::string& table,
                                                               std::optional<int64_t> after) {
  std::vector<const iceberg::Snapshot*> commits;
  const std::vector<const iceberg::Snapshot*> history = iceberg::CurrentAncestors(metadata);
  if (history.empty()) return commits;
  if (metadata.format_version < 2) {
    return Status::InvalidArgument("source table " + table +
                                   " is format version 1: its commits have no sequence numbers, which a "
                                   "change-feed source is positioned by (upgrade it to version 2)");
  }
  const iceberg::Snapshot& current = *history.front();
  if (after && current.sequence_number < *after) {
    return Status::InvalidArgument(
        "source table " + table + " is at " + Described(current) +
        ", but floe already read its changes up to "
        "sequence number " +
        std::to_string(*after) +
        ": the table was dropped and re-created or replaced. floe does not guess which changes are new; to "
        "read it from its start again, drop the target table and remove the state dir");
  }
  for (const iceberg::Snapshot* snapshot : history) {
    if (after && snapshot->sequence_number <= *after) {
      if (snapshot->sequence_number == *after) break;
      return Status::InvalidArgument(
          "source table " + table +
          ": the history of its current snapshot no longer holds the commit with "
          "sequence number " +
          std::to_string(*after) + " that floe read up to (it goes from " + Described(*commits.back()) +
          " to " + Described(*snapshot) +
          "): the table was rolled back or replaced; floe does not guess which changes are new");
    }
    commits.push_back(snapshot);
  }
  const iceberg::Snapshot& oldest = commits.empty() ? current : *commits.back();
  const bool reached = commits.size() < history.size() || (!after && !oldest.parent_snapshot_id);
  if (!commits.empty() && !reached) {
    const std::string from = after ? "sequence number " + std::to_string(*after) : "its first snapshot";
    return Status::InvalidArgument(
        "source table " + table + ": snapshot " + std::to_string(oldest.parent_snapshot_id.value_or(0)) +
        ", the parent of its oldest " + Described(oldest) +
        ", was expired before floe read its changes (read up to " + from +
        "); the changes in between are gone. Keep snapshots until the feed's pipelines read them, or "
        "drop the target table and remove the state dir to start over");
  }
  std::reverse(commits.begin(), commits.end());
  return commits;
}

std::vector<std::string> TableChangesDiscovery::KeyColumnsOf(const std::string& table) const {
  auto it = keys_.find(table);
  return it == keys_.end() ? std::vector<std::string>{} : it->second;
}

Result<DiscoveryResult> TableChangesDiscovery::Discover(
    const std::map<std::string, TableWatermark>& watermarks, int64_t now_ms) {
  (void)watermarks;
  DiscoveryResult result;
  for (const std::string& qualified : tables_) {
    const std::string table = FeedTableName(qualified);
    result.tables.push_back(table);
    auto loaded = source_->Load(qualified);
    if (!loaded.ok() && loaded.status().kind() == ErrorKind::kNotFound) {
      result.warnings.push_back("source table " + qualified +
                                " does not exist (yet); its changes are read "
                                "once it does");
      continue;
    }
    if (!loaded.ok()) return loaded.status().WithContext("source table " + qualified);
    const iceberg::TableMetadata& metadata = loaded->metadata;
    if (const iceberg::Schema* schema = metadata.CurrentSchema()) {
      keys_[table] = iceberg::DefaultChangeKeyColumns(metadata, *schema);
    }
    const auto key = std::make_pair(qualified, std::string(kTableChangesPartition));
    std::optional<int64_t> after;
    if (auto end = ends_.find(key); end != ends_.end()) {
      after = ParseSequence(end->second);
      if (!after) {
        result.table_errors[table] = "the ledger's last position of source table " + qualified + " is \"" +
                                     end->second + "\", not a sequence number";
        continue;
      }
    }
    auto commits = FeedCommitsAfter(metadata, qualified, after);
    if (!commits.ok()) {
      result.table_errors[table] = commits.status().message();
      continue;
    }
    if (const iceberg::Snapshot* current = metadata.CurrentSnapshot()) {
      const std::vector<const iceberg::Snapshot*> history = iceberg::CurrentAncestors(metadata);
      result.stream_marks.push_back({qualified, kTableChangesPartition, table,
                                     history.back()->sequence_number, current->sequence_number + 1});
    }
    for (size_t start = 0; start < commits->size(); start += commits_per_unit_) {
      const size_t end = std::min(commits->size(), start + commits_per_unit_);
      const iceberg::Snapshot& first = *(*commits)[start];
      const iceberg::Snapshot& last = *(*commits)[end - 1];
      SourceUnit unit;
      unit.kind = UnitKind::kStreamRange;
      unit.table = table;
      unit.range.stream = qualified;
      unit.range.partition = kTableChangesPartition;
      unit.range.first = std::to_string(first.sequence_number);
      unit.range.last = std::to_string(last.sequence_number);
      unit.uri = StreamRangeUri(kTableChangesScheme, unit.range);
      unit.mtime_ms = last.timestamp_ms > 0 ? last.timestamp_ms : now_ms;
      // The rows each commit added or deleted (its summary), as an estimate of the unit's bytes.
      int64_t rows = 0;
      for (size_t i = start; i < end; ++i) {
        for (const char* counted : {"added-records", "deleted-records"}) {
          auto it = (*commits)[i]->summary.find(counted);
          if (it == (*commits)[i]->summary.end()) continue;
          if (auto value = ParseSequence(it->second)) rows += *value;
        }
      }
      unit.size = std::max<int64_t>(rows, 1) * 256;
      unit.order_key = qualified + "/" + ZeroPadded(first.sequence_number, 20);
      result.files.push_back(std::move(unit));
    }
  }
  return result;
}

}  // namespace floe::ingest
