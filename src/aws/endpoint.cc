#include "aws/endpoint.h"

#include "common/redaction.h"

namespace floe::aws {

Result<Endpoint> ParseEndpointUrl(const std::string& url, const std::string& what) {
  const size_t sep = url.find("://");
  const std::string scheme = sep == std::string::npos ? "" : url.substr(0, sep);
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument(what + " '" + RedactUri(url) + "' must start with http:// or https://");
  }
  std::string rest = url.substr(sep + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@ \t\r\n") != std::string::npos) {
    return Status::InvalidArgument(what + " '" + RedactUri(url) +
                                   "' must be scheme://host[:port] without a path");
  }
  Endpoint endpoint;
  endpoint.scheme = scheme;
  endpoint.authority = rest;
  return endpoint;
}

std::string AwsDefaultEndpointUrl(std::string_view hostname_prefix, std::string_view region) {
  const bool china = region.rfind("cn-", 0) == 0;
  return "https://" + std::string(hostname_prefix) + "." + std::string(region) +
         (china ? ".amazonaws.com.cn" : ".amazonaws.com");
}

Result<Endpoint> ResolveEndpoint(const EndpointRequest& request, const AwsIdentity& identity,
                                 const EnvLookup& env) {
  std::string url;
  std::string source;
  const std::string service_variable = "AWS_ENDPOINT_URL_" + request.service_id;
  const std::optional<std::string> ignore = NonEmptyEnv(env, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
  const bool use_configured = !ignore || (*ignore != "true" && *ignore != "TRUE" && *ignore != "True");
  if (!request.explicit_url.empty()) {
    url = request.explicit_url;
    source = "config";
  } else if (auto by_service = use_configured ? NonEmptyEnv(env, service_variable) : std::nullopt) {
    url = *by_service;
    source = service_variable;
  } else if (auto global = use_configured ? NonEmptyEnv(env, "AWS_ENDPOINT_URL") : std::nullopt) {
    url = *global;
    source = "AWS_ENDPOINT_URL";
  } else if (const std::string* in_profile =
                 use_configured ? identity.profile.ConfigValue("endpoint_url") : nullptr) {
    url = *in_profile;
    source = "profile " + identity.profile.name;
  }
  const bool custom = !url.empty();
  if (!custom) {
    url = request.default_url.empty() ? AwsDefaultEndpointUrl(request.hostname_prefix, identity.region)
                                      : request.default_url;
    source = "default";
  }
  auto endpoint = ParseEndpointUrl(url, request.hostname_prefix + " endpoint (" + source + ")");
  if (!endpoint.ok()) return endpoint.status();
  endpoint->custom = custom;
  endpoint->source = source;
  return endpoint;
}

}  // namespace floe::aws
