#include "catalog/sql/sql_connection.h"

namespace floe::catalog {

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& uri, bool create_if_missing);
Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& uri);

std::string RedactUri(const std::string& uri) {
  // scheme://user:password@host → scheme://user:***@host
  size_t scheme = uri.find("://");
  size_t at = uri.find('@');
  if (scheme == std::string::npos || at == std::string::npos || at < scheme) return uri;
  size_t colon = uri.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return uri;
  return uri.substr(0, colon + 1) + "***" + uri.substr(at);
}

Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri, bool create_if_missing) {
  if (uri.rfind("sqlite:", 0) == 0) return OpenSqliteConnection(uri, create_if_missing);
  if (uri.rfind("postgresql://", 0) == 0 || uri.rfind("postgres://", 0) == 0)
    return OpenPostgresConnection(uri);
  return Status::InvalidArgument(
      "unsupported SQL catalog URI '" + RedactUri(uri) +
      "': use sqlite:///path/catalog.db or postgresql://user:password@host:port/db");
}

}  // namespace floe::catalog
