// S3 settings and how they are resolved, the way the AWS CLI and SDKs do it.
//
// Credentials and region follow the AWS chain of aws/credentials.h (explicit
// options, an explicitly chosen profile, AWS_ACCESS_KEY_ID/..., the shared
// files, else anonymous; AWS_REGION > AWS_DEFAULT_REGION > profile > us-east-1).
//   endpoint:     S3Options.endpoint > AWS_ENDPOINT_URL_S3 > AWS_ENDPOINT_URL > profile
//                 `endpoint_url` in the config file > https://s3.<region>.amazonaws.com
//                 (aws/endpoint.h)
//   path style:   S3Options.path_style when set; otherwise path-style for a custom
//                 endpoint (local servers, MinIO: hosts like 127.0.0.1 cannot take a
//                 bucket label) and virtual-hosted for AWS's own endpoint.
//
// Secrets never leave this module in text: ToString() and every error message
// redact the secret key and session token and show only the last 4 characters
// of the access key id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "aws/credentials.h"
#include "aws/environment.h"
#include "aws/retry.h"
#include "common/status.h"

namespace floe::s3 {

struct S3Options {
  // Empty strings mean "not set here": fall back to the environment and files.
  std::string region;
  std::string endpoint;  // "http://127.0.0.1:9000" or "https://s3.eu-west-1.amazonaws.com"
  std::optional<bool> path_style;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string profile;

  int max_attempts = 6;               // total tries per request, first included; 1 = no retry
  int64_t retry_budget_ms = 60000;    // no retry starts after this much time since the first try
  int64_t retry_base_delay_ms = 100;  // full-jitter backoff: sleep U(0, min(max, base * 2^n))
  int64_t retry_max_delay_ms = 5000;
  int64_t connect_timeout_ms = 10000;
  int64_t request_timeout_ms = 120000;  // whole request, including the body transfer
  int read_parallelism = 4;             // concurrent ranged GETs for one large ReadAt
  int upload_parallelism = 4;           // concurrent part uploads of one OutputFile
  int64_t multipart_part_size = 8 << 20;
  int64_t multipart_threshold = 8 << 20;  // an object larger than this is uploaded in parts
};

// The credential and region part of S3Options, for the other AWS clients
// that share S3's settings (Glue, Kinesis, SQS, SigV4 REST catalogs).
aws::AwsCredentialOptions CredentialOptionsOf(const S3Options& options);
// The retry part of S3Options.
aws::RetryPolicy RetryPolicyOf(const S3Options& options);

struct S3Config {
  std::string region;
  std::string endpoint_scheme;     // "https" or "http"
  std::string endpoint_authority;  // "s3.us-east-1.amazonaws.com" or "127.0.0.1:9000"
  bool path_style = false;
  std::string access_key_id;  // empty: anonymous
  std::string secret_access_key;
  std::string session_token;
  std::string credential_source;  // "options", "environment", "profile default in <file>", "none"
  S3Options tuning;               // the numeric settings, validated

  bool anonymous() const { return access_key_id.empty(); }
  // One line, secrets redacted.
  std::string ToString() const;
};

Result<S3Config> ResolveS3Config(const S3Options& options,
                                 const aws::EnvLookup& env = aws::ProcessEnvironment());

}  // namespace floe::s3
