#include "catalog/rest/open_any_catalog.h"

#include <cstdlib>

#include "catalog/rest/rest_catalog.h"

namespace floe::catalog {

Result<std::unique_ptr<TableCatalog>> OpenAnyCatalog(const std::string& uri, const std::string& warehouse,
                                                     std::shared_ptr<FileIO> io,
                                                     const std::string& catalog_name,
                                                     const rest::RestCatalogOptions* rest_options) {
  if (!rest::IsRestCatalogUri(uri)) return OpenCatalog(uri, warehouse, std::move(io), catalog_name);
  rest::RestCatalogOptions options;
  if (rest_options != nullptr) {
    options = *rest_options;
  } else {
    if (const char* token = std::getenv("FLOE_CATALOG_TOKEN"); token && *token) options.token = token;
    if (const char* credential = std::getenv("FLOE_CATALOG_CREDENTIAL"); credential && *credential) {
      options.credential = credential;
    }
  }
  options.uri = uri;
  if (!warehouse.empty()) options.warehouse = warehouse;
  FLOE_ASSIGN_OR_RETURN(auto catalog, rest::RestCatalog::Open(options, std::move(io)));
  return std::unique_ptr<TableCatalog>(std::move(catalog));
}

}  // namespace floe::catalog
