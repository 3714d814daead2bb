#include "catalog/glue/glue_options.h"

#include "common/redaction.h"
#include "io/http/url_encoding.h"

namespace floe::catalog::glue {
namespace {

Status SetOnce(const std::string& key, const std::string& value, std::string* target,
               const std::string& uri) {
  if (!target->empty() && *target != value) {
    return Status::InvalidArgument("glue catalog uri '" + RedactUri(uri) + "': " + key + " '" + value +
                                   "' contradicts the configured '" + *target + "'");
  }
  *target = value;
  return Status::OK();
}

}  // namespace

bool IsGlueCatalogUri(const std::string& uri) {
  return uri.rfind("glue://", 0) == 0;
}

Status ParseGlueCatalogUri(const std::string& uri, GlueCatalogOptions* options) {
  if (!IsGlueCatalogUri(uri)) {
    return Status::InvalidArgument("glue catalog uri '" + RedactUri(uri) + "' must start with glue://");
  }
  std::string rest = uri.substr(7);
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find_first_of("/#@ ") != std::string::npos) {
    return Status::InvalidArgument("glue catalog uri '" + uri +
                                   "' must be glue://<catalog-id>[?region=...&endpoint=...]");
  }
  if (!rest.empty()) FLOE_RETURN_IF_ERROR(SetOnce("catalog id", rest, &options->catalog_id, uri));
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string pair = query.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string key = pair.substr(0, eq);
    auto value = http::PercentDecode(eq == std::string::npos ? "" : pair.substr(eq + 1));
    if (!value.ok()) return value.status().WithContext("glue catalog uri '" + RedactUri(uri) + "', " + key);
    if (key == "region") {
      FLOE_RETURN_IF_ERROR(SetOnce(key, *value, &options->region, uri));
    } else if (key == "endpoint") {
      FLOE_RETURN_IF_ERROR(SetOnce(key, *value, &options->endpoint, uri));
    } else if (key == "skip_archive") {
      if (*value != "true" && *value != "false") {
        return Status::InvalidArgument("glue catalog uri '" + RedactUri(uri) +
                                       "': skip_archive must be true or false");
      }
      options->skip_archive = *value == "true";
    } else {
      return Status::InvalidArgument("glue catalog uri '" + RedactUri(uri) + "': unknown parameter '" + key +
                                     "' (region, endpoint, skip_archive)");
    }
  }
  return Status::OK();
}

}  // namespace floe::catalog::glue
