#include "ingest/batch_recovery.h"

#include "iceberg/spec/snapshot_ancestry.h"

namespace floe::ingest {

Result<std::optional<int64_t>> FindCommittedBatch(catalog::Catalog& catalog,
                                                  const catalog::TableIdentifier& table,
                                                  const std::string& pipeline, int64_t batch_id) {
  auto ops = catalog.LoadTable(table);
  if (!ops.ok()) {
    if (ops.status().kind() == ErrorKind::kNotFound) return std::optional<int64_t>();
    return ops.status().WithContext("table " + table.ToString());
  }
  auto loaded = (*ops)->Load();
  if (!loaded.ok()) return loaded.status().WithContext("table " + table.ToString());
  const iceberg::TableMetadata& metadata = loaded->metadata;
  const std::string wanted_batch = std::to_string(batch_id);
  for (const iceberg::Snapshot* snapshot : iceberg::CurrentAncestors(metadata)) {
    auto pipeline_value = snapshot->summary.find(kSummaryPipeline);
    auto batch_value = snapshot->summary.find(kSummaryBatchId);
    if (pipeline_value != snapshot->summary.end() && pipeline_value->second == pipeline &&
        batch_value != snapshot->summary.end() && batch_value->second == wanted_batch) {
      return std::optional<int64_t>(snapshot->snapshot_id);
    }
  }
  return std::optional<int64_t>();
}

}  // namespace floe::ingest
