#include "ingest/config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;
using Codes = std::vector<OperationCode>;

constexpr const char* kMinimal = R"toml(
name = "cda-main"
[source]
uri = "/landing/cda"
[catalog]
uri = "sqlite:///var/floe/catalog.db"
warehouse = "/var/floe/warehouse"
)toml";

// Parses `text` as the file /etc/floe/pipeline.toml (never read from disk).
Result<PipelineConfig> Parse(const std::string& text) {
  return ParsePipelineConfig(text, "/etc/floe/pipeline.toml");
}

// The error message of a parse that must fail with InvalidArgument.
std::string ErrorOf(const std::string& text) {
  auto result = Parse(text);
  if (result.ok()) return "<parsed without error>";
  EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidArgument) << result.status().ToString();
  return result.status().message();
}

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* env = std::getenv("FLOE_STATE_DIR")) saved_state_dir_ = env;
    ::unsetenv("FLOE_STATE_DIR");
  }
  void TearDown() override {
    if (saved_state_dir_) ::setenv("FLOE_STATE_DIR", saved_state_dir_->c_str(), 1);
    ::unsetenv("FLOE_TEST_SECRET");
  }
  std::optional<std::string> saved_state_dir_;
};

TEST_F(ConfigTest, MinimalCdaConfigGetsEveryDefault) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(kMinimal));
  EXPECT_EQ(config.name, "cda-main");
  EXPECT_EQ(config.config_path, "/etc/floe/pipeline.toml");
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kCda);
  EXPECT_EQ(config.source.format, SourceFormat::kParquet);
  EXPECT_EQ(config.source.changes, ChangeKind::kCda);
  EXPECT_EQ(config.source.uri, "/landing/cda");
  EXPECT_TRUE(config.source.include.empty());
  EXPECT_FALSE(config.source.reload_on_reset);
  EXPECT_EQ(config.catalog.type, "sql");
  EXPECT_EQ(config.catalog.uri, "sqlite:///var/floe/catalog.db");
  EXPECT_EQ(config.catalog.warehouse, "/var/floe/warehouse");
  EXPECT_EQ(config.catalog.name, "floe");
  EXPECT_EQ(config.target.ns, "default");
  EXPECT_EQ(config.target.format_version, 2);
  EXPECT_EQ(config.target.target_file_size_bytes, 128 << 20);
  EXPECT_EQ(config.target.codec, "zstd");
  EXPECT_FALSE(config.target.codec_level.has_value());
  EXPECT_EQ(config.merge.mode, WriteMode::kMerge);
  EXPECT_EQ(config.merge.keys, std::vector<std::string>{"id"});
  EXPECT_EQ(config.merge.order_by,
            (std::vector<OrderColumn>{{"gwcbi___seqval_hex", OrderingKind::kPaddedHex}}));
  EXPECT_EQ(config.merge.operation_column, "gwcbi___operation");
  EXPECT_EQ(config.merge.insert_values, (Codes{0, 2}));
  EXPECT_EQ(config.merge.update_values, (Codes{4}));
  EXPECT_EQ(config.merge.delete_values, (Codes{1}));
  EXPECT_EQ(config.merge.ignore_values, (Codes{3}));
  EXPECT_EQ(config.merge.tombstone_retention_ms, int64_t{30} * 86'400'000);
  EXPECT_EQ(config.schema.on_incompatible, IncompatiblePolicy::kRescue);
  EXPECT_FALSE(config.lineage.source_file || config.lineage.row_number || config.lineage.file_modified ||
               config.lineage.ingested_at);
  EXPECT_EQ(config.trigger.interval_ms, 60'000);
  EXPECT_EQ(config.trigger.max_files_per_batch, 1000);
  EXPECT_EQ(config.trigger.max_bytes_per_batch, int64_t{1} << 30);
  EXPECT_EQ(config.state_dir, "/etc/floe/.floe-state/cda-main");
  EXPECT_EQ(config.s3.max_attempts, 6);
  EXPECT_TRUE(config.tables.empty());
}

TEST_F(ConfigTest, EveryKeyIsParsed) {
  ::setenv("FLOE_TEST_SECRET", "s3cr3t", 1);
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "all_keys"
[source]
format = "cda"
uri = "s3://bucket/CDA/SQL"
include = ["pc_*", "cc_claim"]
exclude = ["pctl_*"]
reload_on_reset = true
[catalog]
type = "sql"
uri = "postgresql://floe@db.example.com/lake"
warehouse = "s3://bucket/warehouse"
name = "lake"
[target]
namespace = "lake.cda"
format_version = 3
target_file_size = "256MiB"
codec = "ZSTD"
codec_level = 9
partition_by = ["day(createtime)", "bucket(16, id)", "region"]
properties = { "write.metadata.previous-versions-max" = "10", owner = "data" }
[merge]
mode = "merge"
keys = ["id", "branch"]
order_by = "seq"
order_kind = "number"
operation_column = "op"
insert_values = [10]
update_values = [11, 12]
delete_values = [13]
ignore_values = []
tombstone_retention = "7d"
[schema]
on_incompatible = "quarantine"
[lineage]
source_file = true
row_number = true
file_modified = true
ingested_at = true
[trigger]
interval = "5m"
max_files_per_batch = 50
max_bytes_per_batch = "64MB"
[state]
dir = "/var/lib/floe/state"
[s3]
region = "eu-west-1"
endpoint = "http://127.0.0.1:9000"
path_style = true
access_key_id = "AKIAEXAMPLE"
secret_access_key = "${FLOE_TEST_SECRET}"
session_token = "token"
profile = "analytics"
max_attempts = 3
connect_timeout = "2s"
request_timeout = 30
retry_budget = "1m"
retry_base_delay = "50ms"
retry_max_delay = "2s"
read_parallelism = 8
upload_parallelism = 2
multipart_part_size = "16MiB"
multipart_threshold = "32MiB"
[tables.pc_policy]
keys = ["policyid"]
order_by = "updatetime"
order_kind = "timestamp"
operation_column = ""
mode = "append"
partition_by = ["month(createtime)"]
on_incompatible = "fail"
target_table = "policies"
properties = { owner = "policy-team" }
)toml"));
  EXPECT_EQ(config.name, "all_keys");
  EXPECT_EQ(config.source.uri, "s3://bucket/CDA/SQL");
  EXPECT_EQ(config.source.include, (std::vector<std::string>{"pc_*", "cc_claim"}));
  EXPECT_EQ(config.source.exclude, std::vector<std::string>{"pctl_*"});
  EXPECT_TRUE(config.source.reload_on_reset);
  EXPECT_EQ(config.catalog.uri, "postgresql://floe@db.example.com/lake");
  EXPECT_EQ(config.catalog.warehouse, "s3://bucket/warehouse");
  EXPECT_EQ(config.catalog.name, "lake");
  EXPECT_EQ(config.target.ns, "lake.cda");
  EXPECT_EQ(config.target.format_version, 3);
  EXPECT_EQ(config.target.target_file_size_bytes, 256 << 20);
  EXPECT_EQ(config.target.codec, "zstd");
  EXPECT_EQ(config.target.codec_level, 9);
  EXPECT_EQ(config.target.partition_by,
            (std::vector<std::string>{"day(createtime)", "bucket(16, id)", "region"}));
  EXPECT_EQ(config.target.table_properties.at("write.metadata.previous-versions-max"), "10");
  EXPECT_EQ(config.target.table_properties.at("owner"), "data");
  EXPECT_EQ(config.merge.keys, (std::vector<std::string>{"id", "branch"}));
  EXPECT_EQ(config.merge.order_by, (std::vector<OrderColumn>{{"seq", OrderingKind::kNumber}}));
  EXPECT_EQ(config.merge.operation_column, "op");
  EXPECT_EQ(config.merge.insert_values, (Codes{10}));
  EXPECT_EQ(config.merge.update_values, (Codes{11, 12}));
  EXPECT_EQ(config.merge.delete_values, (Codes{13}));
  EXPECT_TRUE(config.merge.ignore_values.empty());
  EXPECT_EQ(config.merge.tombstone_retention_ms, 7 * 86'400'000);
  EXPECT_EQ(config.schema.on_incompatible, IncompatiblePolicy::kQuarantine);
  EXPECT_TRUE(config.lineage.source_file && config.lineage.row_number && config.lineage.file_modified &&
              config.lineage.ingested_at);
  EXPECT_EQ(config.trigger.interval_ms, 300'000);
  EXPECT_EQ(config.trigger.max_files_per_batch, 50);
  EXPECT_EQ(config.trigger.max_bytes_per_batch, 64'000'000);
  EXPECT_EQ(config.state_dir, "/var/lib/floe/state");
  EXPECT_EQ(config.s3.region, "eu-west-1");
  EXPECT_EQ(config.s3.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(config.s3.path_style, true);
  EXPECT_EQ(config.s3.access_key_id, "AKIAEXAMPLE");
  EXPECT_EQ(config.s3.secret_access_key, "s3cr3t");
  EXPECT_EQ(config.s3.session_token, "token");
  EXPECT_EQ(config.s3.profile, "analytics");
  EXPECT_EQ(config.s3.max_attempts, 3);
  EXPECT_EQ(config.s3.connect_timeout_ms, 2000);
  EXPECT_EQ(config.s3.request_timeout_ms, 30'000);
  EXPECT_EQ(config.s3.retry_budget_ms, 60'000);
  EXPECT_EQ(config.s3.retry_base_delay_ms, 50);
  EXPECT_EQ(config.s3.retry_max_delay_ms, 2000);
  EXPECT_EQ(config.s3.read_parallelism, 8);
  EXPECT_EQ(config.s3.upload_parallelism, 2);
  EXPECT_EQ(config.s3.multipart_part_size, 16 << 20);
  EXPECT_EQ(config.s3.multipart_threshold, 32 << 20);

  ASSERT_EQ(config.tables.count("pc_policy"), 1u);
  const TableOverride& policy = config.tables.at("pc_policy");
  ASSERT_TRUE(policy.merge.has_value());
  EXPECT_EQ(policy.merge->mode, WriteMode::kAppend);
  EXPECT_EQ(policy.merge->keys, std::vector<std::string>{"policyid"});
  EXPECT_EQ(policy.merge->order_by, (std::vector<OrderColumn>{{"updatetime", OrderingKind::kTimestamp}}));
  EXPECT_EQ(policy.merge->operation_column, "");
  EXPECT_EQ(policy.merge->update_values, (Codes{11, 12}));  // unset keys keep [merge]
  EXPECT_EQ(policy.partition_by, std::vector<std::string>{"month(createtime)"});
  EXPECT_EQ(policy.on_incompatible, IncompatiblePolicy::kFail);
  EXPECT_EQ(policy.target_table, "policies");
  EXPECT_EQ(policy.table_properties.at("owner"), "policy-team");
}

TEST_F(ConfigTest, ParquetSourceDefaultsToAppendAndNamesTheTableAfterTheUri) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "raw"
[source]
format = "parquet"
uri = "s3://landing/raw/events/"
settle = "500ms"
hive_partitioning = false
[catalog]
type = "filesystem"
warehouse = "/data/wh"
)toml"));
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kPrefix);
  EXPECT_EQ(config.source.format, SourceFormat::kParquet);
  EXPECT_EQ(config.source.changes, ChangeKind::kAppend);
  EXPECT_EQ(config.source.table, "events");
  EXPECT_EQ(config.source.settle_ms, 500);
  EXPECT_FALSE(config.source.hive_partitioning);
  EXPECT_EQ(config.merge.mode, WriteMode::kAppend);
  EXPECT_TRUE(config.merge.keys.empty());
  EXPECT_EQ(config.merge.operation_column, "");
  EXPECT_EQ(config.catalog.uri, "file:///data/wh");

  ASSERT_OK_AND_ASSIGN(PipelineConfig named, Parse(R"toml(
name = "raw"
[source]
format = "parquet"
uri = "/landing/raw"
table = "clicks"
[catalog]
type = "filesystem"
uri = "file:///data/wh"
warehouse = "/data/wh"
[merge]
mode = "merge"
keys = ["id"]
order_by = "updated_at"
)toml"));
  EXPECT_EQ(named.source.table, "clicks");
  EXPECT_EQ(named.source.settle_ms, 10'000);
  EXPECT_TRUE(named.source.hive_partitioning);
  EXPECT_EQ(named.merge.mode, WriteMode::kMerge);
  EXPECT_EQ(named.merge.order_by, (std::vector<OrderColumn>{{"updated_at", OrderingKind::kNumber}}));
}

TEST_F(ConfigTest, RelativePathsResolveAgainstTheConfigDirectory) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParsePipelineConfig(R"toml(
name = "p"
[source]
uri = "landing/../landing/cda"
[catalog]
uri = "sqlite://state/catalog.db"
warehouse = "./warehouse"
[state]
dir = "run/state"
)toml",
                                                                  "/srv/pipelines/p.toml"));
  EXPECT_EQ(config.source.uri, "/srv/pipelines/landing/cda");
  EXPECT_EQ(config.catalog.uri, "sqlite:///srv/pipelines/state/catalog.db");
  EXPECT_EQ(config.catalog.warehouse, "/srv/pipelines/warehouse");
  EXPECT_EQ(config.state_dir, "/srv/pipelines/run/state");

  ASSERT_OK_AND_ASSIGN(PipelineConfig fs_catalog, ParsePipelineConfig(R"toml(
name = "p"
[source]
uri = "file://landing"
[catalog]
type = "filesystem"
uri = "file://wh"
warehouse = "wh/"
)toml",
                                                                      "/srv/pipelines/p.toml"));
  EXPECT_EQ(fs_catalog.source.uri, "/srv/pipelines/landing");
  EXPECT_EQ(fs_catalog.catalog.warehouse, "/srv/pipelines/wh");
  EXPECT_EQ(fs_catalog.catalog.uri, "file:///srv/pipelines/wh");
}

