// The authentication token of Amazon MSK's IAM access control for clients
// that speak SASL/OAUTHBEARER (what AWS's aws-msk-iam-sasl-signer libraries
// make for librdkafka, kafkajs and Go clients): a SigV4-presigned
// `GET https://kafka.<region>.amazonaws.com/?Action=kafka-cluster:Connect`
// for the service `kafka-cluster`, signed over `host` and the empty payload,
// valid for 15 minutes, with a `User-Agent` query parameter added after
// signing, the whole URL base64url-encoded without padding. The broker
// checks the signature and the IAM policy's kafka-cluster:Connect.
// Pure functions: safe from any thread; the secret key never appears in
// the token (only its HMAC).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "aws/sigv4.h"
#include "common/status.h"

namespace floe::aws {

inline constexpr int64_t kMskIamTokenLifetimeSeconds = 900;

struct MskIamToken {
  std::string value;          // base64url of the presigned URL, no padding
  int64_t expires_at_ms = 0;  // signing time + kMskIamTokenLifetimeSeconds, epoch milliseconds
  std::string url;            // the presigned URL itself (for tests and debugging; holds no secret)
};

// InvalidArgument without an access key pair or a region.
Result<MskIamToken> MakeMskIamToken(const SigV4Credentials& credentials, const std::string& region,
                                    std::chrono::system_clock::time_point now);

// The region in an MSK broker address: "b-1.demo.ab12cd.c2.kafka.eu-west-1.amazonaws.com:9098" and the
// serverless "boot-x.c1.kafka-serverless.us-east-2.amazonaws.com:9098" (the
// first address of a comma-separated list decides); nullopt for any other host.
std::optional<std::string> MskRegionOfBootstrap(std::string_view bootstrap_servers);

}  // namespace floe::aws
