#include "aws/environment.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace floe::aws {
namespace {

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

AwsIni LoadIni(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseAwsIni(text.str());
}

std::string HomeFile(const EnvLookup& env, const std::string& relative) {
  std::optional<std::string> home = NonEmptyEnv(env, "HOME");
  if (!home) return "";
  return *home + "/" + relative;
}

const std::string* Lookup(const AwsIni& ini, const std::string& section, const std::string& key) {
  auto s = ini.find(section);
  if (s == ini.end()) return nullptr;
  auto k = s->second.find(key);
  if (k == s->second.end() || k->second.empty()) return nullptr;
  return &k->second;
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

EnvLookup MapEnvironment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::optional<std::string> NonEmptyEnv(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

AwsIni ParseAwsIni(const std::string& text) {
  AwsIni out;
  std::string section;
  bool in_section = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) continue;  // nested sub-section value
    std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#' || trimmed[0] == ';') continue;
    if (trimmed.front() == '[') {
      size_t close = trimmed.find(']');
      in_section = close != std::string::npos;
      if (in_section) {
        section = Trim(trimmed.substr(1, close - 1));
        out[section];
      }
      continue;
    }
    size_t eq = trimmed.find('=');
    if (!in_section || eq == std::string::npos) continue;
    out[section][Trim(trimmed.substr(0, eq))] = Trim(trimmed.substr(eq + 1));
  }
  return out;
}

const std::string* AwsProfile::CredentialsValue(const std::string& key) const {
  return Lookup(credentials, name, key);
}

const std::string* AwsProfile::ConfigValue(const std::string& key) const {
  return Lookup(config, name == "default" ? "default" : "profile " + name, key);
}

AwsProfile LoadAwsProfile(const std::string& explicit_name, const EnvLookup& env) {
  AwsProfile profile;
  profile.explicitly_chosen = !explicit_name.empty();
  profile.name = explicit_name;
  if (profile.name.empty()) profile.name = NonEmptyEnv(env, "AWS_PROFILE").value_or("default");
  profile.credentials_file =
      NonEmptyEnv(env, "AWS_SHARED_CREDENTIALS_FILE").value_or(HomeFile(env, ".aws/credentials"));
  profile.config_file = NonEmptyEnv(env, "AWS_CONFIG_FILE").value_or(HomeFile(env, ".aws/config"));
  profile.credentials = LoadIni(profile.credentials_file);
  profile.config = LoadIni(profile.config_file);
  return profile;
}

std::string RedactAccessKey(const std::string& access_key_id) {
  if (access_key_id.empty()) return "";
  if (access_key_id.size() <= 4) return "****";
  return std::string(access_key_id.size() - 4, '*') + access_key_id.substr(access_key_id.size() - 4);
}

}  // namespace floe::aws
