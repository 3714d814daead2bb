// `floe table list|describe|history|files`: inspect Iceberg tables through a
// catalog (sqlite:///path, postgresql://..., file:///warehouse).
#include <ctime>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "catalog/open/open_catalog.h"
#include "catalog/table/catalog.h"
#include "cli/commands.h"
#include "iceberg/transaction/table.h"
#include "iceberg/transaction/table_reading.h"
#include "ingest/progress_reporter.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {

namespace {

using iceberg::NestedField;
using iceberg::Snapshot;
using iceberg::TableMetadata;

struct TableCommandOptions {
  std::string catalog_uri;
  std::string warehouse;
  std::string catalog_name = "floe";
  std::string target;  // namespace (list) or table identifier
  std::optional<int64_t> snapshot_id;
};

int Fail(const char* command, const Status& status) {
  std::cerr << "floe table " << command << ": " << status.ToString() << "\n";
  return 1;
}

Result<std::unique_ptr<catalog::Catalog>> Open(const TableCommandOptions& options) {
  return catalog::OpenCatalog(
      catalog::CatalogOptionsForUri(options.catalog_uri, options.warehouse, options.catalog_name));
}

Result<iceberg::Table> LoadTable(const TableCommandOptions& options) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(options.target));
  FLOE_ASSIGN_OR_RETURN(auto tables, Open(options));
  FLOE_ASSIGN_OR_RETURN(auto ops, tables->LoadTable(id));
  return iceberg::Table::Load(std::move(ops));
}

void PrintFields(std::ostream& out, const std::vector<NestedField>& fields, int depth) {
  for (const auto& f : fields) {
    out << std::string(2 + 2 * depth, ' ') << f.id << ": " << f.name << " "
        << (f.type.is_primitive() ? f.type.ToString()
                                  : (f.type.kind == iceberg::TypeKind::kStruct ? "struct"
                                     : f.type.kind == iceberg::TypeKind::kList ? "list"
                                                                               : "map"))
        << (f.required ? " required" : " optional");
    if (f.doc) out << "  -- " << *f.doc;
    out << "\n";
    if (f.type.is_nested()) PrintFields(out, f.type.fields, depth + 1);
  }
}

Status RunList(const TableCommandOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto tables, Open(options));
  catalog::Namespace ns;
  if (!options.target.empty()) {
    FLOE_ASSIGN_OR_RETURN(ns, catalog::ParseNamespace(options.target));
  }
  FLOE_ASSIGN_OR_RETURN(auto namespaces, tables->ListNamespaces(ns));
  for (const auto& child : namespaces) std::cout << "namespace " << catalog::NamespaceToString(child) << "\n";
  if (!ns.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto identifiers, tables->ListTables(ns));
    for (const auto& id : identifiers) std::cout << "table " << id.ToString() << "\n";
  }
  return Status::OK();
}

