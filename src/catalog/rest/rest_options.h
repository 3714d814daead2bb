// Settings of a REST catalog client, named after Iceberg's REST catalog
// properties (uri, warehouse, prefix, token, credential, oauth2-server-uri,
// scope, rest.sigv4-enabled, rest.signing-region, rest.signing-name, header.*).
//
// Contract: `uri` is the catalog's base URL without "/v1" (e.g.
// "https://glue.us-east-1.amazonaws.com/iceberg"); ParseRestCatalogUri also
// accepts floe's "rest+http://" / "rest+https://" spelling. Authentication is
// at most one of token and credential, optionally plus SigV4 signing (AWS
// services want SigV4 alone). Secrets never appear in ToString or errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "io/s3/s3_config.h"

namespace floe::catalog::rest {

struct RestCatalogOptions {
  std::string uri;
  std::string warehouse;   // sent as ?warehouse= to /v1/config; a location or an id (Glue: account id)
  std::string prefix;      // the {prefix} path segment(s); the server's config may override it
  std::string token;       // bearer token
  std::string credential;  // "client_id:client_secret" (or just the secret) for OAuth2 client credentials
  std::string oauth2_server_uri;  // token endpoint; empty: <uri>/v1/oauth/tokens
  std::string scope = "catalog";
  bool sigv4_enabled = false;
  std::string signing_region;                // empty: resolved like the S3 region (AWS_REGION, profile, ...)
  std::string signing_name = "execute-api";  // "glue" for AWS Glue, "s3tables" for S3 Tables
  std::map<std::string, std::string> headers;  // sent with every request
  s3::S3Options s3;                            // SigV4 credentials, and the FileIO of s3:// table locations
  int64_t connect_timeout_ms = 10000;
  int64_t request_timeout_ms = 120000;
  int max_attempts = 4;  // tries of a read (GET/HEAD) on transport errors and 503; writes are tried once
};

// "rest+http://h:1/p" -> "http://h:1/p"; "http://..." and "https://..." are
// returned as they are; anything else is InvalidArgument.
Result<std::string> ParseRestCatalogUri(const std::string& uri);
// Whether `uri` names a REST catalog ("rest+http(s)://" or "rest://").
bool IsRestCatalogUri(const std::string& uri);

// One line for logs: uri, warehouse, prefix and which auth is used, no secrets.
std::string DescribeRestCatalogOptions(const RestCatalogOptions& options);

}  // namespace floe::catalog::rest
