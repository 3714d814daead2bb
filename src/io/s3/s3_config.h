// S3 settings and how they are resolved, the way the AWS CLI and SDKs do it.
//
// Precedence, highest first, for each setting:
//   credentials:  1. S3Options access_key_id + secret_access_key (+ session_token)
//                 2. when S3Options.profile is set explicitly: that profile's keys
//                    (an explicitly chosen profile beats the environment, as with `aws --profile`)
//                 3. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN)
//                 4. the profile (AWS_PROFILE, else "default") in the shared credentials
//                    file ([name] sections), then in the config file ([profile name]
//                    sections, [default] for the default profile)
//                 5. none: requests are sent unsigned (public buckets, local test servers)
//   region:       S3Options.region > AWS_REGION > AWS_DEFAULT_REGION > profile `region`
//                 in the config file > "us-east-1"
//   endpoint:     S3Options.endpoint > AWS_ENDPOINT_URL_S3 > AWS_ENDPOINT_URL > profile
//                 `endpoint_url` in the config file > https://s3.<region>.amazonaws.com
//   path style:   S3Options.path_style when set; otherwise path-style for a custom
//                 endpoint (local servers, MinIO: hosts like 127.0.0.1 cannot take a
//                 bucket label) and virtual-hosted for AWS's own endpoint.
//   files:        AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials) and
//                 AWS_CONFIG_FILE (default ~/.aws/config); a missing file is not an error.
// INI files: "[section]" headers, "key = value" lines, '#' or ';' comments; indented
// lines (nested sub-sections such as "s3 =\n  addressing_style = path") are skipped.
//
// Secrets never leave this module in text: ToString() and every error message
// redact the secret key and session token and show only the last 4 characters
// of the access key id.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

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

// Reads one environment variable; nullopt when unset. Tests inject a map.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnvironment();
EnvLookup MapEnvironment(std::map<std::string, std::string> values);

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

Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env = ProcessEnvironment());

// "AKIA…MPLE" style: everything but the last 4 characters masked.
std::string RedactAccessKey(const std::string& access_key_id);

// Parses an AWS-style INI file: section -> key -> value. Section names are kept
// as written inside the brackets ("profile dev", "default").
std::map<std::string, std::map<std::string, std::string>> ParseAwsIni(const std::string& text);

}  // namespace floe::s3