Status RunDescribe(const TableCommandOptions& options) {
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, LoadTable(options));
  const TableMetadata& m = table.metadata();
  std::ostringstream out;
  out << "table: " << options.target << "\n"
      << "location: " << m.location << "\n"
      << "metadata: " << table.metadata_location() << "\n"
      << "format-version: " << m.format_version << "\n"
      << "table-uuid: " << m.table_uuid << "\n";
  if (const Snapshot* current = m.CurrentSnapshot()) {
    out << "current-snapshot: " << current->snapshot_id << " (sequence " << current->sequence_number << ", "
        << ingest::FormatUtcMillis(current->timestamp_ms) << ", " << current->operation() << ")\n";
  } else {
    out << "current-snapshot: none\n";
  }
  out << "snapshots: " << m.snapshots.size() << "\n";
  if (const iceberg::Schema* schema = m.CurrentSchema()) {
    out << "schema " << schema->schema_id << " (last-column-id " << m.last_column_id << "):\n";
    PrintFields(out, schema->fields, 0);
    if (!schema->identifier_field_ids.empty()) {
      out << "  identifier fields:";
      for (int32_t id : schema->identifier_field_ids) out << " " << id;
      out << "\n";
    }
  }
  if (const iceberg::PartitionSpec* spec = m.DefaultSpec()) {
    out << "partition spec " << spec->spec_id << ":" << (spec->fields.empty() ? " unpartitioned" : "")
        << "\n";
    for (const auto& f : spec->fields) {
      const iceberg::Schema* schema = m.CurrentSchema();
      const std::string source = schema != nullptr ? schema->FindNameById(f.source_id) : "";
      out << "  " << f.field_id << ": " << f.name << " = " << f.transform.ToString() << "("
          << (source.empty() ? "#" + std::to_string(f.source_id) : source) << ")\n";
    }
  }
  if (const iceberg::SortOrder* order = m.DefaultSortOrder()) {
    out << "sort order " << order->order_id << ":" << (order->is_unsorted() ? " unsorted" : "") << "\n";
    for (const auto& f : order->fields) {
      const iceberg::Schema* schema = m.CurrentSchema();
      const std::string source = schema != nullptr ? schema->FindNameById(f.source_id) : "";
      out << "  " << f.transform.ToString() << "(" << source << ") "
          << (f.direction == iceberg::SortDirection::kAsc ? "asc" : "desc") << " "
          << (f.null_order == iceberg::NullOrder::kNullsFirst ? "nulls-first" : "nulls-last") << "\n";
    }
  }
  out << "properties:" << (m.properties.empty() ? " none" : "") << "\n";
  for (const auto& [k, v] : m.properties) out << "  " << k << " = " << v << "\n";
  std::cout << out.str();
  return Status::OK();
}

Status RunHistory(const TableCommandOptions& options) {
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, LoadTable(options));
  const TableMetadata& m = table.metadata();
  std::cout << "snapshot-id\tparent-id\tsequence\ttimestamp\toperation\tsummary\n";
  for (const auto& s : m.snapshots) {
    std::string highlights;
    for (const char* key : {"added-data-files", "added-records", "added-delete-files",
                            "added-position-deletes", "deleted-data-files", "deleted-records",
                            "total-records", "total-data-files", "total-delete-files"}) {
      auto it = s.summary.find(key);
      if (it == s.summary.end()) continue;
      if (!highlights.empty()) highlights += ", ";
      highlights += std::string(key) + "=" + it->second;
    }
    for (const auto& [key, value] : s.summary) {
      if (key.rfind("floe.", 0) != 0) continue;  // floe's own pipeline/batch markers
      if (!highlights.empty()) highlights += ", ";
      highlights += key + "=" + value;
    }
    const bool current = m.current_snapshot_id == s.snapshot_id;
    std::cout << s.snapshot_id << (current ? "*" : "") << "\t"
              << (s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "-") << "\t"
              << s.sequence_number << "\t" << ingest::FormatUtcMillis(s.timestamp_ms) << "\t" << s.operation()
              << "\t" << highlights << "\n";
  }
  return Status::OK();
}

const char* ContentName(const iceberg::DataFile& f) {
  switch (f.content) {
    case iceberg::DataFileContent::kData: return "data";
    case iceberg::DataFileContent::kPositionDeletes:
      return iceberg::IsDeletionVector(f) ? "deletion-vector" : "position-deletes";
    case iceberg::DataFileContent::kEqualityDeletes: return "equality-deletes";
  }
  return "unknown";
}

