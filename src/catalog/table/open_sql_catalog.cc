#include "catalog/sql/sql_metastore.h"
#include "catalog/table/catalog.h"
#include "catalog/table/metastore_table_operations.h"

namespace floe::catalog {

Result<std::unique_ptr<Catalog>> OpenSqlCatalog(const std::string& uri, const std::string& warehouse,
                                                std::shared_ptr<FileIO> io, const std::string& catalog_name,
                                                bool create_if_missing, std::shared_ptr<CommitGuard> guard) {
  FLOE_ASSIGN_OR_RETURN(auto sql, SqlMetastore::Open(uri, catalog_name, create_if_missing));
  if (guard) sql->SetCommitGuard(std::move(guard));
  if (io == nullptr) io = MakeLocalFileIO();
  return MakeMetastoreCatalog(std::shared_ptr<Metastore>(std::move(sql)), std::move(io), warehouse);
}

}  // namespace floe::catalog
