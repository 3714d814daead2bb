#include "aws/msk_iam_token.h"

#include <vector>

#include "common/base64.h"

namespace floe::aws {

Result<MskIamToken> MakeMskIamToken(const SigV4Credentials& credentials, const std::string& region,
                                    std::chrono::system_clock::time_point now) {
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return Status::InvalidArgument(
        "MSK IAM authentication needs AWS credentials (the [s3] keys, AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, or a profile); none were found");
  }
  if (region.empty()) return Status::InvalidArgument("MSK IAM authentication needs a region");
  const std::string host = "kafka." + region + ".amazonaws.com";
  SigV4Request request;
  request.method = "GET";
  request.path = "/";
  request.query = {{"Action", "kafka-cluster:Connect"}};
  request.headers = {{"host", host}};
  request.payload_hash = std::string(kEmptyPayloadSha256);
  SigV4Scope scope;
  scope.region = region;
  scope.service = "kafka-cluster";
  scope.amz_date = FormatAmzDate(now);
  FLOE_ASSIGN_OR_RETURN(SigV4Presigned presigned,
                        PresignV4(request, credentials, scope, kMskIamTokenLifetimeSeconds));
  std::vector<std::pair<std::string, std::string>> query = std::move(presigned.query);
  // Not signed: the MSK signers add the client's name after signing.
  query.emplace_back("User-Agent", "floe");
  MskIamToken token;
  token.url = "https://" + host + "/?" + CanonicalQuery(query);
  token.value = Base64UrlEncodeUnpadded(token.url);
  const auto signed_at = std::chrono::time_point_cast<std::chrono::seconds>(now);
  token.expires_at_ms = (signed_at.time_since_epoch().count() + kMskIamTokenLifetimeSeconds) * 1000;
  return token;
}

std::optional<std::string> MskRegionOfBootstrap(std::string_view bootstrap_servers) {
  std::string_view host = bootstrap_servers.substr(0, bootstrap_servers.find(','));
  host = host.substr(0, host.rfind(':') == std::string_view::npos ? host.size() : host.rfind(':'));
  constexpr std::string_view kSuffix = ".amazonaws.com";
  if (host.size() <= kSuffix.size() || host.substr(host.size() - kSuffix.size()) != kSuffix)
    return std::nullopt;
  host.remove_suffix(kSuffix.size());
  const size_t dot = host.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view region = host.substr(dot + 1);
  const std::string_view before = host.substr(0, dot);
  const bool msk = (before.size() >= 6 && before.substr(before.size() - 6) == ".kafka") ||
                   (before.size() >= 17 && before.substr(before.size() - 17) == ".kafka-serverless");
  if (!msk || region.empty()) return std::nullopt;
  return std::string(region);
}

}  // namespace floe::aws
