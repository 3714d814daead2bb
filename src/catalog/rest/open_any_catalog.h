// OpenAnyCatalog: every catalog floe can open, by URI — the SQL and
// filesystem catalogs of catalog::OpenCatalog plus REST catalogs.
//
// Contract: "rest+http://host:port[/path]" and "rest+https://..." open a
// RestCatalog (its GET /v1/config happens here, so an unreachable or
// unauthorized service fails now). Its settings come from `rest_options`
// when given (uri and a non-empty warehouse are taken from the arguments);
// otherwise the bearer token or client credential is read from the
// environment variables FLOE_CATALOG_TOKEN / FLOE_CATALOG_CREDENTIAL. Any
// other URI goes to catalog::OpenCatalog unchanged. The layering keeps this
// out of iceberg_catalog: REST needs HTTP and SigV4 from the s3 layer.
#pragma once

#include <memory>
#include <string>

#include "catalog/rest/rest_options.h"
#include "catalog/table/table_catalog.h"

namespace floe::catalog {

Result<std::unique_ptr<TableCatalog>> OpenAnyCatalog(const std::string& uri, const std::string& warehouse,
                                                     std::shared_ptr<FileIO> io = nullptr,
                                                     const std::string& catalog_name = "floe",
                                                     const rest::RestCatalogOptions* rest_options = nullptr);

}  // namespace floe::catalog
