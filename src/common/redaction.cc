#include "common/redaction.h"

#include <array>

namespace floe {

namespace {

constexpr std::string_view kMask = "***";

bool IsSecretName(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kNames = {"password",
                                                              "passwd",
                                                              "pwd",
                                                              "sslpassword",
                                                              "secret",
                                                              "client_secret",
                                                              "token",
                                                              "access_token",
                                                              "credential",
                                                              "apikey",
                                                              "api_key",
                                                              "key",
                                                              "signature",
                                                              "sig",
                                                              "x-amz-signature",
                                                              "x-amz-security-token",
                                                              "x-amz-credential"};
  std::string lower(name);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (std::string_view n : kNames) {
    if (lower == n) return true;
  }
  return false;
}

// Masks the values of secret parameters in "k=v<sep>k=v..." (query strings: '&' or ';'; conninfo: spaces).
std::string RedactParameters(std::string_view text, std::string_view separators) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(separators, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view pair = text.substr(start, end - start);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && IsSecretName(pair.substr(0, eq))) {
      out += pair.substr(0, eq + 1);
      out += kMask;
    } else {
      out += pair;
    }
    if (end < text.size()) out += text[end];
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string RedactUri(std::string_view uri) {
  const size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) {
    // A libpq key=value connection string, or plain text: mask secret parameters.
    return uri.find('=') == std::string_view::npos ? std::string(uri) : RedactParameters(uri, " \t");
  }
  const size_t authority_start = scheme + 3;
  const size_t authority_end = uri.find_first_of("/?#", authority_start);
  std::string_view authority =
      uri.substr(authority_start, authority_end == std::string_view::npos ? std::string_view::npos
                                                                          : authority_end - authority_start);
  std::string out(uri.substr(0, authority_start));
  // The last '@' ends the user information (a password may itself hold '@').
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    const size_t colon = userinfo.find(':');
    out += colon == std::string_view::npos ? std::string(userinfo)
                                           : std::string(userinfo.substr(0, colon + 1)) + "***";
    out += authority.substr(at);
  } else {
    out += authority;
  }
  if (authority_end == std::string_view::npos) return out;
  std::string_view rest = uri.substr(authority_end);
  const size_t question = rest.find('?');
  if (question == std::string_view::npos) return out + std::string(rest);
  out += rest.substr(0, question + 1);
  std::string_view query = rest.substr(question + 1);
  const size_t hash = query.find('#');
  out += RedactParameters(query.substr(0, hash), "&;");
  if (hash != std::string_view::npos) out += query.substr(hash);
  return out;
}

std::string RedactSecrets(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out(text);
  for (const auto& secret : secrets) {
    if (secret.size() < 4) continue;
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kMask.size())) {
      out.replace(at, secret.size(), kMask);
    }
  }
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) c = '?';
  }
  return out;
}

}  // namespace floe
