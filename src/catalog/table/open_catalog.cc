#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog/sql/sql_catalog.h"
#include "catalog/table/metastore_table_operations.h"
#include "catalog/table/table_catalog.h"

namespace floe::catalog {

Result<std::unique_ptr<TableCatalog>> OpenCatalog(const std::string& uri, const std::string& warehouse,
                                                  std::shared_ptr<FileIO> io,
                                                  const std::string& catalog_name) {
  if (uri.rfind("file://", 0) == 0) {
    const std::string root = LocalPathOf(uri);
    if (!warehouse.empty() && LocalPathOf(warehouse) != root) {
      return Status::InvalidArgument("the filesystem catalog " + uri +
                                     " is its own warehouse; got warehouse " + warehouse);
    }
    return OpenFilesystemCatalog(root);
  }
  if (uri.rfind("sqlite:", 0) == 0 || uri.rfind("postgresql:", 0) == 0 || uri.rfind("postgres:", 0) == 0) {
    if (warehouse.empty())
      return Status::InvalidArgument("a SQL catalog needs --warehouse for table locations");
    FLOE_ASSIGN_OR_RETURN(auto sql, SqlCatalog::Open(uri, catalog_name));
    if (io == nullptr) io = MakeLocalFileIO();
    return MakeMetastoreTableCatalog(std::shared_ptr<Catalog>(std::move(sql)), std::move(io), warehouse);
  }
  return Status::InvalidArgument("unsupported catalog URI '" + uri +
                                 "' (expected sqlite:///path, postgresql://... or file:///warehouse)");
}

}  // namespace floe::catalog