TEST_F(ConfigTest, StateDirFallsBackToFloeStateDirThenTheConfigDirectory) {
  ::setenv("FLOE_STATE_DIR", "/var/floe-states", 1);
  ASSERT_OK_AND_ASSIGN(PipelineConfig from_env, Parse(kMinimal));
  EXPECT_EQ(from_env.state_dir, "/var/floe-states/cda-main");
  ::unsetenv("FLOE_STATE_DIR");
  ASSERT_OK_AND_ASSIGN(PipelineConfig from_dir, Parse(kMinimal));
  EXPECT_EQ(from_dir.state_dir, "/etc/floe/.floe-state/cda-main");
}

TEST_F(ConfigTest, StateUriPutsTheLedgerInPostgresWithSecretsFromTheEnvironment) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig sqlite, Parse(kMinimal));
  EXPECT_EQ(sqlite.state_uri, "");  // the default: ledger.db in the state dir
  ::setenv("FLOE_TEST_SECRET", "s3cret", 1);
  ASSERT_OK_AND_ASSIGN(PipelineConfig config,
                       Parse(std::string(kMinimal) +
                             "[state]\nuri = \"postgresql://floe:${FLOE_TEST_SECRET}@db:5432/floe\"\n"));
  EXPECT_EQ(config.state_uri, "postgresql://floe:s3cret@db:5432/floe");
  EXPECT_EQ(config.state_dir, "/etc/floe/.floe-state/cda-main");  // still the key indexes' home
  const std::string error =
      ErrorOf(std::string(kMinimal) + "[state]\nuri = \"mysql://floe:${FLOE_TEST_SECRET}@db/floe\"\n");
  EXPECT_THAT(error, HasSubstr("[state] uri: must be a PostgreSQL URI"));
  EXPECT_THAT(error, ::testing::Not(HasSubstr("s3cret")));
}

TEST_F(ConfigTest, ForTableMergesTheOverrideOverTheGlobals) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(std::string(kMinimal) + R"toml(
[target]
partition_by = ["day(createtime)"]
properties = { owner = "data", tier = "gold" }
[lineage]
source_file = true
[tables.pc_Policy]
order_by = "gwcbi___seqval"
order_kind = "number"
on_incompatible = "fail"
properties = { owner = "policy-team" }
[tables.cc_claim]
target_table = "claims"
partition_by = []
)toml"));
  TableSettings plain = config.ForTable("PC_Account");
  EXPECT_EQ(plain.target_table, "pc_account");
  EXPECT_EQ(plain.merge.order_by.at(0).name, "gwcbi___seqval_hex");
  EXPECT_EQ(plain.target.partition_by, std::vector<std::string>{"day(createtime)"});
  EXPECT_TRUE(plain.lineage.source_file);

  TableSettings policy = config.ForTable("pc_Policy");
  EXPECT_EQ(policy.target_table, "pc_policy");
  EXPECT_EQ(policy.merge.order_by, (std::vector<OrderColumn>{{"gwcbi___seqval", OrderingKind::kNumber}}));
  EXPECT_EQ(policy.merge.keys, std::vector<std::string>{"id"});  // not overridden
  EXPECT_EQ(policy.merge.operation_column, "gwcbi___operation");
  EXPECT_EQ(policy.schema.on_incompatible, IncompatiblePolicy::kFail);
  EXPECT_EQ(policy.target.table_properties.at("owner"), "policy-team");
  EXPECT_EQ(policy.target.table_properties.at("tier"), "gold");
  EXPECT_EQ(policy.target.partition_by, std::vector<std::string>{"day(createtime)"});

  TableSettings claim = config.ForTable("cc_claim");
  EXPECT_EQ(claim.target_table, "claims");
  EXPECT_TRUE(claim.target.partition_by.empty());
  EXPECT_FALSE(config.tables.at("cc_claim").merge.has_value());
  EXPECT_EQ(claim.schema.on_incompatible, IncompatiblePolicy::kRescue);
}

TEST_F(ConfigTest, UnknownKeysAndSectionsAreErrors) {
  std::string with_typo = std::string(kMinimal) + "[trigger]\nintervall = \"10s\"\n";
  EXPECT_THAT(ErrorOf(with_typo),
              HasSubstr("/etc/floe/pipeline.toml: unknown key [trigger] intervall (line 9)"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigers]\ninterval = 5\n"),
              HasSubstr("unknown section [trigers]"));
  EXPECT_THAT(ErrorOf("nmae = \"x\"\n" + std::string(kMinimal)), HasSubstr("unknown key nmae"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[tables.pc_policy]\nkyes = [\"id\"]\n"),
              HasSubstr("unknown key [tables.pc_policy] kyes"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[s3]\nsecret = \"x\"\n"),
              HasSubstr("unknown key [s3] secret"));
}

TEST_F(ConfigTest, ObservabilitySection) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig defaults, Parse(kMinimal));
  EXPECT_TRUE(defaults.observability.http.empty());
  EXPECT_EQ(defaults.observability.log_format, LogFormat::kText);
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(std::string(kMinimal) + R"toml(
[observability]
http = "0.0.0.0:9464"
token = "0123456789abcdef0123"
allowed_hosts = ["floe.internal"]
cors_origins = ["https://grafana.example.com"]
log_format = "json"
)toml"));
  EXPECT_EQ(config.observability.http, "0.0.0.0:9464");
  EXPECT_EQ(config.observability.token, "0123456789abcdef0123");
  EXPECT_EQ(config.observability.allowed_hosts, std::vector<std::string>{"floe.internal"});
  EXPECT_EQ(config.observability.cors_origins, std::vector<std::string>{"https://grafana.example.com"});
  EXPECT_EQ(config.observability.log_format, LogFormat::kJson);
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[observability]\nhttp = \"9464\"\n"),
              HasSubstr("[observability] http: expected host:port"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[observability]\nlog_format = \"xml\"\n"),
              HasSubstr("[observability] log_format: expected \"text\" or \"json\""));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[observability]\nport = 9464\n"),
              HasSubstr("unknown key [observability] port"));
}

TEST_F(ConfigTest, WrongTypesNameTheKeyAndWhatWasExpected) {
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigger]\ninterval = \"soon\"\n"),
              HasSubstr("/etc/floe/pipeline.toml: [trigger] interval: expected a duration like \"60s\" or a "
                        "number of seconds, got \"soon\""));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigger]\nmax_files_per_batch = \"ten\"\n"),
              HasSubstr("[trigger] max_files_per_batch: expected an integer, got \"ten\""));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[lineage]\nsource_file = 1\n"),
              HasSubstr("[lineage] source_file: expected true or false, got 1"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[merge]\nkeys = \"id\"\n"),
              HasSubstr("[merge] keys: expected an array of strings, got \"id\""));
  // Operation codes are integers or strings (issue 15 item 1); nothing else.
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[merge]\ndelete_values = [1, true]\n"),
              HasSubstr("[merge] delete_values: expected an array of integers or strings, found true"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\nproperties = { a = 1 }\n"),
              HasSubstr("[target] properties.a: expected a string, got 1"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[merge]\norder_kind = \"hexadecimal\"\n"),
              HasSubstr("[merge] order_kind: expected \"hex\", \"number\", \"timestamp\", \"digits\" or "
                        "\"timestamp_text\", got \"hexadecimal\""));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\ntarget_file_size = \"big\"\n"),
              HasSubstr("[target] target_file_size: expected a size like \"128MiB\" or a number of bytes"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigger]\nmax_bytes_per_batch = -5\n"),
              HasSubstr("[trigger] max_bytes_per_batch: must not be negative, got -5"));
  EXPECT_THAT(ErrorOf("lineage = true\n" + std::string(kMinimal)),
              HasSubstr("lineage: expected a section [lineage], got true"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigger]\ninterval = -1\n"),
              HasSubstr("[trigger] interval: must not be negative"));
}

TEST_F(ConfigTest, MissingRequiredSettings) {
  EXPECT_THAT(ErrorOf("[source]\nuri = \"/x\"\n[catalog]\nuri = \"sqlite:///c.db\"\nwarehouse = \"/w\"\n"),
              HasSubstr("name: is required"));
  EXPECT_THAT(ErrorOf("name = \"bad name\"\n[source]\nuri = \"/x\"\n"), HasSubstr("name: expected letters"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[catalog]\nuri = \"sqlite:///c.db\"\nwarehouse = \"/w\"\n"),
              HasSubstr("section [source] is required"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nformat = \"cda\"\n[catalog]\nwarehouse = \"/w\"\n"),
              HasSubstr("[source] uri: is required"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\nuri = \"sqlite:///c.db\"\n"),
              HasSubstr("[catalog] warehouse: is required"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\nwarehouse = \"/w\"\n"),
              HasSubstr("[catalog] uri: is required for type = \"sql\""));
}

