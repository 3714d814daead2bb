#include "ingest/changes/change_convention.h"

#include "ingest/changes/columns_changes.h"
#include "ingest/changes/debezium_changes.h"
#include "ingest/changes/table_changes.h"

namespace floe::ingest {

Result<std::unique_ptr<ChangeConvention>> MakeChangeConvention(const TableSettings& settings) {
  if (settings.merge.mode == WriteMode::kAppend || settings.changes == ChangeKind::kAppend) {
    return std::unique_ptr<ChangeConvention>(new AppendChanges(settings.merge));
  }
  if (settings.changes == ChangeKind::kDebezium) {
    return std::unique_ptr<ChangeConvention>(new DebeziumChanges(settings.merge));
  }
  if (settings.changes == ChangeKind::kTableChanges) {
    return std::unique_ptr<ChangeConvention>(new TableChanges(settings.merge));
  }
  // "cda", "columns" and "dms" differ only in their [merge] defaults.
  return std::unique_ptr<ChangeConvention>(
      new ColumnsChanges(ChangeKindName(settings.changes), settings.merge));
}

}  // namespace floe::ingest
