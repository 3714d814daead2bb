#include "aws/credentials.h"

namespace floe::aws {
namespace {

// The profile's key pair from the credentials file, then the config file.
bool FromProfile(const AwsProfile& profile, AwsIdentity* identity) {
  struct Source {
    const std::string* key;
    const std::string* secret;
    const std::string* token;
    const std::string& file;
  };
  const Source sources[] = {
      {profile.CredentialsValue("aws_access_key_id"), profile.CredentialsValue("aws_secret_access_key"),
       profile.CredentialsValue("aws_session_token"), profile.credentials_file},
      {profile.ConfigValue("aws_access_key_id"), profile.ConfigValue("aws_secret_access_key"),
       profile.ConfigValue("aws_session_token"), profile.config_file}};
  for (const Source& source : sources) {
    if (source.key == nullptr || source.secret == nullptr) continue;
    identity->credentials = {*source.key, *source.secret, source.token ? *source.token : ""};
    identity->credential_source = "profile " + profile.name + " in " + source.file;
    return true;
  }
  return false;
}

}  // namespace

Result<AwsIdentity> ResolveAwsIdentity(const AwsCredentialOptions& options, const EnvLookup& env) {
  AwsIdentity identity;
  identity.profile = LoadAwsProfile(options.profile, env);
  const AwsProfile& profile = identity.profile;

  if (!options.access_key_id.empty() || !options.secret_access_key.empty()) {
    if (options.access_key_id.empty() || options.secret_access_key.empty()) {
      return Status::InvalidArgument(
          "AWS credentials: only one of access_key_id and secret_access_key is set");
    }
    identity.credentials = {options.access_key_id, options.secret_access_key, options.session_token};
    identity.credential_source = "options";
  } else if (profile.explicitly_chosen) {
    if (!FromProfile(profile, &identity)) {
      return Status::InvalidArgument("AWS profile '" + profile.name +
                                     "' has no aws_access_key_id/aws_secret_access_key in " +
                                     profile.credentials_file + " or " + profile.config_file);
    }
  } else if (auto key = NonEmptyEnv(env, "AWS_ACCESS_KEY_ID"),
             secret = NonEmptyEnv(env, "AWS_SECRET_ACCESS_KEY");
             key || secret) {
    if (!key || !secret) {
      return Status::InvalidArgument("only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set");
    }
    identity.credentials = {*key, *secret, NonEmptyEnv(env, "AWS_SESSION_TOKEN").value_or("")};
    identity.credential_source = "environment";
  } else if (!FromProfile(profile, &identity)) {
    identity.credential_source = "none";
  }

  if (!options.region.empty()) {
    identity.region = options.region;
  } else if (auto region = NonEmptyEnv(env, "AWS_REGION")) {
    identity.region = *region;
  } else if (auto default_region = NonEmptyEnv(env, "AWS_DEFAULT_REGION")) {
    identity.region = *default_region;
  } else if (const std::string* profile_region = profile.ConfigValue("region")) {
    identity.region = *profile_region;
  } else {
    identity.region = "us-east-1";
  }
  return identity;
}

}  // namespace floe::aws
