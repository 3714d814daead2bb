// Keeping secrets out of messages: every error, log line and banner that
// shows a URI, a connection string or text another server sent goes
// through these.
//
// Contract: RedactUri masks, in a URI ("scheme://user:pw@host/...?k=v") or
// a libpq key=value connection string ("host=h password=pw"), the password
// of the user information (a user name alone is kept) and the value of
// every query or key=value parameter whose name says secret (password,
// passwd, pwd, sslpassword, secret, client_secret, token, access_token,
// credential, apikey, api_key, key, signature, sig, x-amz-signature,
// x-amz-security-token, x-amz-credential; case-insensitive), each with
// "***"; everything else is kept so the message still says where.
// RedactSecrets replaces every occurrence of each given secret (ignoring
// ones shorter than 4 bytes, which would mask ordinary words) with "***" and
// control characters with '?', for text a remote server chose. Pure
// functions: thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace floe {

std::string RedactUri(std::string_view uri);
std::string RedactSecrets(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace floe