TEST_F(ConfigTest, InvalidCombinationsAreExplained) {
  const std::string parquet_source =
      "name = \"p\"\n[source]\nformat = \"parquet\"\nuri = \"/x/t\"\n[catalog]\ntype = "
      "\"filesystem\"\nwarehouse = \"/w\"\n";
  EXPECT_THAT(ErrorOf(parquet_source + "[merge]\nmode = \"merge\"\n"),
              HasSubstr("[merge]: mode = \"merge\" needs keys"));
  EXPECT_THAT(ErrorOf(parquet_source + "[merge]\nmode = \"merge\"\nkeys = [\"id\"]\n"),
              HasSubstr("[merge]: mode = \"merge\" needs order_by"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[tables.x]\nkeys = []\n"),
              HasSubstr("[tables.x]: mode = \"merge\" needs keys"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[merge]\nkeys = [\"id\", \"id\"]\n"),
              HasSubstr("column \"id\" is listed twice"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[merge]\nignore_values = [4]\n"),
              HasSubstr("operation code 4 appears in both update_values and ignore_values"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\nformat_version = 1\n"),
              HasSubstr("[target] format_version: expected 2 (position delete files) or 3"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\ncodec = \"lzo\"\n"),
              HasSubstr("[target] codec: expected snappy, zstd, gzip, brotli, lz4 or none, got \"lzo\""));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\ncodec = \"snappy\"\ncodec_level = 3\n"),
              HasSubstr("codec \"snappy\" has no levels"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\ncodec_level = 30\n"),
              HasSubstr("codec \"zstd\" takes levels 1 to 22, got 30"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\npartition_by = [\"days(x)\"]\n"),
              HasSubstr("[target] partition_by: expected a column or a transform"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\ntarget_file_size = 1000\n"),
              HasSubstr("must be at least 1MiB"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[target]\nnamespace = \"a..b\"\n"),
              HasSubstr("[target] namespace: expected a name"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[trigger]\nmax_files_per_batch = 0\n"),
              HasSubstr("[trigger] max_files_per_batch: must be between 1 and"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nuri = \"/x\"\ntable = \"t\"\n[catalog]\nuri = "
                      "\"sqlite:///c.db\"\nwarehouse = \"/w\"\n"),
              HasSubstr("[source] table: applies only to file formats under a prefix"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\ntype = \"filesystem\"\nwarehouse = "
                      "\"s3://b/w\"\n"),
              HasSubstr("[catalog] warehouse: type = \"filesystem\" needs a local directory"));
  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\nuri = \"mysql://h/db\"\nwarehouse = "
                      "\"/w\"\n"),
              HasSubstr("[catalog] uri: expected sqlite:///path/catalog.db or postgresql://"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[state]\ndir = \"s3://b/state\"\n"),
              HasSubstr("[state] dir: must be a local directory"));
}

TEST_F(ConfigTest, EnvironmentVariablesExpandInStrings) {
  ::setenv("FLOE_TEST_SECRET", "warehouse-x", 1);
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "p"
[source]
uri = "/in/${FLOE_TEST_SECRET}/cda$HOME"
[catalog]
uri = "sqlite:///c.db"
warehouse = "/${FLOE_TEST_SECRET}"
)toml"));
  EXPECT_EQ(config.source.uri, "/in/warehouse-x/cda$HOME");
  EXPECT_EQ(config.catalog.warehouse, "/warehouse-x");

  ::unsetenv("FLOE_TEST_SECRET");
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[s3]\nsecret_access_key = \"${FLOE_TEST_SECRET}\"\n"),
              HasSubstr("[s3] secret_access_key: environment variable FLOE_TEST_SECRET is not set"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[s3]\nprofile = \"${OOPS\"\n"),
              HasSubstr("[s3] profile: unterminated ${"));
}

TEST_F(ConfigTest, SyntaxErrorsPointAtLineAndColumn) {
  std::string message = ErrorOf("name = \"p\"\n[source\nuri = 1\n");
  EXPECT_THAT(message, HasSubstr("/etc/floe/pipeline.toml:2:"));
  message = ErrorOf("name = \"p\"\nname = \"q\"\n");
  EXPECT_THAT(message, HasSubstr("/etc/floe/pipeline.toml:2:"));
}

TEST_F(ConfigTest, DurationsAndSizes) {
  EXPECT_EQ(*ParseDurationMs("500ms"), 500);
  EXPECT_EQ(*ParseDurationMs("10s"), 10'000);
  EXPECT_EQ(*ParseDurationMs("5m"), 300'000);
  EXPECT_EQ(*ParseDurationMs("2h"), 7'200'000);
  EXPECT_EQ(*ParseDurationMs("30d"), int64_t{30} * 86'400'000);
  EXPECT_EQ(*ParseDurationMs("1.5s"), 1500);
  EXPECT_EQ(*ParseDurationMs("7"), 7000);
  EXPECT_EQ(*ParseDurationMs("10 s"), 10'000);
  for (const char* bad : {"", "s", "-1s", "10x", "1e3s", "5.s", ".5s", "99999999999999999999d"}) {
    EXPECT_FALSE(ParseDurationMs(bad).ok()) << bad;
  }
  EXPECT_EQ(*ParseSizeBytes("128MiB"), 128 << 20);
  EXPECT_EQ(*ParseSizeBytes("1GiB"), int64_t{1} << 30);
  EXPECT_EQ(*ParseSizeBytes("64MB"), 64'000'000);
  EXPECT_EQ(*ParseSizeBytes("1024"), 1024);
  EXPECT_EQ(*ParseSizeBytes("512kib"), 512 << 10);
  EXPECT_EQ(*ParseSizeBytes("1.5KiB"), 1536);
  for (const char* bad : {"", "MiB", "-1MiB", "12 parsecs", "99999999TiB"}) {
    EXPECT_FALSE(ParseSizeBytes(bad).ok()) << bad;
  }
  ASSERT_OK_AND_ASSIGN(
      PipelineConfig config,
      Parse(std::string(kMinimal) + "[trigger]\ninterval = 2.5\nmax_bytes_per_batch = 4096\n"));
  EXPECT_EQ(config.trigger.interval_ms, 2500);
  EXPECT_EQ(config.trigger.max_bytes_per_batch, 4096);
}

TEST_F(ConfigTest, LoadReadsTheFileAndReportsAMissingOne) {
  floe::testing::TempDir dir;
  std::string path = dir.File("pipeline.toml");
  {
    std::ofstream out(path);
    out << "name = \"loaded\"\n[source]\nuri = \"landing\"\n[catalog]\nuri = \"sqlite://catalog.db\"\n"
           "warehouse = \"wh\"\n";
  }
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, LoadPipelineConfig(path));
  EXPECT_EQ(config.name, "loaded");
  EXPECT_EQ(config.config_path, path);
  EXPECT_EQ(config.source.uri, dir.File("landing"));
  EXPECT_EQ(config.catalog.uri, "sqlite://" + dir.File("catalog.db"));
  EXPECT_EQ(config.state_dir, dir.File(".floe-state/loaded"));

  auto missing = LoadPipelineConfig(dir.File("absent.toml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("absent.toml"));
}

// Every ```toml example of the "Pipeline configuration" section of
// docs/configuration.md parses: the documentation cannot drift from the code.
TEST_F(ConfigTest, DocumentedExamplesParse) {
  ::setenv("KAFKA_PASSWORD", "example", 1);                    // the Kafka example's ${KAFKA_PASSWORD}
  ::setenv("FLOE_HTTP_TOKEN", "example-token-0123456789", 1);  // [observability]'s
  std::ifstream in(std::string(FLOE_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(in.good());
  std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t section = docs.find("## Pipeline configuration");
  ASSERT_NE(section, std::string::npos);
  int examples = 0;
  for (size_t start = docs.find("```toml\n", section); start != std::string::npos;
       start = docs.find("```toml\n", start)) {
    start += 8;
    size_t end = docs.find("```", start);
    ASSERT_NE(end, std::string::npos);
    auto parsed = ParsePipelineConfig(docs.substr(start, end - start), "/etc/floe/example.toml");
    EXPECT_TRUE(parsed.ok()) << "example " << examples << ": " << parsed.status().ToString();
    ++examples;
    start = end + 3;
  }
  EXPECT_GE(examples, 2);
}

TEST_F(ConfigTest, MaintenanceSectionDefaultsAndValues) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig defaults, Parse(kMinimal));
  EXPECT_TRUE(defaults.maintenance.enabled);
  EXPECT_EQ(defaults.maintenance.compact_every, 10);
  EXPECT_EQ(defaults.maintenance.min_input_files, 5);
  EXPECT_DOUBLE_EQ(defaults.maintenance.small_file_ratio, 0.75);
  EXPECT_DOUBLE_EQ(defaults.maintenance.delete_ratio_threshold, 0.2);
  EXPECT_EQ(defaults.maintenance.max_delete_files, 4);
  EXPECT_TRUE(defaults.maintenance.sort_by.empty());
  EXPECT_EQ(defaults.maintenance.retain_last, 10);
  EXPECT_EQ(defaults.maintenance.max_snapshot_age_ms, int64_t{5} * 24 * 3600 * 1000);
  EXPECT_EQ(defaults.maintenance.orphan_older_than_ms, int64_t{3} * 24 * 3600 * 1000);
  EXPECT_TRUE(defaults.maintenance.rewrite_manifests);

  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(std::string(kMinimal) + R"toml(
[maintenance]
enabled = false
compact_every = 3
min_input_files = 8
small_file_ratio = 0.5
delete_ratio_threshold = 1
max_delete_files = 2
sort_by = ["createtime", "id"]
retain_last = 4
max_snapshot_age = "2d"
orphan_older_than = "6h"
rewrite_manifests = false
)toml"));
  const MaintenanceConfig& m = config.maintenance;
  EXPECT_FALSE(m.enabled);
  EXPECT_EQ(m.compact_every, 3);
  EXPECT_EQ(m.min_input_files, 8);
  EXPECT_DOUBLE_EQ(m.small_file_ratio, 0.5);
  EXPECT_DOUBLE_EQ(m.delete_ratio_threshold, 1.0);
  EXPECT_EQ(m.max_delete_files, 2);
  EXPECT_EQ(m.sort_by, (std::vector<std::string>{"createtime", "id"}));
  EXPECT_EQ(m.retain_last, 4);
  EXPECT_EQ(m.max_snapshot_age_ms, int64_t{2} * 24 * 3600 * 1000);
  EXPECT_EQ(m.orphan_older_than_ms, int64_t{6} * 3600 * 1000);
  EXPECT_FALSE(m.rewrite_manifests);
}

TEST_F(ConfigTest, MaintenanceSectionErrorsNameTheKey) {
  const std::string base = std::string(kMinimal) + "[maintenance]\n";
  EXPECT_THAT(ErrorOf(base + "compact_evry = 3\n"), HasSubstr("[maintenance] compact_evry"));
  EXPECT_THAT(
      ErrorOf(base + "small_file_ratio = 1.5\n"),
      HasSubstr("[maintenance] small_file_ratio: expected a number greater than 0 and at most 1, got 1.5"));
  EXPECT_THAT(ErrorOf(base + "delete_ratio_threshold = \"high\"\n"),
              HasSubstr("[maintenance] delete_ratio_threshold"));
  EXPECT_THAT(ErrorOf(base + "retain_last = 0\n"), HasSubstr("[maintenance] retain_last: must be between 1"));
  EXPECT_THAT(ErrorOf(base + "orphan_older_than = \"10m\"\n"),
              HasSubstr("[maintenance] orphan_older_than: must be at least 1h"));
  EXPECT_THAT(ErrorOf(base + "enabled = \"yes\"\n"),
              HasSubstr("[maintenance] enabled: expected true or false"));
}

TEST_F(ConfigTest, PerformanceSection) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig defaults, Parse(kMinimal));
  EXPECT_EQ(defaults.performance.threads, 0);
  EXPECT_GE(defaults.performance.EffectiveThreads(), 1);
  EXPECT_EQ(defaults.performance.memory_budget_bytes, int64_t{512} << 20);

  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(std::string(kMinimal) + R"toml(
[performance]
threads = 3
memory_budget = "2GiB"
)toml"));
  EXPECT_EQ(config.performance.threads, 3);
  EXPECT_EQ(config.performance.EffectiveThreads(), 3);
  EXPECT_EQ(config.performance.memory_budget_bytes, int64_t{2} << 30);
  EXPECT_EQ(config.ForTable("cc_claim").performance.memory_budget_bytes, int64_t{2} << 30);

  const std::string base = std::string(kMinimal) + "[performance]\n";
  EXPECT_THAT(ErrorOf(base + "threads = -1\n"), HasSubstr("[performance] threads: must be between 0"));
  EXPECT_THAT(ErrorOf(base + "memory_budget = \"10MiB\"\n"),
              HasSubstr("[performance] memory_budget: must be at least 64MiB"));
  EXPECT_THAT(ErrorOf(base + "memory = \"1GiB\"\n"), HasSubstr("[performance] memory"));
}

TEST_F(ConfigTest, ParallelTablesShareThreadsAndTheBudget) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig defaults, Parse(kMinimal));
  EXPECT_EQ(defaults.performance.parallel_tables, 0);
  PerformanceConfig performance;
  performance.threads = 4;
  EXPECT_EQ(performance.TablesInParallel(10), 4);  // as many as threads
  EXPECT_EQ(performance.TablesInParallel(3), 3);   // never more than the tables with work
  EXPECT_EQ(performance.TablesInParallel(0), 1);
  performance.memory_budget_bytes = int64_t{128} << 20;
  EXPECT_EQ(performance.TablesInParallel(10), 2);  // each keeps 64MiB of the budget
  performance.threads = 1;
  EXPECT_EQ(performance.TablesInParallel(10), 1);

  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(std::string(kMinimal) + R"toml(
[performance]
threads = 2
parallel_tables = 3
)toml"));
  EXPECT_EQ(config.performance.parallel_tables, 3);
  EXPECT_EQ(config.performance.TablesInParallel(10), 3);  // as asked, even beyond threads
  EXPECT_EQ(config.performance.TablesInParallel(2), 2);

  const std::string base = std::string(kMinimal) + "[performance]\n";
  EXPECT_THAT(ErrorOf(base + "parallel_tables = -1\n"),
              HasSubstr("[performance] parallel_tables: must be between 0"));
  EXPECT_THAT(ErrorOf(base + "memory_budget = \"256MiB\"\nparallel_tables = 5\n"),
              HasSubstr("[performance] parallel_tables: each table applied at once needs 64MiB of "
                        "memory_budget (256MiB): at most 4, or raise memory_budget"));
}

TEST_F(ConfigTest, EnumNames) {
  EXPECT_STREQ(SourceFormatName(SourceFormat::kParquet), "parquet");
  EXPECT_STREQ(WriteModeName(WriteMode::kAppend), "append");
  EXPECT_STREQ(OrderingKindName(OrderingKind::kPaddedHex), "hex");
  EXPECT_STREQ(IncompatiblePolicyName(IncompatiblePolicy::kQuarantine), "quarantine");
}

TEST_F(ConfigTest, RestCatalogKeys) {
  ::setenv("FLOE_TEST_SECRET", "id:pa55", 1);
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "p"
[source]
uri = "/x"
[catalog]
type = "rest"
uri = "https://glue.eu-west-1.amazonaws.com/iceberg"
warehouse = "123456789012"
sigv4_enabled = true
signing_region = "eu-west-1"
signing_name = "glue"
headers = { "X-Team" = "data" }
)toml"));
  EXPECT_EQ(config.catalog.type, "rest");
  EXPECT_EQ(config.catalog.uri, "rest+https://glue.eu-west-1.amazonaws.com/iceberg");
  EXPECT_EQ(config.catalog.warehouse, "123456789012");  // an id, not resolved as a path
  EXPECT_TRUE(config.catalog.rest.sigv4_enabled);
  EXPECT_EQ(config.catalog.rest.signing_region, "eu-west-1");
  EXPECT_EQ(config.catalog.rest.signing_name, "glue");
  EXPECT_EQ(config.catalog.rest.headers.at("X-Team"), "data");

  ASSERT_OK_AND_ASSIGN(PipelineConfig oauth, Parse(R"toml(
name = "p"
[source]
uri = "/x"
[catalog]
type = "rest"
uri = "rest+http://127.0.0.1:8181"
credential = "${FLOE_TEST_SECRET}"
oauth2_server_uri = "https://idp.example.com/oauth/token"
scope = "PRINCIPAL_ROLE:ALL"
prefix = "polaris"
)toml"));
  EXPECT_EQ(oauth.catalog.uri, "rest+http://127.0.0.1:8181");
  EXPECT_EQ(oauth.catalog.rest.credential, "id:pa55");
  EXPECT_EQ(oauth.catalog.rest.oauth2_server_uri, "https://idp.example.com/oauth/token");
  EXPECT_EQ(oauth.catalog.rest.scope, "PRINCIPAL_ROLE:ALL");
  EXPECT_EQ(oauth.catalog.rest.prefix, "polaris");
  EXPECT_TRUE(oauth.catalog.warehouse.empty());
  EXPECT_FALSE(oauth.catalog.rest.sigv4_enabled);

  ASSERT_OK_AND_ASSIGN(PipelineConfig sigv4_default,
                       Parse("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\ntype = \"rest\"\nuri = "
                             "\"https://h\"\nsigv4_enabled = true\n"));
  EXPECT_EQ(sigv4_default.catalog.rest.signing_name, "execute-api");
}

TEST_F(ConfigTest, RestCatalogErrors) {
  const std::string head = "name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\n";
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\n"),
              HasSubstr("[catalog] uri: is required for type = \"rest\""));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"sqlite:///c.db\"\n"),
              HasSubstr("[catalog] uri: expected http(s)://"));
  EXPECT_THAT(ErrorOf(head + "uri = \"sqlite:///c.db\"\nwarehouse = \"/w\"\ntoken = \"t\"\n"),
              HasSubstr("[catalog] token: is a REST catalog setting; it needs type = \"rest\""));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\ntoken = \"t\"\ncredential = \"a:b\"\n"),
              HasSubstr("set either token or credential"));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\nsigning_name = \"glue\"\n"),
              HasSubstr("[catalog] signing_name: only applies with sigv4_enabled = true"));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\nsigv4_enabled = \"yes\"\n"),
              HasSubstr("[catalog] sigv4_enabled: expected true or false"));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\nheaders = { \"Bad Name\" = \"x\" }\n"),
              HasSubstr("[catalog] headers.Bad Name"));
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\noauth2_server_uri = \"https://idp\"\n"),
              HasSubstr("needs credential"));
  // Unknown keys are still caught with type = "rest".
  EXPECT_THAT(ErrorOf(head + "type = \"rest\"\nuri = \"https://h\"\nsigv4 = true\n"),
              HasSubstr("unknown key [catalog] sigv4"));
  EXPECT_THAT(ErrorOf(head + "type = \"hive\"\nuri = \"https://h\"\n"),
              HasSubstr("expected \"sql\", \"filesystem\", \"rest\" or \"glue\""));
}

