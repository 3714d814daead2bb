#include "catalog/rest_server/service_responses.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "aws/digest.h"
#include "catalog/rest/rest_protocol.h"

namespace floe::catalog::rest::internal {

using iceberg::OrderedJson;

namespace {
constexpr int kMaxJsonDepth = 100;
}  // namespace

ServiceResponse JsonResponse(int status, const OrderedJson& json) {
  // Replacement characters instead of an exception for invalid UTF-8 echoed from a request.
  return {status, json.dump(-1, ' ', false, OrderedJson::error_handler_t::replace), "application/json", {}};
}

ServiceResponse NoContent() {
  return {204, "", "application/json", {}};
}

ServiceResponse ErrorResponse(int status, std::string_view type, std::string_view message) {
  return JsonResponse(status, ErrorJson(status, type, message));
}

const char* ErrorTypeFor(int status) {
  switch (status) {
    case 408: return "RequestTimeoutException";
    case 413: return "RequestTooLargeException";
    case 500: return "InternalServerError";
    case 501: return "NotImplementedException";
    case 503: return "ServiceUnavailableException";
    default: return "BadRequestException";
  }
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
    case ErrorKind::kNotSupported: return ErrorResponse(501, "NotImplementedException", status.message());
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
  // A staged table has no metadata file yet.
  if (!loaded.metadata_location.empty()) json["metadata-location"] = loaded.metadata_location;
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

Result<std::map<std::string, std::string>> ParseForm(const std::string& body) {
  std::map<std::string, std::string> out;
  auto decode = [](std::string text) {
    for (char& c : text) {
      if (c == '+') c = ' ';
    }
    return PercentDecode(text);
  };
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string::npos) end = body.size();
    std::string pair = body.substr(start, end - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      FLOE_ASSIGN_OR_RETURN(std::string key, decode(pair.substr(0, eq)));
      FLOE_ASSIGN_OR_RETURN(std::string value, decode(eq == std::string::npos ? "" : pair.substr(eq + 1)));
      out[key] = value;
    }
    start = end + 1;
  }
  return out;
}

Result<PageRequest> ParsePageRequest(const std::map<std::string, std::string>& query) {
  PageRequest out;
  auto token = query.find("pageToken");
  out.paged = token != query.end();
  if (out.paged && !token->second.empty()) {
    const std::string& hex = token->second;
    if (hex.size() % 2 != 0)
      return Status::InvalidArgument("pageToken '" + hex + "' was not issued by this server");
    for (size_t i = 0; i < hex.size(); i += 2) {
      uint8_t byte = 0;
      auto [ptr, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16);
      if (ec != std::errc() || ptr != hex.data() + i + 2) {
        return Status::InvalidArgument("pageToken '" + hex + "' was not issued by this server");
      }
      out.after += static_cast<char>(byte);
    }
  }
  if (auto size = query.find("pageSize"); size != query.end()) {
    const std::string& text = size->second;
    long long value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value < 1) {
      return Status::InvalidArgument("pageSize must be a positive integer, got '" + text + "'");
    }
    out.size = static_cast<size_t>(std::min<long long>(value, kMaxPageSize));
  }
  return out;
}

Page SelectPage(const std::vector<std::string>& keys, const PageRequest& request) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  Page page;
  if (!request.paged) {
    page.indexes = std::move(order);
    return page;
  }
  auto first = order.begin();
  if (!request.after.empty()) {
    first = std::upper_bound(order.begin(), order.end(), request.after,
                             [&](const std::string& after, size_t i) { return after < keys[i]; });
  }
  const size_t available = static_cast<size_t>(order.end() - first);
  const size_t count = std::min(available, request.size);
  page.indexes.assign(first, first + static_cast<std::ptrdiff_t>(count));
  if (count < available) {
    const std::string& last = keys[page.indexes.back()];
    page.next_token = aws::LowerHex({reinterpret_cast<const uint8_t*>(last.data()), last.size()});
  }
  return page;
}

}  // namespace floe::catalog::rest::internal
