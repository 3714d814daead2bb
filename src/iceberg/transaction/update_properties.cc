#include "iceberg/transaction/update_properties.h"

#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {

Result<std::map<std::string, std::string>> UpdateProperties::Commit() {
  for (const auto& key : removals_) {
    if (updates_.count(key)) return Status::InvalidArgument("property '" + key + "' is both set and removed");
  }
  if (updates_.empty() && removals_.empty()) return table_.metadata().properties;
  auto attempt = [&](const LoadedTable& base) -> Result<LoadedTable> {
    std::vector<TableRequirement> requirements = {requirement::AssertTableUuid{base.metadata.table_uuid}};
    std::vector<TableUpdate> updates;
    if (!updates_.empty()) updates.push_back(update::SetProperties{updates_});
    if (!removals_.empty()) updates.push_back(update::RemoveProperties{removals_});
    return table_.ops().Commit(requirements, updates);
  };
  FLOE_ASSIGN_OR_RETURN(LoadedTable committed,
                        CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(), attempt));
  table_.SetCurrent(std::move(committed));
  return table_.metadata().properties;
}

}  // namespace floe::iceberg