TEST_F(ConfigTest, GlueCatalogKeys) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "p"
[source]
uri = "/x"
[catalog]
type = "glue"
catalog_id = "123456789012"
region = "eu-west-1"
endpoint = "http://127.0.0.1:5000"
warehouse = "s3://lake/warehouse"
skip_archive = false
)toml"));
  EXPECT_EQ(config.catalog.type, "glue");
  EXPECT_EQ(config.catalog.uri, "glue://123456789012");
  EXPECT_EQ(config.catalog.glue.catalog_id, "123456789012");
  EXPECT_EQ(config.catalog.glue.region, "eu-west-1");
  EXPECT_EQ(config.catalog.glue.endpoint, "http://127.0.0.1:5000");
  EXPECT_FALSE(config.catalog.glue.skip_archive);
  EXPECT_EQ(config.catalog.warehouse, "s3://lake/warehouse");

  ASSERT_OK_AND_ASSIGN(
      PipelineConfig minimal,
      Parse("name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\ntype = \"glue\"\naccount_id = \"42\"\n"));
  EXPECT_EQ(minimal.catalog.glue.catalog_id, "42");
  EXPECT_TRUE(minimal.catalog.glue.skip_archive);
  EXPECT_TRUE(minimal.catalog.warehouse.empty());
}

TEST_F(ConfigTest, GlueCatalogErrors) {
  const std::string head = "name = \"p\"\n[source]\nuri = \"/x\"\n[catalog]\n";
  EXPECT_THAT(ErrorOf(head + "uri = \"sqlite:///c.db\"\nwarehouse = \"/w\"\nregion = \"eu-west-1\"\n"),
              HasSubstr("[catalog] region: is a Glue catalog setting; it needs type = \"glue\""));
  EXPECT_THAT(ErrorOf(head + "type = \"glue\"\nuri = \"glue://1\"\n"),
              HasSubstr("[catalog] uri: does not apply to type = \"glue\""));
  EXPECT_THAT(ErrorOf(head + "type = \"glue\"\ncatalog_id = \"1\"\naccount_id = \"2\"\n"),
              HasSubstr("[catalog] account_id: names another account"));
  EXPECT_THAT(ErrorOf(head + "type = \"glue\"\nendpoint = \"127.0.0.1:5000\"\n"),
              HasSubstr("[catalog] endpoint: expected http(s)://"));
  EXPECT_THAT(ErrorOf(head + "type = \"glue\"\ntoken = \"t\"\n"),
              HasSubstr("[catalog] token: is a REST catalog setting"));
}

// The source model's three axes: [source] discovery, format and changes, with
// today's keys (format = "cda" | "parquet", [merge] mode) as their defaults.
TEST_F(ConfigTest, SourceAxesDefaultFromTodaysKeysAndCanBeSetOneByOne) {
  auto parse = [](const std::string& source, const std::string& merge = "") {
    return Parse("name = \"p\"\n[source]\nuri = \"/landing\"\n" + source +
                 "\n[catalog]\nuri = \"sqlite:///c.db\"\nwarehouse = \"/wh\"\n" + merge);
  };
  struct Case {
    std::string source, merge;
    DiscoveryKind discovery;
    ChangeKind changes;
    WriteMode mode;
    std::string order_column;
  };
  const std::vector<Case> cases = {
      {"", "", DiscoveryKind::kCda, ChangeKind::kCda, WriteMode::kMerge, "gwcbi___seqval_hex"},
      {"format = \"cda\"", "[merge]\nmode = \"append\"", DiscoveryKind::kCda, ChangeKind::kAppend,
       WriteMode::kAppend, "gwcbi___seqval_hex"},
      {"discovery = \"cda\"\nformat = \"parquet\"", "", DiscoveryKind::kCda, ChangeKind::kCda,
       WriteMode::kMerge, "gwcbi___seqval_hex"},
      {"format = \"parquet\"", "", DiscoveryKind::kPrefix, ChangeKind::kAppend, WriteMode::kAppend, ""},
      {"format = \"parquet\"", "[merge]\nmode = \"merge\"\nkeys = [\"k\"]\norder_by = \"v\"",
       DiscoveryKind::kPrefix, ChangeKind::kColumns, WriteMode::kMerge, "v"},
      {"discovery = \"prefix\"\nchanges = \"columns\"", "[merge]\nkeys = [\"k\"]\norder_by = \"v\"",
       DiscoveryKind::kPrefix, ChangeKind::kColumns, WriteMode::kMerge, "v"},
      // CDA-shaped files under a plain prefix: the CDA columns and codes.
      {"discovery = \"prefix\"\nchanges = \"cda\"", "", DiscoveryKind::kPrefix, ChangeKind::kCda,
       WriteMode::kMerge, "gwcbi___seqval_hex"},
      {"changes = \"append\"", "", DiscoveryKind::kCda, ChangeKind::kAppend, WriteMode::kAppend,
       "gwcbi___seqval_hex"},
  };
  for (const Case& c : cases) {
    auto config = parse(c.source, c.merge);
    ASSERT_TRUE(config.ok()) << c.source << " / " << c.merge << ": " << config.status().ToString();
    EXPECT_EQ(config->source.discovery, c.discovery) << c.source;
    EXPECT_EQ(config->source.format, SourceFormat::kParquet) << c.source;
    EXPECT_EQ(config->source.changes, c.changes) << c.source << " / " << c.merge;
    EXPECT_EQ(config->merge.mode, c.mode) << c.source << " / " << c.merge;
    EXPECT_EQ(config->merge.order_by.empty() ? "" : config->merge.order_by[0].name, c.order_column)
        << c.source << " / " << c.merge;
    EXPECT_EQ(config->ForTable("t").changes, c.changes);
  }
  EXPECT_STREQ(DiscoveryKindName(DiscoveryKind::kPrefix), "prefix");
  EXPECT_STREQ(ChangeKindName(ChangeKind::kColumns), "columns");
}

