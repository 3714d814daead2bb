#include "sql/sql_connection.h"

namespace floe::sql {

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& uri, bool create_if_missing,
                                                            const std::string& role);
Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& uri,
                                                              const std::string& role);

Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri, bool create_if_missing,
                                                         const std::string& role) {
  if (uri.rfind("sqlite:", 0) == 0) return OpenSqliteConnection(uri, create_if_missing, role);
  if (uri.rfind("postgresql://", 0) == 0 || uri.rfind("postgres://", 0) == 0)
    return OpenPostgresConnection(uri, role);
  return Status::InvalidArgument(
      "unsupported SQL " + role + " URI '" + RedactUri(uri) +
      "': use sqlite:///path/catalog.db or postgresql://user:password@host:port/db");
}

std::string QuoteSqlIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace floe::sql
