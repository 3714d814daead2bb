#include "catalog/sql/sql_connection.h"

namespace floe::catalog {

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& uri, bool create_if_missing);
Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& uri);

Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri, bool create_if_missing) {
  if (uri.rfind("sqlite:", 0) == 0) return OpenSqliteConnection(uri, create_if_missing);
  if (uri.rfind("postgresql://", 0) == 0 || uri.rfind("postgres://", 0) == 0)
    return OpenPostgresConnection(uri);
  return Status::InvalidArgument(
      "unsupported SQL catalog URI '" + RedactUri(uri) +
      "': use sqlite:///path/catalog.db or postgresql://user:password@host:port/db");
}

}  // namespace floe::catalog