TEST_F(ConfigTest, ImpossibleSourceAxisCombinationsAreRefused) {
  auto error = [](const std::string& source, const std::string& merge = "") {
    return ErrorOf("name = \"p\"\n[source]\nuri = \"/landing\"\n" + source +
                   "\n[catalog]\nuri = \"sqlite:///c.db\"\nwarehouse = \"/wh\"\n" + merge);
  };
  EXPECT_THAT(error("format = \"cda\"\ndiscovery = \"prefix\""),
              HasSubstr("[source] discovery: format = \"cda\" reads a CDA export (discovery \"cda\")"));
  EXPECT_THAT(error("changes = \"append\"", "[merge]\nmode = \"merge\""),
              HasSubstr("[merge] mode: \"merge\" contradicts [source] changes = \"append\""));
  EXPECT_THAT(error("format = \"parquet\"\nchanges = \"columns\"", "[merge]\nmode = \"append\""),
              HasSubstr("contradicts [source] changes = \"columns\""));
  EXPECT_THAT(error("changes = \"debezium\""), HasSubstr("changes = \"debezium\" needs keys"));
  EXPECT_THAT(error("discovery = \"cda\"\nchanges = \"debezium\"", "[merge]\nkeys = [\"id\"]"),
              HasSubstr("a CDA export"));
  EXPECT_THAT(error("discovery = \"kafka\""), HasSubstr("[source] topics: discovery \"kafka\" needs topics"));
  // A merging convention without its columns.
  EXPECT_THAT(error("format = \"parquet\"\nchanges = \"columns\""), HasSubstr("needs keys"));
  // Keys of one discovery under the other name the discovery.
  EXPECT_THAT(error("discovery = \"prefix\"\nreload_on_reset = true"),
              HasSubstr("reload_on_reset: applies only to format = \"cda\" (discovery \"cda\")"));
}

// Issue 15 item 1: operation codes are integers or strings, in [merge] and
// per table, and a file without the operation column may hold upserts.
TEST_F(ConfigTest, OperationCodesTakeStringsAndMissingOperationIsAPolicy) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "debezium-files"
[source]
format = "parquet"
uri = "/landing/cdc"
[catalog]
uri = "sqlite:///c.db"
warehouse = "/wh"
[merge]
mode = "merge"
keys = ["id"]
order_by = "ts"
operation_column = "__op"
insert_values = ["c", "r"]
update_values = ["u"]
delete_values = ["d", 2]
ignore_values = []
missing_operation = "upsert"
[tables.orders]
insert_values = ["INSERT"]
missing_operation = "quarantine"
)toml"));
  EXPECT_EQ(config.merge.insert_values, (Codes{std::string("c"), std::string("r")}));
  EXPECT_EQ(config.merge.delete_values, (Codes{std::string("d"), int64_t{2}}));
  EXPECT_EQ(config.merge.missing_operation, MissingOperation::kUpsert);
  const TableSettings orders = config.ForTable("orders");
  EXPECT_EQ(orders.merge.insert_values, (Codes{std::string("INSERT")}));
  EXPECT_EQ(orders.merge.update_values, (Codes{std::string("u")}));  // kept from [merge]
  EXPECT_EQ(orders.merge.missing_operation, MissingOperation::kQuarantine);
  EXPECT_EQ(config.ForTable("other").merge.missing_operation, MissingOperation::kUpsert);

  const std::string head = std::string(kMinimal) + "[merge]\n";
  EXPECT_THAT(ErrorOf(head + "insert_values = [\"I\"]\nupdate_values = [\"I\"]\n"),
              HasSubstr("operation code \"I\" appears in both insert_values and update_values"));
  EXPECT_THAT(ErrorOf(head + "insert_values = [\"\"]\n"), HasSubstr("an operation code is an empty string"));
  EXPECT_THAT(ErrorOf(head + "missing_operation = \"insert\"\n"),
              HasSubstr("[merge] missing_operation: expected \"quarantine\" or \"upsert\""));
  // A string code and an integer code are different codes.
  EXPECT_OK(Parse(head + "insert_values = [\"1\"]\ndelete_values = [1]\n").status());
}

// Issue 15 item 2: ordering by two columns, each with its kind; what an
// ordering value cannot hold is refused.
TEST_F(ConfigTest, OrderByTakesTwoColumnsThatFitTheOrderingValue) {
  const std::string head =
      "name = \"p\"\n[source]\nformat = \"parquet\"\nuri = \"/l\"\n[catalog]\nuri = "
      "\"sqlite:///c.db\"\nwarehouse = \"/wh\"\n[merge]\nmode = \"merge\"\nkeys = [\"id\"]\n";
  ASSERT_OK_AND_ASSIGN(
      PipelineConfig two,
      Parse(head + "order_by = [\"ts\", \"lsn\"]\norder_kind = [\"timestamp\", \"number\"]\n"));
  EXPECT_EQ(two.merge.order_by,
            (std::vector<OrderColumn>{{"ts", OrderingKind::kTimestamp}, {"lsn", OrderingKind::kNumber}}));
  ASSERT_OK_AND_ASSIGN(PipelineConfig one_kind,
                       Parse(head + "order_by = [\"a\", \"b\"]\norder_kind = \"number\"\n"));
  EXPECT_EQ(one_kind.merge.order_by,
            (std::vector<OrderColumn>{{"a", OrderingKind::kNumber}, {"b", OrderingKind::kNumber}}));
  ASSERT_OK_AND_ASSIGN(PipelineConfig text, Parse(head + "order_by = \"seq\"\norder_kind = \"digits\"\n"));
  EXPECT_EQ(text.merge.order_by, (std::vector<OrderColumn>{{"seq", OrderingKind::kDigits}}));

  EXPECT_THAT(ErrorOf(head + "order_by = [\"a\", \"b\", \"c\"]\n"),
              HasSubstr("[merge] order_by: orders by at most 2 columns"));
  EXPECT_THAT(ErrorOf(head + "order_by = [\"a\", \"b\"]\norder_kind = [\"hex\", \"number\"]\n"),
              HasSubstr("column \"a\" of kind \"hex\" needs all 16 bytes"));
  EXPECT_THAT(ErrorOf(head + "order_by = [\"a\", \"b\"]\norder_kind = [\"number\", \"digits\"]\n"),
              HasSubstr("column \"b\" of kind \"digits\" needs all 16 bytes"));
  EXPECT_THAT(
      ErrorOf(head + "order_by = [\"a\", \"b\"]\norder_kind = [\"number\", \"number\", \"number\"]\n"),
      HasSubstr("names 3 kinds for 2 order_by columns"));
  EXPECT_THAT(ErrorOf(head + "order_by = [\"a\", \"a\"]\n"), HasSubstr("column \"a\" is listed twice"));
  EXPECT_THAT(ErrorOf(head + "order_by = 5\n"), HasSubstr("expected a string or an array of strings, got 5"));
}

// Issue 21 item 3: changes = "dms" is a preset of the DMS S3 target's
// columns, codes, full-load rules and layout; only the keys are the user's.
TEST_F(ConfigTest, DmsPresetFillsOperationCodesOrderingAndLayout) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "dms"
[source]
changes = "dms"
uri = "s3://dms-target/bucket-folder"
[catalog]
uri = "sqlite:///c.db"
warehouse = "/wh"
[merge]
keys = ["id"]
)toml"));
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kPrefix);
  EXPECT_EQ(config.source.changes, ChangeKind::kDms);
  EXPECT_EQ(config.source.table_from_path, "{schema}/{table}/**");
  EXPECT_EQ(config.source.full_load_files, std::vector<std::string>{"LOAD*"});
  EXPECT_EQ(config.merge.mode, WriteMode::kMerge);
  EXPECT_EQ(config.merge.operation_column, "Op");
  EXPECT_EQ(config.merge.insert_values, (Codes{std::string("I")}));
  EXPECT_EQ(config.merge.update_values, (Codes{std::string("U")}));
  EXPECT_EQ(config.merge.delete_values, (Codes{std::string("D")}));
  EXPECT_TRUE(config.merge.ignore_values.empty());
  EXPECT_EQ(config.merge.missing_operation, MissingOperation::kUpsert);
  EXPECT_EQ(config.merge.order_by, (std::vector<OrderColumn>{{"AR_H_CHANGE_SEQ", OrderingKind::kDigits}}));
  EXPECT_TRUE(config.merge.unordered_rows_oldest);
  EXPECT_STREQ(ChangeKindName(config.source.changes), "dms");

  // Without AR_H_CHANGE_SEQ, the DMS timestamp column orders as text.
  ASSERT_OK_AND_ASSIGN(PipelineConfig by_time, Parse(R"toml(
name = "dms"
[source]
changes = "dms"
uri = "/landing/dms/hr/employee"
table = "employee"
[catalog]
uri = "sqlite:///c.db"
warehouse = "/wh"
[merge]
keys = ["id"]
order_by = "dms_timestamp"
)toml"));
  EXPECT_EQ(by_time.merge.order_by,
            (std::vector<OrderColumn>{{"dms_timestamp", OrderingKind::kTimestampText}}));
  EXPECT_TRUE(by_time.source.table_from_path.empty());  // one table named by [source] table
  EXPECT_EQ(by_time.source.table, "employee");

  EXPECT_THAT(ErrorOf("name = \"p\"\n[source]\nchanges = \"dms\"\nuri = \"/l\"\n[catalog]\nuri = "
                      "\"sqlite:///c.db\"\nwarehouse = \"/wh\"\n"),
              HasSubstr("[merge] keys: changes = \"dms\" needs keys"));
  EXPECT_THAT(
      ErrorOf("name = \"p\"\n[source]\nchanges = \"dms\"\nuri = \"/l\"\n[catalog]\nuri = "
              "\"sqlite:///c.db\"\nwarehouse = \"/wh\"\n[merge]\nkeys = [\"id\"]\nmode = \"append\"\n"),
      HasSubstr("contradicts [source] changes = \"dms\""));
}

// Issue 15 items 3, 4, 6, 7: many tables under one prefix, typed Hive
// columns, bad rows to a table, a landing zone that may not exist yet.
TEST_F(ConfigTest, PrefixSourceKeysForManyTablesHiveColumnsAndBadRows) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "zone"
[source]
format = "parquet"
uri = "/landing/zone"
table_from_path = "{schema}/{table}/**"
partition_column_types = { year = "int", day = "date", region = "string" }
full_load_files = ["LOAD*", "snapshot-*"]
allow_missing_uri = true
[catalog]
uri = "sqlite:///c.db"
warehouse = "/wh"
[schema]
on_bad_row = "table"
[tables.orders]
on_bad_row = "quarantine"
)toml"));
  EXPECT_EQ(config.source.table_from_path, "{schema}/{table}/**");
  EXPECT_TRUE(config.source.table.empty());
  EXPECT_EQ(config.source.partition_column_types.at("year"), "int");
  EXPECT_EQ(config.source.partition_column_types.at("day"), "date");
  EXPECT_EQ(config.source.full_load_files, (std::vector<std::string>{"LOAD*", "snapshot-*"}));
  EXPECT_TRUE(config.source.allow_missing_uri);
  EXPECT_EQ(config.schema.on_bad_row, BadRowPolicy::kTable);
  EXPECT_EQ(config.ForTable("orders").schema.on_bad_row, BadRowPolicy::kQuarantineFile);
  EXPECT_EQ(config.ForTable("items").schema.on_bad_row, BadRowPolicy::kTable);

  const std::string head =
      "name = \"p\"\n[catalog]\nuri = \"sqlite:///c.db\"\nwarehouse = \"/wh\"\n[source]\n";
  EXPECT_THAT(ErrorOf(head + "format = \"parquet\"\nuri = \"/l\"\ntable_from_path = \"{schema}/**\"\n"),
              HasSubstr("[source] table_from_path: needs a {table} segment"));
  EXPECT_THAT(
      ErrorOf(head + "format = \"parquet\"\nuri = \"/l\"\ntable_from_path = \"{table}/**\"\ntable = \"t\"\n"),
      HasSubstr("names the tables itself; drop table"));
  EXPECT_THAT(
      ErrorOf(head + "format = \"parquet\"\nuri = \"/l\"\npartition_column_types = { year = \"integer\" }\n"),
      HasSubstr("[source] partition_column_types.year: expected \"string\", \"int\""));
  EXPECT_THAT(ErrorOf(head + "uri = \"/l\"\ntable_from_path = \"{table}/**\"\n"),
              HasSubstr("table_from_path: applies only to file formats under a prefix"));
  EXPECT_THAT(ErrorOf(std::string(kMinimal) + "[schema]\non_bad_row = \"drop\"\n"),
              HasSubstr("[schema] on_bad_row: expected \"quarantine\" or \"table\""));
}

