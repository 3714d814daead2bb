#include "cli/table_source.h"

#include <utility>

#include "catalog/open/open_catalog.h"
#include "catalog/table/catalog.h"
#include "io/prefix_mapping_file_io.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

Result<std::shared_ptr<FileIO>> MakeTableIO(const std::vector<std::string>& location_maps,
                                            const std::string& metadata_path) {
  std::vector<PrefixMapping> mappings;
  for (const std::string& text : location_maps) {
    FLOE_ASSIGN_OR_RETURN(PrefixMapping mapping, ParsePrefixMapping(text));
    mappings.push_back(std::move(mapping));
  }
  PrefixMappingFileIO probe(nullptr, mappings);
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> base, FileIOForUri(probe.MapPath(metadata_path)));
  if (mappings.empty()) return base;
  return std::shared_ptr<FileIO>(std::make_shared<PrefixMappingFileIO>(std::move(base), std::move(mappings)));
}

Result<OpenedTable> OpenFromMetadataFile(const TableSourceOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io,
                        MakeTableIO(options.location_maps, options.metadata_path));
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, io->ReadAll(options.metadata_path));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        iceberg::TableMetadataFromJson(
                            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                            options.metadata_path));
  return OpenedTable{std::move(metadata), std::move(io)};
}

Result<OpenedTable> OpenFromCatalog(const TableSourceOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<catalog::Catalog> tables,
                        catalog::OpenCatalog(catalog::CatalogOptionsForUri(
                            options.catalog_uri, options.warehouse, options.catalog_name)));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(options.table));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::TableOperations> operations, tables->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, operations->Load());
  // The table's FileIO lives as long as its operations (and catalog).
  auto keep_alive = std::make_shared<
      std::pair<std::shared_ptr<catalog::Catalog>, std::shared_ptr<iceberg::TableOperations>>>(tables,
                                                                                               operations);
  std::shared_ptr<FileIO> io(keep_alive, &operations->io());
  if (!options.location_maps.empty()) {
    std::vector<PrefixMapping> mappings;
    for (const std::string& text : options.location_maps) {
      FLOE_ASSIGN_OR_RETURN(PrefixMapping mapping, ParsePrefixMapping(text));
      mappings.push_back(std::move(mapping));
    }
    io = std::make_shared<PrefixMappingFileIO>(std::move(io), std::move(mappings));
  }
  return OpenedTable{std::move(loaded.metadata), std::move(io)};
}

}  // namespace

void AddTableSourceOptions(CLI::App* cmd, TableSourceOptions* options) {
  cmd->add_option("table", options->table, "Table identifier (namespace.table) in --catalog");
  cmd->add_option(
      "--catalog", options->catalog_uri,
      "Catalog URI: sqlite:///path, postgresql://..., file:///warehouse, rest+http(s)://host:port");
  cmd->add_option("--warehouse", options->warehouse, "Warehouse location of a SQL catalog's tables");
  cmd->add_option("--catalog-name", options->catalog_name,
                  "Catalog name inside a SQL catalog (default floe)");
  cmd->add_option("--metadata", options->metadata_path,
                  "Path or URI of the table's vN.metadata.json (no catalog)");
  cmd->add_option("--location-map", options->location_maps,
                  "FROM=TO: read paths starting with FROM under TO instead (repeatable)");
}

Result<OpenedTable> OpenTableSource(const TableSourceOptions& options) {
  const bool from_catalog = !options.catalog_uri.empty();
  if (from_catalog == !options.metadata_path.empty()) {
    return Status::InvalidArgument("give either TABLE --catalog URI [--warehouse PATH] or --metadata PATH");
  }
  if (from_catalog && options.table.empty()) return Status::InvalidArgument("--catalog needs a TABLE name");
  return from_catalog ? OpenFromCatalog(options) : OpenFromMetadataFile(options);
}

}  // namespace floe::cli
