// GlueCatalog: a Catalog over the AWS Glue Data Catalog API (not Glue's
// Iceberg REST endpoint, which catalog/rest speaks), laid out as Apache
// Iceberg's GlueCatalog lays it out, so Athena, Redshift, EMR and Spark's
// GlueCatalog see floe's tables as their own.
//
// Layout: a namespace is a Glue database (one level; names of 1-252
// lower-case letters, digits and '_'); an Iceberg table is a Glue table
// (1-255 of the same) of TableType EXTERNAL_TABLE whose parameters hold
// table_type = ICEBERG, metadata_location (the current metadata file) and
// previous_metadata_location, whose StorageDescriptor holds the table
// location and the column list of glue_columns.h. A new table is placed at
// <database LocationUri>/<table>, else <warehouse>/<database>.db/<table>.
// Listing tables returns only Iceberg tables; GetDatabases and GetTables are
// followed through every NextToken.
//
// Commits (GlueTableOperations::Commit) are optimistic: GetTable gives the
// current metadata file and the table's VersionId; the requirements are
// checked against that metadata, the next metadata file is written, and
// UpdateTable is sent with that VersionId (Glue refuses it with
// ConcurrentModificationException when another commit came first). A lost
// race is a retryable CommitFailed and the new file is deleted; an unknown
// outcome (5xx, connection lost) is settled by reading the table back — its
// metadata_location is the new file: committed; otherwise CommitStateUnknown
// and every written file is kept.
//
// Thread safety: like every Catalog, one thread at a time; the AWS client
// underneath is thread-safe and shared by the catalog's table operations.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aws/json_client.h"
#include "catalog/glue/glue_options.h"
#include "catalog/table/catalog.h"
#include "iceberg/transaction/table_operations.h"
#include "io/s3/s3_config.h"

namespace floe::catalog::glue {

inline constexpr char kTableTypeParameter[] = "table_type";
inline constexpr char kIcebergTableType[] = "ICEBERG";
inline constexpr char kMetadataLocationParameter[] = "metadata_location";
inline constexpr char kPreviousMetadataLocationParameter[] = "previous_metadata_location";

// Whether `name` is a Glue database name as Iceberg's GlueCatalog accepts
// it, and the same for table names; InvalidArgument naming it otherwise.
Status ValidateGlueDatabaseName(const std::string& name);
Status ValidateGlueTableName(const std::string& name);

class GlueCatalog final : public Catalog {
 public:
  // `warehouse` places new tables of databases without a LocationUri (may be
  // empty); `s3` carries the AWS credential chain and the FileIO of s3://
  // locations; `io`, when given, serves every table's files instead.
  static Result<std::unique_ptr<GlueCatalog>> Open(const GlueCatalogOptions& options, std::string warehouse,
                                                   const s3::S3Options& s3,
                                                   std::shared_ptr<FileIO> io = nullptr,
                                                   const aws::EnvLookup& env = aws::ProcessEnvironment());

  const std::string& warehouse() const override { return warehouse_; }
  FileIO& io() override { return *io_; }
  aws::AwsJsonClient& client() { return *client_; }

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Result<bool> NamespaceExists(const Namespace& ns);
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override;
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override;
  // Removes the Glue table only; the files stay.
  Status DropTable(const TableIdentifier& table);

 private:
  GlueCatalog(GlueCatalogOptions options, std::string warehouse, s3::S3Options s3, std::shared_ptr<FileIO> io,
              bool io_given, std::shared_ptr<aws::AwsJsonClient> client);

  Result<std::shared_ptr<FileIO>> IoFor(const std::string& location);
  Result<std::string> DefaultLocation(const TableIdentifier& table);

  GlueCatalogOptions options_;
  std::string warehouse_;
  s3::S3Options s3_;
  std::shared_ptr<FileIO> io_;
  bool io_given_;
  std::shared_ptr<aws::AwsJsonClient> client_;
};

// The parts of a Glue table a commit needs.
struct GlueTable {
  std::string version_id;
  std::string table_type;  // the table_type parameter as stored
  std::string description;
  std::map<std::string, std::string> parameters;
  std::map<std::string, std::string> column_comments;  // Glue column name -> Comment
  std::string metadata_location;
};

class GlueTableOperations final : public iceberg::TableOperations {
 public:
  GlueTableOperations(std::shared_ptr<aws::AwsJsonClient> client, GlueCatalogOptions options,
                      TableIdentifier identifier, std::shared_ptr<FileIO> io,
                      std::optional<iceberg::LoadedTable> loaded)
      : client_(std::move(client)),
        options_(std::move(options)),
        identifier_(std::move(identifier)),
        io_(std::move(io)),
        cached_(std::move(loaded)) {}

  Result<iceberg::LoadedTable> Load() override;
  Result<iceberg::LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates) override;
  FileIO& io() override { return *io_; }
  std::string name() const override { return identifier_.ToString(); }

 private:
  Result<iceberg::LoadedTable> Read(const std::string& metadata_location);

  std::shared_ptr<aws::AwsJsonClient> client_;
  GlueCatalogOptions options_;
  TableIdentifier identifier_;
  std::shared_ptr<FileIO> io_;
  std::optional<iceberg::LoadedTable> cached_;
};

// GetTable of `table`: NotFound when Glue has no such table, InvalidArgument
// when it is not an Iceberg table or has no metadata_location.
Result<GlueTable> GetGlueTable(aws::AwsJsonClient& client, const GlueCatalogOptions& options,
                               const TableIdentifier& table);

// The TableInput of CreateTable/UpdateTable for `metadata` committed at
// `metadata_location`: `existing` (the table being replaced, or nullptr)
// gives the parameters and comments to keep.
json::Json GlueTableInput(const TableIdentifier& table, const iceberg::TableMetadata& metadata,
                          const std::string& metadata_location, const std::string& previous_metadata_location,
                          const GlueTable* existing);

}  // namespace floe::catalog::glue