TEST_F(ConfigTest, TextFormatsTakeTheirKeysAndRefuseOtherFormatsKeys) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig csv, Parse(R"toml(
name = "raw"
[source]
format = "csv"
uri = "/landing/exports/orders"
delimiter = ";"
quote = ""
header = false
null_string = "NULL"
skip_rows = 2
encoding = "latin-1"
infer_column_types = true
schema_hints = "amount DECIMAL(12,2)"
schema_sample_bytes = "1MiB"
schema_sample_files = 200
compression = "gzip"
on_bad_record = "quarantine"
[catalog]
type = "filesystem"
warehouse = "/data/wh"
)toml"));
  EXPECT_EQ(csv.source.discovery, DiscoveryKind::kPrefix);
  EXPECT_EQ(csv.source.format, SourceFormat::kCsv);
  EXPECT_EQ(csv.source.changes, ChangeKind::kAppend);
  EXPECT_EQ(csv.source.table, "orders");
  const TextFormatConfig& text = csv.source.text;
  EXPECT_EQ(text.delimiter, std::optional<std::string>(";"));
  EXPECT_EQ(text.quote, std::optional<std::string>(""));
  EXPECT_EQ(text.escape, std::nullopt);
  EXPECT_EQ(text.header, std::optional<bool>(false));
  EXPECT_EQ(text.null_string, "NULL");
  EXPECT_EQ(text.skip_rows, 2);
  EXPECT_EQ(text.encoding, "latin-1");
  EXPECT_TRUE(text.infer_column_types);
  EXPECT_EQ(text.schema_hints, "amount DECIMAL(12,2)");
  EXPECT_EQ(text.schema_sample_bytes, int64_t{1} << 20);
  EXPECT_EQ(csv.source.schema_sample_files, 200);
  EXPECT_EQ(csv.ForTable("orders").schema.sample_files, 200) << "the vote reads it from the table's settings";
  EXPECT_EQ(text.compression, "gzip");
  EXPECT_TRUE(text.quarantine_bad_records);
  EXPECT_STREQ(SourceFormatName(SourceFormat::kCsv), "csv");
  EXPECT_STREQ(SourceFormatName(SourceFormat::kJsonLines), "jsonl");

  ASSERT_OK_AND_ASSIGN(PipelineConfig json, Parse(R"toml(
name = "raw"
[source]
format = "json"
uri = "/landing/events"
strip_outer_array = true
nested_as_json = true
[catalog]
type = "filesystem"
warehouse = "/data/wh"
)toml"));
  EXPECT_EQ(json.source.format, SourceFormat::kJson);
  EXPECT_EQ(json.source.text.strip_outer_array, std::optional<bool>(true));
  EXPECT_TRUE(json.source.text.nested_as_json);
  EXPECT_FALSE(json.source.text.infer_column_types);  // Auto Loader's default: strings

  struct Refused {
    const char* source;
    const char* message;
  };
  const Refused refused[] = {
      {"format = \"parquet\"\ndelimiter = \",\"",
       "[source] delimiter: applies only to format = \"csv\", not \"parquet\""},
      {"format = \"jsonl\"\nheader = true",
       "[source] header: applies only to format = \"csv\", not \"jsonl\""},
      {"format = \"jsonl\"\nstrip_outer_array = true",
       "strip_outer_array: applies only to format = \"json\""},
      {"format = \"csv\"\nnested_as_json = true",
       "nested_as_json: applies only to format = \"jsonl\" or \"json\""},
      {"format = \"avro\"\ninfer_column_types = true",
       "infer_column_types: applies only to format = \"jsonl\", \"json\" or \"csv\", not \"avro\""},
      {"format = \"csv\"\ndelimiter = \"ab\"", "[source] delimiter: must be one character, got \"ab\""},
      {"format = \"csv\"\nquote = \"''\"", "[source] quote: must be one character or \"\" (none)"},
      {"format = \"csv\"\non_bad_record = \"drop\"", "[source] on_bad_record"},
      {"format = \"jsonl\"\ndiscovery = \"cda\"",
       "\"cda\" reads a CDA export, which holds Parquet files, not jsonl"},
  };
  for (const Refused& r : refused) {
    auto parsed = Parse(std::string("name = \"raw\"\n[source]\nuri = \"/landing/x\"\n") + r.source +
                        "\n[catalog]\ntype = \"filesystem\"\nwarehouse = \"/data/wh\"\n");
    ASSERT_FALSE(parsed.ok()) << r.source;
    EXPECT_THAT(parsed.status().message(), HasSubstr(r.message)) << r.source;
  }
}

TEST_F(ConfigTest, DebeziumChangesHaveDebeziumDefaultsAndNeedKeys) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
name = "cdc"
[source]
format = "jsonl"
uri = "/landing/debezium/customers"
changes = "debezium"
[merge]
keys = ["id"]
[catalog]
type = "filesystem"
warehouse = "/data/wh"
)toml"));
  EXPECT_EQ(config.source.changes, ChangeKind::kDebezium);
  EXPECT_EQ(config.merge.mode, WriteMode::kMerge);
  EXPECT_EQ(config.merge.operation_column, "op");
  ASSERT_EQ(config.merge.order_by.size(), 1u);
  EXPECT_EQ(config.merge.order_by[0].name, "source.ts_ms");
  EXPECT_EQ(config.merge.order_by[0].kind, OrderingKind::kNumber);
  EXPECT_EQ(config.merge.insert_values, (std::vector<OperationCode>{std::string("c"), std::string("r")}));
  EXPECT_EQ(config.merge.delete_values, (std::vector<OperationCode>{std::string("d")}));
  EXPECT_EQ(config.merge.ignore_values, (std::vector<OperationCode>{std::string("t"), std::string("m")}));
  EXPECT_STREQ(ChangeKindName(ChangeKind::kDebezium), "debezium");

  auto keyless = Parse(R"toml(
name = "cdc"
[source]
format = "jsonl"
uri = "/landing/debezium/customers"
changes = "debezium"
[catalog]
type = "filesystem"
warehouse = "/data/wh"
)toml");
  ASSERT_FALSE(keyless.ok());
  EXPECT_THAT(keyless.status().message(), HasSubstr("[merge] keys: changes = \"debezium\" needs keys"));
}

}  // namespace
}  // namespace floe::ingest

namespace floe::ingest {
namespace {

constexpr const char* kKafkaCatalog = R"toml(
[catalog]
uri = "sqlite:///var/floe/catalog.db"
warehouse = "/var/floe/warehouse"
)toml";

Result<PipelineConfig> ParseKafka(const std::string& source, const std::string& rest = "") {
  return ParsePipelineConfig("name = \"cdc\"\n[source]\n" + source + rest + kKafkaCatalog,
                             "/etc/floe/pipeline.toml");
}

std::string KafkaError(const std::string& source, const std::string& rest = "") {
  auto result = ParseKafka(source, rest);
  return result.ok() ? "<parsed without error>" : result.status().message();
}

TEST(KafkaConfigTest, KafkaSourcesTakeTopicsPropertiesAndDebeziumDefaults) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config,
                       ParseKafka(R"(discovery = "kafka"
uri = "kafka://b1:9092,b2:9092"
topics = ["dbserver1.inventory.customers", "dbserver1.inventory.orders"]
changes = "debezium"
topic_tables = { "dbserver1.inventory.orders" = "orders_v2" }
starting_offsets = "latest"
on_bad_record = "skip"
[source.kafka]
"security.protocol" = "SASL_SSL"
)",
                                  "[merge]\nkeys = [\"id\"]\n[trigger]\nmax_records_per_batch = 5000\n"));
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kKafka);
  EXPECT_EQ(config.source.format, SourceFormat::kJson);
  EXPECT_EQ(config.source.changes, ChangeKind::kDebezium);
  EXPECT_EQ(config.source.kafka.bootstrap_servers, "b1:9092,b2:9092");
  EXPECT_EQ(config.source.kafka.topics.size(), 2u);
  EXPECT_EQ(config.source.kafka.topic_tables.at("dbserver1.inventory.orders"), "orders_v2");
  EXPECT_TRUE(config.source.stream.start_at_latest);
  EXPECT_EQ(config.source.stream.on_bad_record, StreamBadRecordPolicy::kSkip);
  EXPECT_EQ(config.source.kafka.properties.at("security.protocol"), "SASL_SSL");
  EXPECT_TRUE(config.source.text.infer_column_types) << "record values are inferred by default";
  EXPECT_EQ(config.trigger.max_records_per_batch, 5000);
  ASSERT_EQ(config.merge.order_by.size(), 2u);
  EXPECT_EQ(config.merge.order_by[0].name, "source.ts_ms");
  EXPECT_EQ(config.merge.order_by[1].name, "kafka.offset") << "the offset breaks ties of one millisecond";
}

TEST(KafkaConfigTest, AvroRecordsTakeASchemaRegistry) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseKafka(R"(discovery = "kafka"
uri = "kafka://b1:9092"
topics = ["dbserver1.inventory.customers"]
format = "avro"
schema_registry = "http://r1:8081,http://r2:8081"
schema_registry_auth = "key:secret"
changes = "debezium"
)",
                                                         "[merge]\nkeys = [\"id\"]\n"));
  EXPECT_EQ(config.source.format, SourceFormat::kAvro);
  EXPECT_EQ(config.source.stream.schema_registry_url, "http://r1:8081,http://r2:8081");
  EXPECT_EQ(config.source.stream.schema_registry_auth, std::optional<std::string>("key:secret"));
  EXPECT_EQ(config.source.stream.schema_registry_token, std::nullopt);
}

TEST(KafkaConfigTest, KafkaSourcesRefuseWhatDoesNotApply) {
  const std::string base = "discovery = \"kafka\"\nuri = \"kafka://b:9092\"\n";
  EXPECT_THAT(KafkaError(base), HasSubstr("needs topics"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\ntopic_pattern = \"a.*\"\n"), HasSubstr("not both"));
  EXPECT_THAT(KafkaError("discovery = \"kafka\"\nuri = \"/data\"\ntopics = [\"a\"]\n"),
              HasSubstr("kafka://host:port"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nsettle = \"5s\"\n"), HasSubstr("applies to files"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nschema_sample_files = 5\n"),
              HasSubstr("applies to files"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\ntable = \"x\"\n"), HasSubstr("topics name their tables"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nformat = \"avro\"\n"),
              HasSubstr("set schema_registry = \"http://host:8081\""));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nschema_registry = \"http://r:8081\"\n"),
              HasSubstr("applies to format = \"avro\""));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nformat = \"avro\"\nschema_registry = \"r:8081\"\n"),
              HasSubstr("expected http(s)://host:port"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nformat = \"avro\"\nschema_registry = \"http://r\"\n"
                                "schema_registry_auth = \"nocolon\"\n"),
              HasSubstr("user:password"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nformat = \"csv\"\n"), HasSubstr("or Confluent Avro"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\nchanges = \"cda\"\n"),
              HasSubstr("\"debezium\", \"append\""));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\non_bad_record = \"rescue\"\n"), HasSubstr("dead_letter"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\n[source.kafka]\n\"group.id\" = \"g\"\n"),
              HasSubstr("managed by floe"));
}

