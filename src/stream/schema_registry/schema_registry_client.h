// SchemaRegistryClient: looks up the writer schemas of Confluent
// wire-format records (formats/connect/confluent_framing.h) in a Confluent
// Schema Registry, or one speaking its REST API (Redpanda, Apicurio's
// compatibility API, AWS MSK with the Confluent registry).
//
// Contract: GetSchema(id) asks GET <url>/schemas/ids/{id} once per id and
// keeps the answer (ids are immutable in a registry), so a stream of records
// costs one request per schema. An AVRO schema is parsed (formats/avro) when
// fetched; JSON and PROTOBUF schemas are returned as text. Transport
// failures, 429 and 5xx are retried (three attempts in all, 100 ms then
// 200 ms apart, rotating through the configured URLs) and then returned as
// retryable IOError; a 404 is NotFound ("schema id 7 not found"), 401/403 a
// non-retryable IOError, a malformed answer Corruption, schema references
// NotSupported. Messages name the registry URL and the id, never the
// credentials. Thread-safe: concurrent callers share the cache (the same id
// may be fetched twice by a race, never cached twice).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/avro/schema.h"
#include "io/http/http_transport.h"

namespace floe::schema_registry {

struct SchemaRegistryOptions {
  // One or more base URLs, comma-separated ("http://registry:8081,http://registry2:8081").
  std::string url;
  // Confluent's basic.auth.user.info: "user:password" for HTTP basic auth.
  std::optional<std::string> basic_auth_user_info;
  std::optional<std::string> bearer_token;
  int64_t connect_timeout_ms = 5000;
  int64_t request_timeout_ms = 10000;
};

struct RegisteredSchema {
  int32_t id = 0;
  std::string schema_type;               // "AVRO", "JSON" or "PROTOBUF"
  std::string text;                      // the schema as registered
  std::optional<avro::AvroSchema> avro;  // set for AVRO
};

class SchemaRegistryClient {
 public:
  static Result<std::unique_ptr<SchemaRegistryClient>> Open(const SchemaRegistryOptions& options);

  Result<std::shared_ptr<const RegisteredSchema>> GetSchema(int32_t id);

  // Requests sent so far (tests check the cache with it).
  int64_t requests_sent() const;

 private:
  explicit SchemaRegistryClient(const SchemaRegistryOptions& options, std::vector<std::string> urls);
  Result<std::shared_ptr<const RegisteredSchema>> Fetch(int32_t id);

  SchemaRegistryOptions options_;
  std::vector<std::string> urls_;  // without trailing '/'
  http::HttpTransport transport_;
  mutable std::mutex mutex_;
  std::map<int32_t, std::shared_ptr<const RegisteredSchema>> cache_;
  int64_t requests_sent_ = 0;
};

}  // namespace floe::schema_registry
