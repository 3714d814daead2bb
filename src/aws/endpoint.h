// Which URL an AWS client sends a service's requests to, by the AWS SDKs'
// endpoint conventions.
//
// Precedence, highest first: the explicit endpoint (floe's config) >
// AWS_ENDPOINT_URL_<SERVICE> (S3, GLUE, KINESIS, SQS) > AWS_ENDPOINT_URL >
// the profile's `endpoint_url` in the config file > the service's own
// default (`https://<prefix>.<region>.amazonaws.com`, `.amazonaws.com.cn`
// in the China regions, or a default the caller passes, such as the host of
// an SQS queue URL). AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true skips the
// variables and the profile, as the SDKs do. The profile's `services`
// sub-sections are not read.
//
// Contract: an endpoint is scheme://host[:port] (http or https) without a
// path, query or user information; anything else is InvalidArgument naming
// where the value came from. Pure functions over their inputs: thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "aws/credentials.h"
#include "aws/environment.h"
#include "common/status.h"

namespace floe::aws {

struct Endpoint {
  std::string scheme;     // "https" or "http"
  std::string authority;  // "kinesis.eu-west-1.amazonaws.com" or "127.0.0.1:5000"
  bool custom = false;    // not the service's AWS default
  std::string source;     // "config", "AWS_ENDPOINT_URL_GLUE", "profile dev", "default"

  std::string Url() const { return scheme + "://" + authority; }
};

// Parses "scheme://host[:port]" (a trailing '/' is dropped); `what` names
// the value in errors.
Result<Endpoint> ParseEndpointUrl(const std::string& url, const std::string& what);

struct EndpointRequest {
  std::string service_id;       // the SDK's id in environment-variable form: "S3", "GLUE", "KINESIS", "SQS"
  std::string hostname_prefix;  // "s3", "glue", "kinesis", "sqs"
  std::string explicit_url;     // floe's config; empty when not set
  std::string default_url;      // used instead of the AWS default when not empty
};

Result<Endpoint> ResolveEndpoint(const EndpointRequest& request, const AwsIdentity& identity,
                                 const EnvLookup& env = ProcessEnvironment());

// "https://<prefix>.<region>.amazonaws.com" (".amazonaws.com.cn" for cn-* regions).
std::string AwsDefaultEndpointUrl(std::string_view hostname_prefix, std::string_view region);

}  // namespace floe::aws
