// Resolution of S3 settings from explicit options, the environment and the
// shared AWS files; see s3_config.h for the precedence.
#include "io/s3/s3_config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace floe::s3 {
namespace {

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

// A missing or unreadable file yields an empty map: the AWS tools treat an
// absent ~/.aws as "nothing configured".
std::map<std::string, std::map<std::string, std::string>> LoadIni(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseAwsIni(text.str());
}

std::string HomeFile(const EnvLookup& env, const std::string& relative) {
  std::optional<std::string> home = NonEmpty(env, "HOME");
  if (!home) return "";
  return *home + "/" + relative;
}

const std::string* Lookup(const std::map<std::string, std::map<std::string, std::string>>& ini,
                          const std::string& section, const std::string& key) {
  auto s = ini.find(section);
  if (s == ini.end()) return nullptr;
  auto k = s->second.find(key);
  if (k == s->second.end() || k->second.empty()) return nullptr;
  return &k->second;
}

Status ValidateTuning(const S3Options& o) {
  auto bad = [](const std::string& what) { return Status::InvalidArgument("S3 option " + what); };
  if (o.max_attempts < 1 || o.max_attempts > 100) return bad("max_attempts must be within 1..100");
  if (o.retry_budget_ms < 0) return bad("retry_budget_ms must not be negative");
  if (o.retry_base_delay_ms < 0 || o.retry_max_delay_ms < 0) return bad("retry delays must not be negative");
  if (o.connect_timeout_ms <= 0 || o.request_timeout_ms <= 0) return bad("timeouts must be positive");
  if (o.read_parallelism < 1 || o.read_parallelism > 64) return bad("read_parallelism must be within 1..64");
  if (o.upload_parallelism < 1 || o.upload_parallelism > 64)
    return bad("upload_parallelism must be within 1..64");
  // S3 rejects parts under 5 MiB (except the last) and over 5 GiB.
  if (o.multipart_part_size < (int64_t{5} << 20) || o.multipart_part_size > (int64_t{5} << 30)) {
    return bad("multipart_part_size must be within 5 MiB..5 GiB");
  }
  if (o.multipart_threshold < 1) return bad("multipart_threshold must be positive");
  return Status::OK();
}

Status ParseEndpoint(const std::string& endpoint, S3Config* config) {
  size_t sep = endpoint.find("://");
  if (sep == std::string::npos) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' must start with http:// or https://");
  }
  std::string scheme = endpoint.substr(0, sep);
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' must start with http:// or https://");
  }
  std::string rest = endpoint.substr(sep + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string::npos) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint +
                                   "' must be scheme://host[:port] without a path");
  }
  config->endpoint_scheme = scheme;
  config->endpoint_authority = rest;
  return Status::OK();
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

