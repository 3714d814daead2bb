// Internal to the REST catalog server: building the spec's answers
// (IcebergErrorResponse bodies) and parsing request bodies defensively.
//
// Contract: FromStatus maps a catalog Status onto the spec's status codes and
// exception type names; ParseRequestBody accepts only a JSON object nesting
// at most 100 levels, so no later recursive walk can run out of stack.
#pragma once

#include <string>
#include <string_view>

#include "catalog/metastore.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::catalog::rest::internal {

ServiceResponse JsonResponse(int status, const iceberg::OrderedJson& json);
ServiceResponse NoContent();
ServiceResponse ErrorResponse(int status, std::string_view type, std::string_view message);
ServiceResponse BadRequest(const std::string& message);
// `not_found_type` names what was missing ("NoSuchTableException").
ServiceResponse FromStatus(const Status& status, std::string_view not_found_type);
// The LoadTableResult of a table: metadata-location, metadata, config.
ServiceResponse LoadResultResponse(const iceberg::LoadedTable& loaded);

Result<iceberg::Json> ParseRequestBody(const std::string& body);

// A non-empty namespace whose levels and table name pass ValidateName.
Status ValidateIdentifier(const TableIdentifier& id);

}  // namespace floe::catalog::rest::internal