// Issue 16: one topic routed to several tables by a record field.
TEST(KafkaConfigTest, TopicRoutesNameAFieldAndTheTablesItsValuesName) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseKafka(R"(discovery = "kafka"
uri = "kafka://b:9092"
topics = ["dbserver1.all_tables", "app.events"]
changes = "debezium"
topic_routes = { "dbserver1.all_tables" = { field = "source.table", tables = ["customers", "orders"] }, "app.events" = { field = "type", tables = ["clicks"], on_unrouted = "skip" } }
)"));
  const TopicRoute& cdc = config.source.kafka.topic_routes.at("dbserver1.all_tables");
  EXPECT_EQ(cdc.field, (std::vector<std::string>{"source", "table"}));
  EXPECT_EQ(cdc.tables, (std::vector<std::string>{"customers", "orders"}));
  EXPECT_EQ(cdc.on_unrouted, UnroutedRecordPolicy::kDeadLetter);
  EXPECT_EQ(config.source.kafka.topic_routes.at("app.events").on_unrouted, UnroutedRecordPolicy::kSkip);

  ASSERT_OK_AND_ASSIGN(PipelineConfig matched, ParseKafka(R"(discovery = "kafka"
uri = "kafka://b:9092"
topic_pattern = "dbserver1\\..*"
topic_routes = { "dbserver1.all" = { field = "source.table", tables = ["a"], on_unrouted = "fail" } }
)"));
  EXPECT_EQ(matched.source.kafka.topic_routes.at("dbserver1.all").on_unrouted, UnroutedRecordPolicy::kFail);
}

TEST(KafkaConfigTest, TopicRoutesRefuseUnknownTopicsEmptyTablesAndBadPaths) {
  const std::string base = "discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"t\"]\n";
  auto route = [&](const std::string& topic, const std::string& body) {
    return KafkaError(base + "topic_routes = { \"" + topic + "\" = { " + body + " } }\n");
  };
  EXPECT_THAT(route("other", "field = \"type\", tables = [\"a\"]"),
              HasSubstr("topic_routes.\"other\": names a topic that is not in topics"));
  EXPECT_THAT(KafkaError("discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopic_pattern = \"db\\\\..*\"\n"
                         "topic_routes = { \"app.x\" = { field = \"type\", tables = [\"a\"] } }\n"),
              HasSubstr("names a topic topic_pattern does not match"));
  EXPECT_THAT(route("t", "field = \"type\", tables = []"), HasSubstr("tables: must list the tables"));
  EXPECT_THAT(route("t", "field = \"type\""), HasSubstr("tables: must list the tables"));
  EXPECT_THAT(route("t", "tables = [\"a\"]"), HasSubstr("field: is required"));
  for (const char* bad : {"", ".type", "source.", "source..table"}) {
    EXPECT_THAT(route("t", std::string("field = \"") + bad + "\", tables = [\"a\"]"),
                HasSubstr("must be a dot path of field names"))
        << bad;
  }
  EXPECT_THAT(route("t", "field = \"type\", tables = [\"a.b\"]"), HasSubstr("contains '.'"));
  EXPECT_THAT(route("t", "field = \"type\", tables = [\"a\", \"a\"]"), HasSubstr("lists a twice"));
  EXPECT_THAT(route("t", "field = \"type\", tables = [\"a\"], on_unrouted = \"rescue\""),
              HasSubstr("\"dead_letter\", \"skip\" or \"fail\""));
  EXPECT_THAT(route("t", "field = \"type\", tables = [\"a\"], fields = \"x\""), HasSubstr("unknown key"));
  EXPECT_THAT(KafkaError(base + "topic_routes = { \"t\" = \"a\" }\n"), HasSubstr("expected { field = "));
  EXPECT_THAT(KafkaError(base + "topic_tables = { \"t\" = \"x\" }\n"
                                "topic_routes = { \"t\" = { field = \"type\", tables = [\"a\"] } }\n"),
              HasSubstr("also in topic_tables"));
}

// Issue 16: Debezium from Kafka keys its records by the source table's
// primary key (the record key struct), so [merge] keys may be left out; keys
// given (globally or per table) still win.
TEST(KafkaConfigTest, DebeziumWithoutKeysTakesTheRecordKey) {
  const std::string base =
      "discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"a\"]\nchanges = \"debezium\"\n";
  ASSERT_OK_AND_ASSIGN(PipelineConfig keyless, ParseKafka(base));
  EXPECT_TRUE(keyless.merge.KeysFromRecordKey());
  EXPECT_TRUE(keyless.merge.keys.empty());
  EXPECT_TRUE(keyless.source.stream.record_key_column);
  EXPECT_TRUE(keyless.ForTable("a").merge.KeysFromRecordKey());

  ASSERT_OK_AND_ASSIGN(PipelineConfig keyed, ParseKafka(base, "[merge]\nkeys = [\"id\"]\n"));
  EXPECT_FALSE(keyed.merge.KeysFromRecordKey());
  EXPECT_FALSE(keyed.source.stream.record_key_column);

  ASSERT_OK_AND_ASSIGN(PipelineConfig per_table, ParseKafka(base, "[tables.a]\nkeys = [\"code\"]\n"));
  EXPECT_FALSE(per_table.ForTable("a").merge.KeysFromRecordKey()) << "a table's keys win";
  EXPECT_TRUE(per_table.ForTable("b").merge.KeysFromRecordKey());

  // Kinesis records carry a partition key, not Debezium's key struct.
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\nuri = \"kinesis://s\"\nregion = \"eu-west-1\"\n"
                         "changes = \"debezium\"\n"),
              HasSubstr("only Kafka records carry Debezium's key struct"));
}

TEST(KinesisConfigTest, KinesisSourcesTakeAStreamByNameOrArnAndDebeziumDefaults) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseKafka(R"(discovery = "kinesis"
uri = "kinesis://dbserver1.inventory.customers"
changes = "debezium"
starting_position = "LATEST"
on_bad_record = "fail"
endpoint = "http://127.0.0.1:4566"
region = "eu-west-1"
)",
                                                         "[merge]\nkeys = [\"id\"]\n"));
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kKinesis);
  EXPECT_EQ(config.source.format, SourceFormat::kJson);
  EXPECT_EQ(config.source.kinesis.stream, "dbserver1.inventory.customers");
  EXPECT_EQ(config.source.kinesis.table, "dbserver1.inventory.customers") << "the stream names the table";
  EXPECT_EQ(config.source.kinesis.stream_arn, "");
  EXPECT_EQ(config.source.kinesis.endpoint, "http://127.0.0.1:4566");
  EXPECT_EQ(config.source.kinesis.region, "eu-west-1");
  EXPECT_TRUE(config.source.stream.start_at_latest);
  EXPECT_EQ(config.source.stream.on_bad_record, StreamBadRecordPolicy::kFail);
  ASSERT_EQ(config.merge.order_by.size(), 2u);
  EXPECT_EQ(config.merge.order_by[0].name, "source.ts_ms");
  EXPECT_EQ(config.merge.order_by[1].name, "kinesis.arrival") << "the arrival time breaks ties";
  EXPECT_EQ(config.merge.order_by[1].kind, OrderingKind::kTimestamp);

  ASSERT_OK_AND_ASSIGN(PipelineConfig by_arn, ParseKafka(R"(discovery = "kinesis"
uri = "arn:aws:kinesis:ap-south-1:123456789012:stream/clicks"
table = "click_events"
kinesis_metadata = true
)"));
  EXPECT_EQ(by_arn.source.kinesis.stream, "clicks");
  EXPECT_EQ(by_arn.source.kinesis.stream_arn, "arn:aws:kinesis:ap-south-1:123456789012:stream/clicks");
  EXPECT_EQ(by_arn.source.kinesis.region, "ap-south-1") << "the ARN names the region";
  EXPECT_EQ(by_arn.source.kinesis.table, "click_events");
  EXPECT_TRUE(by_arn.source.stream.metadata_column);
  EXPECT_FALSE(by_arn.source.stream.start_at_latest);
  EXPECT_EQ(by_arn.merge.mode, WriteMode::kAppend);
}

TEST(KinesisConfigTest, KinesisSourcesRefuseWhatDoesNotApply) {
  const std::string base = "discovery = \"kinesis\"\nuri = \"kinesis://s\"\n";
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\n"), HasSubstr("kinesis://<stream name> or its ARN"));
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\nuri = \"kafka://b:9092\"\n"),
              HasSubstr("kinesis://<stream name> or its ARN"));
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\nuri = \"arn:aws:sqs:us-east-1:1:stream/x\"\n"),
              HasSubstr("kinesis://<stream name> or its ARN"));
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\nuri = \"kinesis://bad name\"\n"),
              HasSubstr("is not a Kinesis stream name"));
  EXPECT_THAT(KafkaError("discovery = \"kinesis\"\nuri = \"arn:aws:kinesis:us-east-1:1:stream/s\"\n"
                         "region = \"eu-west-1\"\n"),
              HasSubstr("the stream ARN in uri names region \"us-east-1\""));
  EXPECT_THAT(KafkaError(base + "endpoint = \"127.0.0.1:4566\"\n"),
              HasSubstr("expected http(s)://host[:port]"));
  EXPECT_THAT(KafkaError(base + "starting_position = \"earliest\"\n"), HasSubstr("TRIM_HORIZON"));
  EXPECT_THAT(KafkaError(base + "topics = [\"a\"]\n"), HasSubstr("unknown key [source] topics"));
  EXPECT_THAT(KafkaError(base + "kafka_metadata = true\n"), HasSubstr("unknown key [source] kafka_metadata"));
  EXPECT_THAT(KafkaError(base + "settle = \"5s\"\n"), HasSubstr("not to discovery \"kinesis\""));
  EXPECT_THAT(KafkaError(base + "changes = \"dms\"\n"), HasSubstr("Kinesis records take"));
  EXPECT_THAT(KafkaError(base + "format = \"avro\"\n"), HasSubstr("set schema_registry"));
  EXPECT_THAT(
      KafkaError("discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"a\"]\nregion = \"x\"\n"),
      HasSubstr("[source] region: is only used with kafka_auth = \"aws_msk_iam\""));
}

TEST(KafkaConfigTest, MskIamAuthTakesTheRegionAndTheS3CredentialKeys) {
  const std::string base =
      "discovery = \"kafka\"\nuri = \"kafka://b-1.demo.c2.kafka.eu-west-1.amazonaws.com:9098\"\n"
      "topics = [\"a\"]\nkafka_auth = \"aws_msk_iam\"\n";
  ASSERT_OK_AND_ASSIGN(PipelineConfig config,
                       ParseKafka(base + "region = \"eu-west-1\"\n", "[s3]\nprofile = \"msk\"\n"));
  EXPECT_TRUE(config.source.kafka.aws_msk_iam);
  EXPECT_EQ(config.source.kafka.region, "eu-west-1");
  EXPECT_EQ(config.source.kafka.aws.profile, "msk");
  ASSERT_OK_AND_ASSIGN(config, ParseKafka(base));
  EXPECT_EQ(config.source.kafka.region, "") << "then from the brokers' host names";

  EXPECT_THAT(KafkaError(base + "[source.kafka]\n\"sasl.mechanism\" = \"SCRAM-SHA-512\"\n"),
              HasSubstr("[source] kafka.sasl.mechanism: must be OAUTHBEARER"));
  EXPECT_THAT(KafkaError(base + "[source.kafka]\n\"sasl.oauthbearer.method\" = \"oidc\"\n"),
              HasSubstr("conflicts with kafka_auth"));
  EXPECT_OK(ParseKafka(base + "[source.kafka]\n\"sasl.mechanism\" = \"OAUTHBEARER\"\n"));
  EXPECT_THAT(
      KafkaError("discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"a\"]\nkafka_auth = \"iam\"\n"),
      HasSubstr("[source] kafka_auth: must be \"aws_msk_iam\""));
}

