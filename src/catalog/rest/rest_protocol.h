// Wire conventions of the Iceberg REST catalog protocol
// (apache/iceberg open-api/rest-catalog-open-api.yaml), shared by the client
// and `floe serve`.
//
// Contract: a namespace travels in a path segment as its levels, each
// percent-encoded, joined by "%1F" (the unit separator); in the `parent`
// query parameter as the decoded levels joined by the 0x1F byte. Errors
// travel as the spec's IcebergErrorResponse {"error": {"message", "type",
// "code"}}. ErrorFromResponse maps an HTTP error answer to a Status whose
// kind follows the spec's meaning of the status code for that kind of
// request, and whose message carries the server's message (never request
// headers, so credentials cannot leak into errors).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/metastore.h"
#include "common/status.h"
#include "iceberg/spec/json_util.h"

namespace floe::catalog::rest {

inline constexpr char kNamespaceSeparator = '\x1f';

// Percent-encodes every byte except A-Z a-z 0-9 - . _ ~ (upper-case hex).
std::string PercentEncode(std::string_view text);
// Decodes %XX escapes; a malformed escape is InvalidArgument. '+' stays '+'.
Result<std::string> PercentDecode(std::string_view text);

// "a%1Fb" for {"a", "b"}: the {namespace} path segment, already encoded.
std::string NamespaceToPathSegment(const Namespace& ns);
// Splits a decoded namespace (levels joined by 0x1F) into its levels; every
// level must pass catalog::ValidateName (metastore.h: the name rules).
Result<Namespace> NamespaceFromDecoded(std::string_view decoded);
// The levels joined by 0x1F (the `parent` query parameter, before encoding).
std::string NamespaceToDecoded(const Namespace& ns);

// {"namespace": [...], "name": "t"}
iceberg::OrderedJson TableIdentifierToJson(const TableIdentifier& id);
Result<TableIdentifier> TableIdentifierFromJson(const iceberg::Json& json);
Result<Namespace> NamespaceFromJson(const iceberg::Json& json, std::string_view what);

// The spec's error body.
iceberg::OrderedJson ErrorJson(int code, std::string_view type, std::string_view message);

// What a request was doing, which decides what some status codes mean.
enum class RequestKind {
  kRead,    // GET/HEAD: 404 is NotFound
  kCreate,  // create namespace/table, register, rename: 409 is AlreadyExists
  kCommit,  // table commit: 409 is CommitFailed, 5xx is CommitStateUnknown
  kOther,   // drops, property updates: 409 means "not empty" / conflict
};

// Maps a non-2xx answer to a Status naming `operation` ("loading table db.t"):
// 400 InvalidArgument, 401/403 InvalidArgument saying authentication/
// authorization failed, 404 NotFound, 406 NotSupported, 409 as RequestKind
// says, 419 (token expired) IOError retryable, 500/502/503/504 on a commit
// CommitStateUnknown, other 5xx IOError (503 retryable). The server's text
// is cut at 2000 bytes and goes through RedactSecrets(`secrets`): a server
// that echoes a token or client secret back does not get it into floe's
// errors and logs.
Status ErrorFromResponse(long http_status, std::string_view body, RequestKind kind,
                         const std::string& operation, const std::vector<std::string>& secrets = {});

}  // namespace floe::catalog::rest
