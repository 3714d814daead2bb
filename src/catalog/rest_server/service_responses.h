// Internal to the REST catalog server: building the spec's answers
// (IcebergErrorResponse bodies) and parsing request bodies defensively.
//
// Contract: FromStatus maps a catalog Status onto the spec's status codes and
// exception type names; ParseRequestBody accepts only a JSON object nesting
// at most 100 levels, so no later recursive walk can run out of stack.
// Paging: a list is paged only when the request carries pageToken (empty:
// the first page); a token is the hex of the last key of the previous page,
// so pages stay consistent while names are added or removed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/metastore.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::catalog::rest::internal {

ServiceResponse JsonResponse(int status, const iceberg::OrderedJson& json);
ServiceResponse NoContent();
ServiceResponse ErrorResponse(int status, std::string_view type, std::string_view message);
// The exception type of an error the HTTP server answers by itself (408, 413, 501, 503, else 400).
const char* ErrorTypeFor(int status);
ServiceResponse BadRequest(const std::string& message);
// `not_found_type` names what was missing ("NoSuchTableException").
ServiceResponse FromStatus(const Status& status, std::string_view not_found_type);
// The LoadTableResult of a table: metadata-location (omitted when empty: a
// staged table), metadata, config.
ServiceResponse LoadResultResponse(const iceberg::LoadedTable& loaded);

Result<iceberg::Json> ParseRequestBody(const std::string& body);

// Parses application/x-www-form-urlencoded text ('+' is a space).
Result<std::map<std::string, std::string>> ParseForm(const std::string& body);

inline constexpr size_t kMaxPageSize = 1000;

struct PageRequest {
  bool paged = false;  // pageToken was given
  std::string after;   // keys <= this were on earlier pages (empty: first page)
  size_t size = kMaxPageSize;
};
// From the pageToken and pageSize query parameters; a bad token or size is InvalidArgument.
Result<PageRequest> ParsePageRequest(const std::map<std::string, std::string>& query);

struct Page {
  std::vector<size_t> indexes;            // into the keys, in key order
  std::optional<std::string> next_token;  // set when more keys follow
};
// The page of `keys` (any order, unique) that `request` asks for.
Page SelectPage(const std::vector<std::string>& keys, const PageRequest& request);

}  // namespace floe::catalog::rest::internal