// DMS's CSV output has no header: the columns come from column_names, for
// every table or per [tables.<name>].
TEST(CsvColumnNamesTest, HeaderlessCsvTakesColumnNamesPerTable) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseKafka(R"(changes = "dms"
format = "csv"
uri = "/data/dms"
column_names = ["Op", "AR_H_CHANGE_SEQ", "id", "name"]
)",
                                                         R"([merge]
keys = ["id"]
[tables.orders]
column_names = ["Op", "AR_H_CHANGE_SEQ", "id", "amount"]
)"));
  EXPECT_EQ(config.source.text.column_names,
            (std::vector<std::string>{"Op", "AR_H_CHANGE_SEQ", "id", "name"}));
  EXPECT_EQ(config.source.text.table_column_names.at("orders"),
            (std::vector<std::string>{"Op", "AR_H_CHANGE_SEQ", "id", "amount"}));
  EXPECT_THAT(KafkaError("format = \"parquet\"\nuri = \"/d\"\ncolumn_names = [\"a\"]\n"),
              HasSubstr("column_names: applies only to format = \"csv\""));
  EXPECT_THAT(KafkaError("format = \"parquet\"\nuri = \"/d\"\n", "[tables.t]\ncolumn_names = [\"a\"]\n"),
              HasSubstr("[tables.t] column_names: applies only to format = \"csv\""));
  EXPECT_THAT(KafkaError("format = \"csv\"\nuri = \"/d\"\ncolumn_names = [\"a\", \"a\"]\n"),
              HasSubstr("names \"a\" twice"));
  EXPECT_THAT(KafkaError("format = \"csv\"\nuri = \"/d\"\ncolumn_names = []\n"), HasSubstr("is empty"));
}

Result<PipelineConfig> ParseSource(const std::string& source) {
  return ParsePipelineConfig("name = \"n\"\n[source]\n" + source + kKafkaCatalog, "/etc/floe/pipeline.toml");
}

std::string SourceError(const std::string& source) {
  auto result = ParseSource(source);
  return result.ok() ? "<parsed without error>" : result.status().message();
}

TEST(NotificationConfigTest, SqsQueueAndItsKeys) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseSource(R"(format = "parquet"
uri = "s3://landing/events"
queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/landing"
sqs_endpoint = "http://127.0.0.1:4566/"
backfill_interval = "6h"
backfill_on_start = false
visibility_timeout = "2m"
wait_time = "5s"
max_messages = 500
)"));
  const NotificationConfig& notifications = config.source.notifications;
  EXPECT_EQ(notifications.kind, NotificationKind::kSqs);
  EXPECT_EQ(notifications.queue_url, "https://sqs.eu-west-1.amazonaws.com/123456789012/landing");
  EXPECT_EQ(notifications.sqs_endpoint, "http://127.0.0.1:4566");
  EXPECT_EQ(notifications.backfill_interval_ms, int64_t{6} * 3600 * 1000);
  EXPECT_FALSE(notifications.backfill_on_start);
  EXPECT_EQ(notifications.visibility_timeout_ms, 120'000);
  EXPECT_EQ(notifications.wait_time_ms, 5'000);
  EXPECT_EQ(notifications.max_messages, 500);

  // The sqs:// spelling is the same queue; defaults.
  ASSERT_OK_AND_ASSIGN(PipelineConfig short_form, ParseSource(R"(format = "cda"
uri = "s3://landing/cda"
notifications = "sqs://sqs.eu-west-1.amazonaws.com/123456789012/landing"
)"));
  EXPECT_EQ(short_form.source.notifications.kind, NotificationKind::kSqs);
  EXPECT_EQ(short_form.source.notifications.queue_url,
            "https://sqs.eu-west-1.amazonaws.com/123456789012/landing");
  EXPECT_EQ(short_form.source.notifications.backfill_interval_ms, int64_t{3600} * 1000);
  EXPECT_TRUE(short_form.source.notifications.backfill_on_start);
  EXPECT_EQ(short_form.source.notifications.visibility_timeout_ms, 300'000);
  EXPECT_EQ(short_form.source.notifications.wait_time_ms, 20'000);
  EXPECT_EQ(short_form.source.notifications.max_messages, 10'000);

  ASSERT_OK_AND_ASSIGN(PipelineConfig inotify,
                       ParseSource("format = \"jsonl\"\nuri = \"/landing/clicks\"\n"
                                   "notifications = \"inotify\"\nbackfill_interval = 0\n"));
  EXPECT_EQ(inotify.source.notifications.kind, NotificationKind::kInotify);
  EXPECT_EQ(inotify.source.notifications.backfill_interval_ms, 0);
  ASSERT_OK_AND_ASSIGN(PipelineConfig listing, ParseSource("format = \"parquet\"\nuri = \"/landing/x\"\n"));
  EXPECT_EQ(listing.source.notifications.kind, NotificationKind::kNone);
  EXPECT_STREQ(NotificationKindName(NotificationKind::kInotify), "inotify");
}

TEST(NotificationConfigTest, KeysThatDoNotApplyAreRefusedByName) {
  const std::string s3 = "format = \"parquet\"\nuri = \"s3://landing/events\"\n";
  const std::string queue = "queue_url = \"https://sqs.us-east-1.amazonaws.com/1/q\"\n";
  EXPECT_THAT(
      SourceError("format = \"parquet\"\nuri = \"/landing/x\"\n" + queue),
      HasSubstr(
          "[source] queue_url: SQS notifications announce S3 objects, but uri \"/landing/x\" is a local"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"inotify\"\n"),
              HasSubstr("[source] notifications: \"inotify\" watches a local directory"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"sqs\"\n"),
              HasSubstr("\"sqs\" needs the queue: set queue_url"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"kinesis\"\n"), HasSubstr("expected \"sqs://<host>"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"sqs://host-only\"\n"),
              HasSubstr("<account id>/<queue name>"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"sqs://h/1/q\"\n" + queue), HasSubstr("not both"));
  EXPECT_THAT(SourceError(s3 + "notifications = \"none\"\n" + queue), HasSubstr("is an SQS queue, but"));
  EXPECT_THAT(SourceError(s3 + "queue_url = \"sqs.us-east-1.amazonaws.com/1/q\"\n"),
              HasSubstr("[source] queue_url: expected https://sqs.<region>"));
  EXPECT_THAT(SourceError(s3 + "visibility_timeout = \"1m\"\n"),
              HasSubstr("[source] visibility_timeout: applies to SQS notifications"));
  EXPECT_THAT(
      SourceError("format = \"parquet\"\nuri = \"/x/y\"\nnotifications = \"inotify\"\nmax_messages = 5\n"),
      HasSubstr("[source] max_messages: applies to SQS notifications"));
  EXPECT_THAT(SourceError(s3 + "backfill_interval = \"1h\"\n"),
              HasSubstr("[source] backfill_interval: applies with notifications"));
  EXPECT_THAT(SourceError(s3 + queue + "visibility_timeout = \"13h\"\n"), HasSubstr("between 1s and 12h"));
  EXPECT_THAT(SourceError(s3 + queue + "wait_time = \"21s\"\n"), HasSubstr("at most 20s"));
  EXPECT_THAT(SourceError(s3 + queue + "max_messages = 0\n"), HasSubstr("between 1 and 100000"));
  EXPECT_THAT(SourceError(s3 + queue + "sqs_endpoint = \"http://h:1/path\"\n"),
              HasSubstr("[source] sqs_endpoint"));
  EXPECT_THAT(KafkaError("discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"a\"]\n" + queue),
              HasSubstr("[source] queue_url: applies to files (discovery \"cda\" or \"prefix\")"));
  EXPECT_THAT(KafkaError("discovery = \"kafka\"\nuri = \"kafka://b:9092\"\ntopics = [\"a\"]\n"
                         "backfill_interval = \"1h\"\n"),
              HasSubstr("[source] backfill_interval: applies to files"));
}

}  // namespace
}  // namespace floe::ingest

namespace floe::ingest {
namespace {

TEST(TableChangesConfigTest, TheFeedOfTablesInThePipelinesCatalogWithItsMergeDefaults) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParseKafka(R"(discovery = "table_changes"
tables = ["silver.claims", "silver.policies"]
commits_per_unit = 8
[tables.policies]
keys = ["policy_id"]
)"));
  EXPECT_EQ(config.source.discovery, DiscoveryKind::kTableChanges);
  EXPECT_EQ(config.source.changes, ChangeKind::kTableChanges);
  EXPECT_EQ(config.source.table_changes.tables,
            (std::vector<std::string>{"silver.claims", "silver.policies"}));
  EXPECT_EQ(config.source.table_changes.commits_per_unit, 8);
  EXPECT_EQ(config.source.uri, "table-changes://silver.claims,silver.policies");
  // The source tables are read through the pipeline's own catalog.
  EXPECT_EQ(config.source.table_changes.catalog.uri, config.catalog.uri);
  const TableSettings claims = config.ForTable("claims");
  EXPECT_EQ(claims.merge.mode, WriteMode::kMerge);
  EXPECT_TRUE(claims.merge.keys.empty()) << "the source table's key, found at run time";
  EXPECT_TRUE(claims.merge.keys_from_source_table);
  ASSERT_EQ(claims.merge.order_by.size(), 2u);
  EXPECT_EQ(claims.merge.order_by[0].name, "_commit_sequence_number");
  EXPECT_EQ(claims.merge.order_by[1].name, "_change_ordinal");
  EXPECT_EQ(claims.merge.operation_column, "_change_type");
  EXPECT_EQ(claims.merge.ignore_values, (Codes{std::string("update_preimage")}));
  // Updates are paired by the key each target merges by.
  EXPECT_TRUE(config.source.table_changes.keys.at("claims").empty());
  EXPECT_EQ(config.source.table_changes.keys.at("policies"), (std::vector<std::string>{"policy_id"}));
}

TEST(TableChangesConfigTest, RefusesFileKeysMissingTablesAndTwoTablesOfOneName) {
  EXPECT_THAT(KafkaError("discovery = \"table_changes\"\n"), HasSubstr("[source] tables: discovery"));
  EXPECT_THAT(KafkaError("discovery = \"table_changes\"\ntables = [\"claims\"]\n"),
              HasSubstr("expected \"namespace.table\""));
  EXPECT_THAT(KafkaError("discovery = \"table_changes\"\ntables = [\"a.claims\", \"b.CLAIMS\"]\n"),
              HasSubstr("their changes would go to one target table"));
  EXPECT_THAT(KafkaError("discovery = \"table_changes\"\ntables = [\"a.claims\"]\nuri = \"/x\"\n"),
              HasSubstr("[source] uri: does not apply to discovery \"table_changes\""));
  EXPECT_THAT(KafkaError("discovery = \"table_changes\"\ntables = [\"a.claims\"]\nchanges = \"cda\"\n"),
              HasSubstr("[source] changes: does not apply"));
  EXPECT_THAT(KafkaError("discovery = \"prefix\"\nuri = \"/x\"\ntables = [\"a.claims\"]\n"),
              HasSubstr("applies to discovery \"table_changes\""));
}

}  // namespace
}  // namespace floe::ingest
