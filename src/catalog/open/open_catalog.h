// OpenCatalog: the one way to open any catalog floe speaks — SQL (SQLite,
// PostgreSQL in Iceberg's JDBC layout), filesystem (Hadoop layout), REST
// (Glue's Iceberg endpoint, Unity, Polaris, S3 Tables, `floe serve`) and the
// Glue Data Catalog API — from one set of options, for `floe run`, `floe
// maintain`, `floe table ...` and the REST server alike.
//
// Contract:
// - The kind is `type` ("sql", "filesystem", "rest", "glue"), or when empty
//   the uri's scheme: sqlite:/postgresql:/postgres: -> sql, file:// ->
//   filesystem, rest+http(s):// -> rest, glue:// -> glue. A type that
//   contradicts the uri is InvalidArgument naming both.
// - sql: `warehouse` (a local directory or s3:// prefix, through a FileIO
//   built from `s3`) is where new tables are placed; it may be empty for a
//   catalog that is only read (CreateTable then fails naming the missing
//   warehouse). With create_if_missing = false a SQLite database file that
//   does not exist is NotFound (reading commands never create a catalog).
//   The same holds for a filesystem catalog's root directory.
// - filesystem: the catalog root is the uri's path, else `warehouse`; both
//   given and different is InvalidArgument.
// - rest: `rest` carries the client settings; its uri and warehouse are taken
//   from `uri` and `warehouse`, and its S3 settings from `s3`. The service's
//   GET /v1/config happens here, so an unreachable service fails now.
// - glue: `glue` carries the catalog id, region and endpoint, completed from
//   a glue://<catalog-id>?region=...&endpoint=... uri (a contradiction is
//   InvalidArgument); `warehouse` places tables of databases without a
//   LocationUri; `s3` gives the AWS credentials and the FileIO of s3://
//   locations. Nothing is sent to Glue until the first call.
// - Errors name the catalog by its uri with any password masked.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "catalog/commit_guard.h"
#include "catalog/glue/glue_options.h"
#include "catalog/rest/rest_options.h"
#include "catalog/table/catalog.h"
#include "io/s3/s3_config.h"

namespace floe::catalog {

struct CatalogOptions {
  std::string type;  // "sql" | "filesystem" | "rest" | "glue"; empty: from the uri's scheme
  std::string uri;
  std::string warehouse;
  std::string name = "floe";  // the catalog_name column of a SQL catalog
  rest::RestCatalogOptions rest;
  glue::GlueCatalogOptions glue;
  s3::S3Options s3;
  bool create_if_missing = true;
  // Tests only: wraps the FileIO the catalog and its tables use (fault
  // injection). Empty: the FileIO of the warehouse as it is.
  FileIOWrapper wrap_io;
  // Fences every commit made through the catalog (commit_guard.h): inside a
  // SQL catalog's commit transaction where the guard has a query for its
  // database, else right before each commit (GuardedCatalog). Null: none.
  std::shared_ptr<CommitGuard> commit_guard;
};

// Options for a command line's --catalog URI [--warehouse W] [--catalog-name N]
// of a command that works on existing tables: create_if_missing is false
// (a mistyped SQLite path is an error, not a new empty catalog), and a REST
// catalog takes its bearer token or client credential from
// $FLOE_CATALOG_TOKEN / $FLOE_CATALOG_CREDENTIAL.
CatalogOptions CatalogOptionsForUri(const std::string& uri, const std::string& warehouse,
                                    const std::string& name = "floe");

// The kind `options` names ("sql", "filesystem", "rest" or "glue"), or InvalidArgument.
Result<std::string> CatalogKind(const CatalogOptions& options);

Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogOptions& options);

}  // namespace floe::catalog