Status RunFiles(const TableCommandOptions& options) {
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, LoadTable(options));
  const TableMetadata& m = table.metadata();
  const Snapshot* snapshot = options.snapshot_id ? m.SnapshotById(*options.snapshot_id) : m.CurrentSnapshot();
  if (snapshot == nullptr) {
    if (options.snapshot_id) {
      return Status::NotFound("snapshot " + std::to_string(*options.snapshot_id) + " is not in table " +
                              options.target);
    }
    return Status::OK();  // an empty table has no files
  }
  FLOE_ASSIGN_OR_RETURN(auto entries, iceberg::LiveEntries(table.io(), m, *snapshot));
  std::cout << "path\tcontent\trecords\tsize\tpartition\tsequence\n";
  for (const auto& e : entries) {
    const iceberg::DataFile& f = e.data_file;
    std::string partition = "-";
    if (const iceberg::PartitionSpec* spec = m.SpecById(f.spec_id);
        spec != nullptr && !spec->fields.empty()) {
      auto path = spec->PartitionPath(f.partition);
      partition = path.ok() ? *path : "?";
    }
    std::cout << f.file_path << "\t" << ContentName(f) << "\t" << f.record_count << "\t"
              << f.file_size_in_bytes << "\t" << partition << "\t"
              << (e.sequence_number ? std::to_string(*e.sequence_number) : "-") << "\n";
  }
  return Status::OK();
}

void AddCatalogOptions(CLI::App* cmd, TableCommandOptions* options) {
  cmd->add_option(
         "--catalog", options->catalog_uri,
         "Catalog URI: sqlite:///path, postgresql://..., file:///warehouse, rest+http(s)://host:port")
      ->required();
  cmd->add_option("--warehouse", options->warehouse, "Warehouse location of a SQL catalog's tables");
  cmd->add_option("--catalog-name", options->catalog_name,
                  "Catalog name inside a SQL catalog (default floe)");
}

}  // namespace

CLI::App* FindOrAddTableGroup(CLI::App& app) {
  auto existing = app.get_subcommands([](const CLI::App* sub) { return sub->get_name() == "table"; });
  if (!existing.empty()) return existing.front();
  CLI::App* group =
      app.add_subcommand("table", "Read, inspect and maintain Iceberg tables through a catalog");
  group->require_subcommand(1);
  return group;
}

void RegisterTableCommands(CLI::App& app, ExitCode& exit_code) {
  CLI::App* group = FindOrAddTableGroup(app);
  {
    auto options = std::make_shared<TableCommandOptions>();
    auto* cmd = group->add_subcommand("list", "List namespaces, and the tables of NAMESPACE when given");
    AddCatalogOptions(cmd, options.get());
    cmd->add_option("namespace", options->target, "Namespace (a.b); default: top level");
    cmd->callback([options, &exit_code] {
      Status s = RunList(*options);
      exit_code.value = s.ok() ? 0 : Fail("list", s);
    });
  }
  {
    auto options = std::make_shared<TableCommandOptions>();
    auto* cmd =
        group->add_subcommand("describe", "Schema, partition spec, sort order, properties, current snapshot");
    AddCatalogOptions(cmd, options.get());
    cmd->add_option("table", options->target, "Table identifier (namespace.table)")->required();
    cmd->callback([options, &exit_code] {
      Status s = RunDescribe(*options);
      exit_code.value = s.ok() ? 0 : Fail("describe", s);
    });
  }
  {
    auto options = std::make_shared<TableCommandOptions>();
    auto* cmd =
        group->add_subcommand("history", "Snapshots: id, parent, sequence number, time, operation, summary");
    AddCatalogOptions(cmd, options.get());
    cmd->add_option("table", options->target, "Table identifier (namespace.table)")->required();
    cmd->callback([options, &exit_code] {
      Status s = RunHistory(*options);
      exit_code.value = s.ok() ? 0 : Fail("history", s);
    });
  }
  {
    auto options = std::make_shared<TableCommandOptions>();
    auto* cmd =
        group->add_subcommand("files", "Live data and delete files of the current (or --snapshot) snapshot");
    AddCatalogOptions(cmd, options.get());
    cmd->add_option("table", options->target, "Table identifier (namespace.table)")->required();
    auto snapshot = std::make_shared<int64_t>(0);
    auto* snapshot_option = cmd->add_option("--snapshot", *snapshot, "Snapshot id (default: current)");
    cmd->callback([options, snapshot, snapshot_option, &exit_code] {
      if (snapshot_option->count() > 0) options->snapshot_id = *snapshot;
      Status s = RunFiles(*options);
      exit_code.value = s.ok() ? 0 : Fail("files", s);
    });
  }
}

}  // namespace floe::cli
