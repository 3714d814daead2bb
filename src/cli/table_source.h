// How `floe table scan` and `floe table changes` find the table they read:
// TABLE in --catalog (with --warehouse, --catalog-name), or a metadata file
// (--metadata), either with --location-map prefixes rewritten.
//
// Contract: AddTableSourceOptions registers those options on a command;
// OpenTableSource checks that exactly one of a catalog table and a metadata
// file was given and returns the table's metadata with a FileIO that reads
// its files (kept alive with the catalog it came from).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "io/file_io.h"

namespace floe::cli {

struct TableSourceOptions {
  std::string table;  // namespace.table in --catalog
  std::string catalog_uri;
  std::string warehouse;
  std::string catalog_name = "floe";
  std::string metadata_path;
  std::vector<std::string> location_maps;
};

struct OpenedTable {
  iceberg::TableMetadata metadata;
  std::shared_ptr<FileIO> io;
};

void AddTableSourceOptions(CLI::App* command, TableSourceOptions* options);
Result<OpenedTable> OpenTableSource(const TableSourceOptions& options);

}  // namespace floe::cli
