#include "iceberg/transaction/table.h"

namespace floe::iceberg {

Result<Table> Table::Load(std::shared_ptr<TableOperations> ops) {
  if (ops == nullptr) return Status::InvalidArgument("table operations must not be null");
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, ops->Load());
  return Table(std::move(ops), std::move(loaded));
}

Status Table::Refresh() {
  FLOE_ASSIGN_OR_RETURN(current_, ops_->Load());
  return Status::OK();
}

}  // namespace floe::iceberg
