// The AWS credential and region chain every AWS client of floe shares (S3,
// Glue, Kinesis, SQS, SigV4-signed REST catalogs), resolved the way the AWS
// CLI and SDKs resolve it.
//
// Precedence, highest first:
//   credentials: 1. AwsCredentialOptions access_key_id + secret_access_key (+ session_token)
//                2. when options.profile is set: that profile's keys (an explicitly
//                   chosen profile beats the environment, as with `aws --profile`)
//                3. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN)
//                4. the profile (AWS_PROFILE, else "default") in the shared credentials
//                   file ([name]), then in the config file ([profile name], [default])
//                5. none: requests go unsigned (public buckets, local test servers)
//   region:      options.region > AWS_REGION > AWS_DEFAULT_REGION > the profile's
//                `region` in the config file > "us-east-1"
//
// Contract: only inconsistent input fails (one half of a key pair, an
// explicitly named profile without keys), with InvalidArgument naming the
// setting and never a secret. Thread-safe (no shared state).
#pragma once

#include <string>

#include "aws/environment.h"
#include "aws/sigv4.h"
#include "common/status.h"

namespace floe::aws {

struct AwsCredentialOptions {
  // Empty strings mean "not set here": fall back to the environment and files.
  std::string region;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string profile;
};

struct AwsIdentity {
  std::string region;
  SigV4Credentials credentials;   // empty access key id: anonymous
  std::string credential_source;  // "options", "environment", "profile default in <file>", "none"
  AwsProfile profile;             // the profile in effect (endpoint_url and other settings)

  bool anonymous() const { return credentials.access_key_id.empty(); }
};

Result<AwsIdentity> ResolveAwsIdentity(const AwsCredentialOptions& options,
                                       const EnvLookup& env = ProcessEnvironment());

}  // namespace floe::aws
