// Where AWS settings come from besides floe's own config: environment
// variables and the shared credentials and config files, read the way the
// AWS CLI and SDKs read them.
//
// Contract: EnvLookup reads one variable (nullopt when unset); tests inject a
// map instead of the process environment. LoadAwsProfile picks the profile
// (explicit name > AWS_PROFILE > "default") and reads
// AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials) and
// AWS_CONFIG_FILE (default ~/.aws/config); a missing or unreadable file is
// "nothing configured", not an error. INI files: "[section]" headers,
// "key = value" lines, '#' or ';' comments; indented lines (nested
// sub-sections such as "s3 =\n  addressing_style = path") are skipped.
// Secrets never leave this module in text: RedactAccessKey shows only the
// last 4 characters. Everything here is safe from any thread (ProcessEnvironment
// reads getenv, which is safe while nobody calls setenv).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace floe::aws {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnvironment();
EnvLookup MapEnvironment(std::map<std::string, std::string> values);
// The variable's value, or nullopt when it is unset or empty.
std::optional<std::string> NonEmptyEnv(const EnvLookup& env, const std::string& name);

// Section name -> key -> value. Section names are kept as written inside the
// brackets ("profile dev", "default").
using AwsIni = std::map<std::string, std::map<std::string, std::string>>;
AwsIni ParseAwsIni(const std::string& text);

struct AwsProfile {
  std::string name;                // "default" unless chosen
  bool explicitly_chosen = false;  // named by the caller, not by AWS_PROFILE or the default
  std::string credentials_file;
  std::string config_file;
  AwsIni credentials;
  AwsIni config;

  // A non-empty value of the profile's section in the credentials file
  // ([name]), or nullptr.
  const std::string* CredentialsValue(const std::string& key) const;
  // A non-empty value of the profile's section in the config file
  // ([profile name], [default] for the default profile), or nullptr.
  const std::string* ConfigValue(const std::string& key) const;
};

AwsProfile LoadAwsProfile(const std::string& explicit_name, const EnvLookup& env);

// "AKIA…MPLE" style: everything but the last 4 characters masked.
std::string RedactAccessKey(const std::string& access_key_id);

}  // namespace floe::aws
