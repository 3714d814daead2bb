#include "stream/schema_registry/schema_registry_client.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/base64.h"
#include "common/redaction.h"

namespace floe::schema_registry {

namespace {

constexpr int kAttempts = 3;
constexpr int64_t kFirstBackoffMs = 100;
// Registries hold thousands of schemas at most; past this the cache starts over.
constexpr size_t kMaxCachedSchemas = 10000;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '/' || s.back() == ' ')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  return s;
}

// The registry's own error text, {"error_code": 40403, "message": "..."}, if any.
std::string RegistryMessage(const std::string& body) {
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object()) {
    std::string out;
    if (auto it = json.find("error_code"); it != json.end() && it->is_number_integer()) {
      out = std::to_string(it->get<int64_t>());
    }
    if (auto it = json.find("message"); it != json.end() && it->is_string()) {
      out += (out.empty() ? "" : " ") + it->get<std::string>().substr(0, 200);
    }
    if (!out.empty()) return " (" + out + ")";
  }
  return "";
}

}  // namespace

SchemaRegistryClient::SchemaRegistryClient(const SchemaRegistryOptions& options,
                                           std::vector<std::string> urls)
    : options_(options),
      urls_(std::move(urls)),
      transport_(options.connect_timeout_ms, options.request_timeout_ms) {}

Result<std::unique_ptr<SchemaRegistryClient>> SchemaRegistryClient::Open(
    const SchemaRegistryOptions& options) {
  std::vector<std::string> urls;
  size_t start = 0;
  while (start <= options.url.size()) {
    size_t comma = options.url.find(',', start);
    if (comma == std::string::npos) comma = options.url.size();
    std::string url = Trimmed(options.url.substr(start, comma - start));
    if (!url.empty()) {
      if (!url.starts_with("http://") && !url.starts_with("https://")) {
        return Status::InvalidArgument("schema_registry \"" + RedactUri(url) +
                                       "\" is not an http:// or https:// URL");
      }
      urls.push_back(std::move(url));
    }
    start = comma + 1;
  }
  if (urls.empty()) return Status::InvalidArgument("schema_registry: no URL");
  if (options.basic_auth_user_info && options.basic_auth_user_info->find(':') == std::string::npos) {
    return Status::InvalidArgument("schema registry basic auth user info must be \"user:password\"");
  }
  return std::unique_ptr<SchemaRegistryClient>(new SchemaRegistryClient(options, std::move(urls)));
}

int64_t SchemaRegistryClient::requests_sent() const {
  std::lock_guard lock(mutex_);
  return requests_sent_;
}

Result<std::shared_ptr<const RegisteredSchema>> SchemaRegistryClient::GetSchema(int32_t id) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(id); it != cache_.end()) return it->second;
  }
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const RegisteredSchema> schema, Fetch(id));
  std::lock_guard lock(mutex_);
  if (cache_.size() >= kMaxCachedSchemas) cache_.clear();
  return cache_.emplace(id, std::move(schema)).first->second;
}

Result<std::shared_ptr<const RegisteredSchema>> SchemaRegistryClient::Fetch(int32_t id) {
  if (id < 0) return Status::InvalidArgument("schema id " + std::to_string(id) + " is negative");
  http::HttpRequest request;
  request.method = "GET";
  request.headers = {{"Accept", "application/vnd.schemaregistry.v1+json, application/json"}};
  if (options_.basic_auth_user_info) {
    request.headers.emplace_back("Authorization", "Basic " + Base64Encode(*options_.basic_auth_user_info));
  } else if (options_.bearer_token) {
    request.headers.emplace_back("Authorization", "Bearer " + *options_.bearer_token);
  }
  const std::string path = "/schemas/ids/" + std::to_string(id);

  Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(kFirstBackoffMs << (attempt - 1)));
    const std::string& base = urls_[static_cast<size_t>(attempt) % urls_.size()];
    const std::string where = "schema registry " + base + ": schema id " + std::to_string(id);
    request.url = base + path;
    {
      std::lock_guard lock(mutex_);
      ++requests_sent_;
    }
    Result<http::HttpResponse> response = transport_.Execute(request);
    if (!response.ok()) {
      last = response.status().WithContext(where);
      if (!last.retryable()) return last;
      continue;
    }
    const long status = response->status;
    if (status == 429 || status >= 500) {
      last = Status::IOError(where + ": HTTP " + std::to_string(status) + RegistryMessage(response->body),
                             /*retryable=*/true);
      continue;
    }
    if (status == 404) return Status::NotFound(where + " not found" + RegistryMessage(response->body));
    if (status == 401 || status == 403) {
      return Status::IOError(where + ": HTTP " + std::to_string(status) +
                             " (check the registry credentials)" + RegistryMessage(response->body));
    }
    if (status != 200) {
      return Status::IOError(where + ": HTTP " + std::to_string(status) + RegistryMessage(response->body));
    }

    auto json = nlohmann::json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) return Status::Corruption(where + ": the answer is not a JSON object");
    auto schema_it = json.find("schema");
    if (schema_it == json.end() || !schema_it->is_string()) {
      return Status::Corruption(where + ": the answer has no \"schema\" string");
    }
    auto out = std::make_shared<RegisteredSchema>();
    out->id = id;
    out->schema_type = "AVRO";
    if (auto it = json.find("schemaType"); it != json.end() && !it->is_null()) {
      if (!it->is_string()) return Status::Corruption(where + ": \"schemaType\" is not a string");
      out->schema_type = it->get<std::string>();
    }
    if (auto it = json.find("references"); it != json.end() && it->is_array() && !it->empty()) {
      return Status::NotSupported(where + ": schemas with references to other subjects are not supported");
    }
    out->text = schema_it->get<std::string>();
    if (out->schema_type == "AVRO") {
      Result<avro::AvroSchema> parsed = avro::AvroSchema::Parse(out->text);
      if (!parsed.ok()) return parsed.status().WithContext(where);
      out->avro = std::move(parsed).value();
    } else if (out->schema_type != "JSON" && out->schema_type != "PROTOBUF") {
      return Status::NotSupported(where + ": unknown schema type \"" + out->schema_type.substr(0, 40) + "\"");
    }
    return std::shared_ptr<const RegisteredSchema>(std::move(out));
  }
  return last;
}

}  // namespace floe::schema_registry
