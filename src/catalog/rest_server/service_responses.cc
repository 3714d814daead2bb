#include "catalog/rest_server/service_responses.h"

#include "catalog/rest/rest_protocol.h"

namespace floe::catalog::rest::internal {

using iceberg::OrderedJson;

namespace {
constexpr int kMaxJsonDepth = 100;
}  // namespace

ServiceResponse JsonResponse(int status, const OrderedJson& json) {
  // Replacement characters instead of an exception for invalid UTF-8 echoed from a request.
  return {status, json.dump(-1, ' ', false, OrderedJson::error_handler_t::replace), "application/json"};
}

ServiceResponse NoContent() {
  return {204, "", "application/json"};
}

ServiceResponse ErrorResponse(int status, std::string_view type, std::string_view message) {
  return JsonResponse(status, ErrorJson(status, type, message));
}

ServiceResponse BadRequest(const std::string& message) {
  return ErrorResponse(400, "BadRequestException", message);
}

ServiceResponse FromStatus(const Status& status, std::string_view not_found_type) {
  switch (status.kind()) {
    case ErrorKind::kInvalidArgument:
    case ErrorKind::kCorruption:
    case ErrorKind::kSchemaMismatch:
    case ErrorKind::kOutOfRange: return BadRequest(status.message());
    case ErrorKind::kNotFound: return ErrorResponse(404, not_found_type, status.message());
    case ErrorKind::kAlreadyExists: return ErrorResponse(409, "AlreadyExistsException", status.message());
    case ErrorKind::kCommitFailed: return ErrorResponse(409, "CommitFailedException", status.message());
    case ErrorKind::kNotSupported:
      return ErrorResponse(406, "UnsupportedOperationException", status.message());
    case ErrorKind::kCommitStateUnknown:
      return ErrorResponse(500, "CommitStateUnknownException", status.message());
    case ErrorKind::kIOError:
      if (status.retryable()) return ErrorResponse(503, "ServiceUnavailableException", status.message());
      return ErrorResponse(500, "InternalServerError", status.message());
    default: return ErrorResponse(500, "InternalServerError", status.message());
  }
}

ServiceResponse LoadResultResponse(const iceberg::LoadedTable& loaded) {
  auto metadata = iceberg::TableMetadataToJsonValue(loaded.metadata);
  if (!metadata.ok()) return ErrorResponse(500, "InternalServerError", metadata.status().message());
  OrderedJson json = OrderedJson::object();
  json["metadata-location"] = loaded.metadata_location;
  json["metadata"] = std::move(*metadata);
  json["config"] = OrderedJson::object();
  return JsonResponse(200, json);
}

Result<iceberg::Json> ParseRequestBody(const std::string& body) {
  auto json = iceberg::ParseJson(body);
  if (!json.ok())
    return Status::InvalidArgument("request body is not valid JSON: " + json.status().message());
  if (!json->is_object()) return Status::InvalidArgument("request body must be a JSON object");
  if (iceberg::JsonDeeperThan(*json, kMaxJsonDepth)) {
    return Status::InvalidArgument("request body nests deeper than " + std::to_string(kMaxJsonDepth) +
                                   " levels");
  }
  return json;
}

Status ValidateIdentifier(const TableIdentifier& id) {
  if (id.ns.empty())
    return Status::InvalidArgument("table identifier " + id.ToString() + " needs a namespace");
  for (const auto& level : id.ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace level"));
  return ValidateName(id.name, "table name");
}

}  // namespace floe::catalog::rest::internal
