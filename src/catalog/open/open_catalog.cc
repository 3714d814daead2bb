#include "catalog/open/open_catalog.h"

#include <cstdlib>
#include <filesystem>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog/glue/glue_catalog.h"
#include "catalog/open/guarded_catalog.h"
#include "catalog/rest/rest_catalog.h"
#include "common/redaction.h"
#include "io/s3/file_io_factory.h"

namespace floe::catalog {

namespace {

bool StartsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool IsSqlUri(const std::string& uri) {
  return StartsWith(uri, "sqlite:") || StartsWith(uri, "postgresql:") || StartsWith(uri, "postgres:");
}

std::string KindOfUri(const std::string& uri) {
  if (IsSqlUri(uri)) return "sql";
  if (StartsWith(uri, "file://")) return "filesystem";
  if (rest::IsRestCatalogUri(uri)) return "rest";
  if (glue::IsGlueCatalogUri(uri)) return "glue";
  return "";
}

// The FileIO a catalog's tables use: `io` (the warehouse's, or the local
// FileIO when none was chosen) through the test wrapper when one is set.
std::shared_ptr<FileIO> TablesIo(const CatalogOptions& options, std::shared_ptr<FileIO> io) {
  if (!options.wrap_io) return io;
  return options.wrap_io(io ? std::move(io) : MakeLocalFileIO());
}

Result<std::unique_ptr<Catalog>> OpenFilesystem(const CatalogOptions& options) {
  std::string root = options.uri.empty() ? "" : LocalPathOf(options.uri);
  if (root.empty()) root = options.warehouse.empty() ? "" : LocalPathOf(options.warehouse);
  if (root.empty()) {
    return Status::InvalidArgument(
        "a filesystem catalog needs a root directory (file:///path or a warehouse)");
  }
  if (!options.uri.empty() && !options.warehouse.empty() && LocalPathOf(options.warehouse) != root) {
    return Status::InvalidArgument("the filesystem catalog " + RedactUri(options.uri) +
                                   " is its own warehouse; got warehouse " + options.warehouse);
  }
  std::error_code ec;
  if (!options.create_if_missing && !std::filesystem::is_directory(root, ec)) {
    return Status::NotFound("filesystem catalog " + root + " does not exist");
  }
  return OpenFilesystemCatalog(root, TablesIo(options, nullptr));
}

Result<std::unique_ptr<Catalog>> OpenSql(const CatalogOptions& options) {
  std::shared_ptr<FileIO> io;
  if (!options.warehouse.empty()) {
    auto warehouse_io = FileIOForUri(options.warehouse, options.s3);
    if (!warehouse_io.ok()) return warehouse_io.status().WithContext("warehouse " + options.warehouse);
    io = std::move(*warehouse_io);
  }
  return OpenSqlCatalog(options.uri, options.warehouse, TablesIo(options, std::move(io)), options.name,
                        options.create_if_missing, options.commit_guard);
}

Result<std::unique_ptr<Catalog>> OpenRest(const CatalogOptions& options) {
  rest::RestCatalogOptions rest_options = options.rest;
  rest_options.uri = options.uri;
  if (!options.warehouse.empty()) rest_options.warehouse = options.warehouse;
  rest_options.s3 = options.s3;
  FLOE_ASSIGN_OR_RETURN(auto catalog, rest::RestCatalog::Open(rest_options, TablesIo(options, nullptr)));
  return std::unique_ptr<Catalog>(std::move(catalog));
}

Result<std::unique_ptr<Catalog>> OpenGlue(const CatalogOptions& options) {
  glue::GlueCatalogOptions glue_options = options.glue;
  if (!options.uri.empty()) FLOE_RETURN_IF_ERROR(glue::ParseGlueCatalogUri(options.uri, &glue_options));
  glue_options.retry = s3::RetryPolicyOf(options.s3);
  FLOE_ASSIGN_OR_RETURN(auto catalog, glue::GlueCatalog::Open(glue_options, options.warehouse, options.s3));
  return std::unique_ptr<Catalog>(std::move(catalog));
}

}  // namespace

CatalogOptions CatalogOptionsForUri(const std::string& uri, const std::string& warehouse,
                                    const std::string& name) {
  CatalogOptions options;
  options.uri = uri;
  options.warehouse = warehouse;
  options.name = name;
  options.create_if_missing = false;
  if (rest::IsRestCatalogUri(uri)) {
    if (const char* token = std::getenv("FLOE_CATALOG_TOKEN"); token && *token) options.rest.token = token;
    if (const char* credential = std::getenv("FLOE_CATALOG_CREDENTIAL"); credential && *credential) {
      options.rest.credential = credential;
    }
  }
  return options;
}

Result<std::string> CatalogKind(const CatalogOptions& options) {
  const std::string from_uri = KindOfUri(options.uri);
  if (options.type.empty()) {
    if (!from_uri.empty()) return from_uri;
    if (options.uri.empty()) return Status::InvalidArgument("no catalog uri given");
    return Status::InvalidArgument("unsupported catalog URI '" + RedactUri(options.uri) +
                                   "' (expected sqlite:///path, postgresql://..., file:///warehouse or "
                                   "rest+http(s)://host[:port][/path] or glue://<account-id>?region=...)");
  }
  if (options.type != "sql" && options.type != "filesystem" && options.type != "rest" &&
      options.type != "glue") {
    return Status::InvalidArgument("unknown catalog type \"" + options.type +
                                   "\" (sql, filesystem, rest, glue)");
  }
  if ((options.type == "filesystem" || options.type == "glue") && options.uri.empty()) return options.type;
  if (from_uri != options.type) {
    return Status::InvalidArgument("catalog type \"" + options.type + "\" does not match the uri '" +
                                   RedactUri(options.uri) + "'");
  }
  return options.type;
}

Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::string kind, CatalogKind(options));
  Result<std::unique_ptr<Catalog>> opened = Status::Internal("catalog kind not handled");
  if (kind == "filesystem") {
    opened = OpenFilesystem(options);
  } else if (kind == "sql") {
    opened = OpenSql(options);
  } else if (kind == "glue") {
    opened = OpenGlue(options);
  } else {
    opened = OpenRest(options);
  }
  if (!opened.ok()) {
    const std::string name = options.uri.empty() ? options.warehouse : options.uri;
    return opened.status().WithContext("catalog " + RedactUri(name));
  }
  // A SQL catalog checks the guard itself (in its commit transaction where it can).
  if (options.commit_guard && kind != "sql") return GuardCatalog(std::move(*opened), options.commit_guard);
  return opened;
}

}  // namespace floe::catalog