std::map<std::string, std::map<std::string, std::string>> ParseAwsIni(const std::string& text) {
  std::map<std::string, std::map<std::string, std::string>> out;
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

std::string RedactAccessKey(const std::string& access_key_id) {
  if (access_key_id.empty()) return "";
  if (access_key_id.size() <= 4) return "****";
  return std::string(access_key_id.size() - 4, '*') + access_key_id.substr(access_key_id.size() - 4);
}

std::string S3Config::ToString() const {
  std::ostringstream out;
  out << "S3Config{region=" << region << ", endpoint=" << endpoint_scheme << "://" << endpoint_authority
      << ", path_style=" << (path_style ? "true" : "false");
  if (anonymous()) {
    out << ", credentials=none";
  } else {
    out << ", access_key_id=" << RedactAccessKey(access_key_id) << ", secret_access_key=<redacted>"
        << ", session_token=" << (session_token.empty() ? "<none>" : "<redacted>");
  }
  out << ", credential_source=" << credential_source << ", max_attempts=" << tuning.max_attempts
      << ", retry_budget_ms=" << tuning.retry_budget_ms << ", part_size=" << tuning.multipart_part_size
      << ", threshold=" << tuning.multipart_threshold << ", upload_parallelism=" << tuning.upload_parallelism
      << ", read_parallelism=" << tuning.read_parallelism << "}";
  return out.str();
}

Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env) {
  FLOE_RETURN_IF_ERROR(ValidateTuning(options));
  S3Config config;
  config.tuning = options;
  config.tuning.access_key_id.clear();
  config.tuning.secret_access_key.clear();
  config.tuning.session_token.clear();

  std::string profile = options.profile;
  if (profile.empty()) profile = NonEmpty(env, "AWS_PROFILE").value_or("default");
  std::string credentials_file =
      NonEmpty(env, "AWS_SHARED_CREDENTIALS_FILE").value_or(HomeFile(env, ".aws/credentials"));
  std::string config_file = NonEmpty(env, "AWS_CONFIG_FILE").value_or(HomeFile(env, ".aws/config"));
  auto credentials_ini = credentials_file.empty() ? decltype(LoadIni("")){} : LoadIni(credentials_file);
  auto config_ini = config_file.empty() ? decltype(LoadIni("")){} : LoadIni(config_file);
  const std::string config_section = profile == "default" ? "default" : "profile " + profile;

  auto from_profile = [&]() -> bool {
    for (const auto& [ini, section, file] : {std::tuple{&credentials_ini, profile, credentials_file},
                                             std::tuple{&config_ini, config_section, config_file}}) {
      const std::string* key = Lookup(*ini, section, "aws_access_key_id");
      const std::string* secret = Lookup(*ini, section, "aws_secret_access_key");
      if (key && secret) {
        config.access_key_id = *key;
        config.secret_access_key = *secret;
        const std::string* token = Lookup(*ini, section, "aws_session_token");
        config.session_token = token ? *token : "";
        config.credential_source = "profile " + profile + " in " + file;
        return true;
      }
    }
    return false;
  };

  if (!options.access_key_id.empty() || !options.secret_access_key.empty()) {
    if (options.access_key_id.empty() || options.secret_access_key.empty()) {
      return Status::InvalidArgument("S3 options set only one of access_key_id and secret_access_key");
    }
    config.access_key_id = options.access_key_id;
    config.secret_access_key = options.secret_access_key;
    config.session_token = options.session_token;
    config.credential_source = "options";
  } else if (!options.profile.empty()) {
    if (!from_profile()) {
      return Status::InvalidArgument("AWS profile '" + profile +
                                     "' has no aws_access_key_id/aws_secret_access_key in " +
                                     credentials_file + " or " + config_file);
    }
  } else if (auto key = NonEmpty(env, "AWS_ACCESS_KEY_ID"), secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
             key || secret) {
    if (!key || !secret) {
      return Status::InvalidArgument("only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set");
    }
    config.access_key_id = *key;
    config.secret_access_key = *secret;
    config.session_token = NonEmpty(env, "AWS_SESSION_TOKEN").value_or("");
    config.credential_source = "environment";
  } else if (!from_profile()) {
    config.credential_source = "none";
  }

  const std::string* profile_region = Lookup(config_ini, config_section, "region");
  if (!options.region.empty()) {
    config.region = options.region;
  } else if (auto r = NonEmpty(env, "AWS_REGION")) {
    config.region = *r;
  } else if (auto dr = NonEmpty(env, "AWS_DEFAULT_REGION")) {
    config.region = *dr;
  } else if (profile_region) {
    config.region = *profile_region;
  } else {
    config.region = "us-east-1";
  }

  std::string endpoint;
  const std::string* profile_endpoint = Lookup(config_ini, config_section, "endpoint_url");
  if (!options.endpoint.empty()) {
    endpoint = options.endpoint;
  } else if (auto e = NonEmpty(env, "AWS_ENDPOINT_URL_S3")) {
    endpoint = *e;
  } else if (auto eg = NonEmpty(env, "AWS_ENDPOINT_URL")) {
    endpoint = *eg;
  } else if (profile_endpoint) {
    endpoint = *profile_endpoint;
  }
  bool custom_endpoint = !endpoint.empty();
  if (!custom_endpoint) endpoint = "https://s3." + config.region + ".amazonaws.com";
  FLOE_RETURN_IF_ERROR(ParseEndpoint(endpoint, &config));
  config.path_style = options.path_style.value_or(custom_endpoint);
  return config;
}

}  // namespace floe::s3
