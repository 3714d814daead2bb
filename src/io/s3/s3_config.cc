// Resolution of S3 settings from explicit options, the environment and the
// shared AWS files; see s3_config.h for the precedence.
#include "io/s3/s3_config.h"

#include <sstream>

#include "aws/endpoint.h"

namespace floe::s3 {
namespace {

Status ValidateTuning(const S3Options& o) {
  auto bad = [](const std::string& what) { return Status::InvalidArgument("S3 option " + what); };
  FLOE_RETURN_IF_ERROR(aws::ValidateRetryPolicy(RetryPolicyOf(o), "S3 option"));
  if (o.connect_timeout_ms <= 0 || o.request_timeout_ms <= 0) return bad("timeouts must be positive");
  if (o.read_parallelism < 1 || o.read_parallelism > 64) return bad("read_parallelism must be within 1..64");
  if (o.upload_parallelism < 1 || o.upload_parallelism > 64)
    return bad("upload_parallelism must be within 1..64");
  // S3 rejects parts under 5 MiB (except the last) and over 5 GiB.
  if (o.multipart_part_size < (int64_t{5} << 20) || o.multipart_part_size > (int64_t{5} << 30)) {
    return bad("multipart_part_size must be within 5 MiB..5 GiB");
  }
  if (o.multipart_threshold < 1) return bad("multipart_threshold must be positive");
  return Status::OK();
}

}  // namespace

aws::AwsCredentialOptions CredentialOptionsOf(const S3Options& options) {
  return {options.region, options.access_key_id, options.secret_access_key, options.session_token,
          options.profile};
}

aws::RetryPolicy RetryPolicyOf(const S3Options& options) {
  return {options.max_attempts, options.retry_budget_ms, options.retry_base_delay_ms,
          options.retry_max_delay_ms};
}

std::string S3Config::ToString() const {
  std::ostringstream out;
  out << "S3Config{region=" << region << ", endpoint=" << endpoint_scheme << "://" << endpoint_authority
      << ", path_style=" << (path_style ? "true" : "false");
  if (anonymous()) {
    out << ", credentials=none";
  } else {
    out << ", access_key_id=" << aws::RedactAccessKey(access_key_id) << ", secret_access_key=<redacted>"
        << ", session_token=" << (session_token.empty() ? "<none>" : "<redacted>");
  }
  out << ", credential_source=" << credential_source << ", max_attempts=" << tuning.max_attempts
      << ", retry_budget_ms=" << tuning.retry_budget_ms << ", part_size=" << tuning.multipart_part_size
      << ", threshold=" << tuning.multipart_threshold << ", upload_parallelism=" << tuning.upload_parallelism
      << ", read_parallelism=" << tuning.read_parallelism << "}";
  return out.str();
}

Result<S3Config> ResolveS3Config(const S3Options& options, const aws::EnvLookup& env) {
  FLOE_RETURN_IF_ERROR(ValidateTuning(options));
  auto identity = aws::ResolveAwsIdentity(CredentialOptionsOf(options), env);
  if (!identity.ok()) return identity.status().WithContext("S3 options");
  FLOE_ASSIGN_OR_RETURN(aws::Endpoint endpoint,
                        aws::ResolveEndpoint({"S3", "s3", options.endpoint, ""}, *identity, env));
  S3Config config;
  config.tuning = options;
  config.tuning.access_key_id.clear();
  config.tuning.secret_access_key.clear();
  config.tuning.session_token.clear();
  config.region = identity->region;
  config.access_key_id = identity->credentials.access_key_id;
  config.secret_access_key = identity->credentials.secret_access_key;
  config.session_token = identity->credentials.session_token;
  config.credential_source = identity->credential_source;
  config.endpoint_scheme = endpoint.scheme;
  config.endpoint_authority = endpoint.authority;
  config.path_style = options.path_style.value_or(endpoint.custom);
  return config;
}

}  // namespace floe::s3
