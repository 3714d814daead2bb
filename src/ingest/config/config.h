// PipelineConfig: a pipeline's TOML configuration file, parsed and checked.
//
// Contract: LoadPipelineConfig reads the file, rejects unknown keys and
// wrong types with an InvalidArgument naming the file, the key path and what
// was expected ("pipeline.toml: [trigger] interval: expected a duration like
// \"60s\" or a number of seconds, got \"soon\""), expands ${VAR} from the
// environment in string values, and fills every default documented in
// docs/configuration.md. Relative local paths are resolved against the
// config file's directory. Per-table overrides ([tables.<name>]) are merged
// over the global [merge]/[target] settings by ForTable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "catalog/open/open_catalog.h"
#include "common/status.h"
#include "ingest/config/aggregate_config.h"
#include "io/s3/s3_config.h"

namespace floe::ingest {

// The source model's three axes (docs/architecture.md): which units exist
// and when each is complete ([source] discovery), how a unit's bytes become
// rows ([source] format), how rows become changes ([source] changes).
// kKafka: offset ranges of Kafka topic partitions ([source] discovery = "kafka");
// kKinesis: sequence-number ranges of the shards of a Kinesis data stream;
// kTableChanges: the change feed of floe tables in the pipeline's catalog,
// one unit per source commit, positioned by sequence number (silver -> gold).
enum class DiscoveryKind { kCda, kPrefix, kKafka, kKinesis, kTableChanges };
// The file formats of [source] format (format = "cda" is Parquet with the CDA
// presets).
enum class SourceFormat { kParquet, kJsonLines, kJson, kCsv, kAvro };
// "dms" is the AWS DMS preset of "columns": Op I/U/D, full-load files
// without Op are upserts, AR_H_CHANGE_SEQ orders (changes/dms_changes.h).
// "debezium": Debezium change events (before/after/source/op, optionally in
// the JSON converter's schema/payload wrapper; changes/debezium_changes.h).
// "table_changes": the rows of a table's change feed (_change_type and the
// commit order; changes/table_changes.h), set by discovery "table_changes".
enum class ChangeKind { kCda, kColumns, kAppend, kDms, kDebezium, kTableChanges };
// The change-feed columns changes "table_changes" reads (the first two as
// iceberg/scan/changelog_scan.h names them; the sequence number of the
// source commit is added by the table_changes unit opener).
inline constexpr const char* kFeedChangeTypeColumn = "_change_type";
inline constexpr const char* kFeedOrdinalColumn = "_change_ordinal";
inline constexpr const char* kFeedSequenceColumn = "_commit_sequence_number";
enum class WriteMode { kMerge, kAppend };
// How ordering values compare: "hex" left-pads hex strings to 32 digits
// (CDA gwcbi___seqval_hex), "number" compares integers, "timestamp" compares
// timestamps/dates (or integers holding epoch units), "digits" compares
// strings of up to 38 decimal digits as numbers (DMS AR_H_CHANGE_SEQ),
// "timestamp_text" compares "yyyy-MM-dd HH:mm:ss[.fffffffff]" strings as
// the instants they name (the DMS timestamp column).
enum class OrderingKind { kPaddedHex, kNumber, kTimestamp, kDigits, kTimestampText };
enum class IncompatiblePolicy { kRescue, kQuarantine, kFail };
// What a file without the operation column holds: nothing floe may guess
// (quarantine it), or upserts (a DMS full load).
enum class MissingOperation { kQuarantine, kUpsert };
// Where a row that cannot be a change goes (a null key or ordering value, an
// unknown operation code): the whole file is quarantined, or the row goes to
// the table <table>__bad_rows and the rest of the file lands.
enum class BadRowPolicy { kQuarantineFile, kTable };

// [[expectations]] action: what a change row failing the expectation does.
// kWarn counts it and keeps it; kDrop counts it and leaves the change out;
// kQuarantine leaves it out and writes it to <table>__quarantine; kFail
// stops the table's batch (nothing of it commits).
enum class ExpectationAction { kWarn, kDrop, kQuarantine, kFail };

// One [[expectations]] entry: a predicate every change row must make true.
struct ExpectationConfig {
  std::string name;  // letters, digits, '_' and '-' (it names snapshot summary keys)
  std::string expr;  // a boolean expression (docs/expressions.md), syntax-checked at load
  ExpectationAction action = ExpectationAction::kWarn;
  bool operator==(const ExpectationConfig&) const = default;
};

// A [transform.columns] entry: a column computed from the row.
struct DerivedColumn {
  std::string name;
  std::string expr;
  bool operator==(const DerivedColumn&) const = default;
};

// [transform]: the row stage between the change convention and the merge
// (ingest/transform/row_transform.h has the contract). Empty members do
// nothing.
struct TransformConfig {
  std::string filter;                                       // a predicate; "" keeps every row
  std::vector<DerivedColumn> columns;                       // in the file's order
  std::vector<std::string> drop;                            // source or derived columns left out
  std::vector<std::pair<std::string, std::string>> rename;  // (column, new name), in the file's order
  bool empty() const { return filter.empty() && columns.empty() && drop.empty() && rename.empty(); }
};

// [tables.<name>.transform]: each key given replaces the pipeline-wide one.
struct TransformOverride {
  std::optional<std::string> filter;
  std::optional<std::vector<DerivedColumn>> columns;
  std::optional<std::vector<std::string>> drop;
  std::optional<std::vector<std::pair<std::string, std::string>>> rename;
};

// One column of [merge] order_by and how its values compare.
struct OrderColumn {
  std::string name;
  OrderingKind kind = OrderingKind::kPaddedHex;
  bool operator==(const OrderColumn&) const = default;
};

// An operation code as [merge] insert_values etc. give it: an integer (for
// integer operation columns) or a string (for string ones, compared exactly,
// case-sensitive).
using OperationCode = std::variant<int64_t, std::string>;
// 4 or "I" as a config file would spell it.
std::string OperationCodeText(const OperationCode& code);

// [source] keys of the text formats (jsonl, json, csv); formats/ readers
// define what each means (json/json_file_reader.h, csv/csv_file_reader.h,
// text_inference.h, schema_hints.h). Unset optionals are sniffed or defaulted
// by the reader.
struct TextFormatConfig {
  bool infer_column_types = false;                  // false: every field a string (Auto Loader's default)
  std::string schema_hints;                         // "amount DECIMAL(12,2), created_at TIMESTAMP"
  int64_t schema_sample_bytes = int64_t{16} << 20;  // 0: the whole file
  std::string timestamp_format, date_format;        // strftime; empty: ISO 8601 and common orders
  std::string compression = "auto";                 // auto (magic bytes) | none | gzip | zstd | lz4 | bzip2
  // What a record that does not parse, or a value that does not fit its
  // column, does: "rescue" (into _rescued_data with file and line) or
  // "quarantine" (the whole file).
  bool quarantine_bad_records = false;
  // json
  std::optional<bool> strip_outer_array;  // unset: when the file's first byte is '['
  bool nested_as_json = false;            // nested objects and arrays as JSON text columns
  // csv
  std::optional<std::string> delimiter, quote, escape;
  std::optional<bool> header;
  std::string null_string;
  int64_t skip_rows = 0;
  std::string encoding = "utf-8";  // or "latin-1"
  // csv: the columns of headerless files ([source] column_names), per
  // source table where [tables.<name>] column_names says; a file with fewer
  // fields takes the last ones (DMS puts Op first in CDC files only).
  std::vector<std::string> column_names;
  std::map<std::string, std::vector<std::string>> table_column_names;
};

// What a stream record that cannot be decoded does ([source] on_bad_record
// of a stream source): it goes to <table>__dead_letter with its raw bytes and
// the error (the stream goes on), it is dropped and counted, or the batch fails.
enum class StreamBadRecordPolicy { kDeadLetter, kSkip, kFail };

// What every stream source (discovery "kafka", "kinesis") reads the same way.
struct StreamSourceConfig {
  // Where a partition or shard floe has never read starts: its oldest
  // retained record, or its end when floe first saw it (Kafka
  // starting_offsets = "latest", Kinesis starting_position = "LATEST").
  bool start_at_latest = false;
  // Each row gets the source's struct column (`kafka` / `kinesis`) saying
  // where it came from ([source] kafka_metadata / kinesis_metadata).
  bool metadata_column = false;
  StreamBadRecordPolicy on_bad_record = StreamBadRecordPolicy::kDeadLetter;
  // Each row gets its record key decoded as the struct column
  // `__record_key` (kRecordKeyColumn), and a record without a decodable key
  // is a dead letter: Debezium from Kafka without [merge] keys
  // (MergeConfig::keys_from_record_key), whose key columns are the key's fields.
  bool record_key_column = false;
  // format = "avro": the Confluent schema registry's URL(s), comma-separated,
  // and its credentials ("user:password" for basic auth, or a bearer token).
  std::string schema_registry_url;
  std::optional<std::string> schema_registry_auth;
  std::optional<std::string> schema_registry_token;
};

// The struct column of StreamSourceConfig::record_key_column.
inline constexpr std::string_view kRecordKeyColumn = "__record_key";

// [source] topic_routes: one topic split into several tables by a field of
// its records (kafka_topic_routes.h). What a record does whose field is
// missing or names none of the route's tables: a dead letter of the route's
// first table, dropped, or the batch fails.
enum class UnroutedRecordPolicy { kDeadLetter, kSkip, kFail };
struct TopicRoute {
  // The field naming a record's table: a dot path into the record value (the
  // Debezium envelope, or the event object), its segments non-empty.
  std::vector<std::string> field;
  std::vector<std::string> tables;  // the source tables, at least one, distinct; the first keeps the rest
  UnroutedRecordPolicy on_unrouted = UnroutedRecordPolicy::kDeadLetter;
};

// discovery = "kafka": where the records come from and how topics name tables.
struct KafkaSourceConfig {
  std::string bootstrap_servers;                    // [source] uri "kafka://host:port,host:port"
  std::vector<std::string> topics;                  // [source] topics, or
  std::string topic_pattern;                        // [source] topic_pattern (a regular expression)
  std::map<std::string, std::string> topic_tables;  // topic -> source table (default: its last dot segment)
  std::map<std::string, TopicRoute> topic_routes;   // topic -> the tables its records name
  // [source.kafka]: librdkafka properties passed through (security.protocol, sasl.*, ssl.*, ...).
  std::map<std::string, std::string> properties;
  // The consumer group floe commits offsets to after each table commit, for
  // lag tools only (floe never reads them; it never joins the group).
  // Default "floe-<pipeline name>".
  std::string group_id;
  // [source] kafka_auth = "aws_msk_iam": floe signs Amazon MSK's IAM token
  // (SASL/OAUTHBEARER) with the AWS chain's credentials ([s3] keys,
  // environment, profile), refreshed before it expires.
  bool aws_msk_iam = false;
  std::string region;             // [source] region; else the brokers' MSK host names, else the AWS chain
  aws::AwsCredentialOptions aws;  // the [s3] credential keys, filled after [s3] is read
};

// discovery = "kinesis": one Kinesis data stream, its shards read by
// sequence numbers. Credentials come from the AWS chain ([s3] keys included).
struct KinesisSourceConfig {
  std::string stream;      // [source] uri "kinesis://<name>" or the stream's ARN: its name
  std::string stream_arn;  // set when uri is the ARN
  std::string table;       // [source] table; default the stream name
  std::string region;      // [source] region; else the ARN's, else the AWS chain
  std::string endpoint;    // [source] endpoint; else AWS_ENDPOINT_URL_KINESIS > AWS_ENDPOINT_URL > profile
};

// [source] notifications: how a file discovery learns of new files besides
// listing. kSqs: S3 event notifications read from an SQS queue (direct, through
// SNS, or from EventBridge); kInotify: Linux inotify on a local uri.
enum class NotificationKind { kNone, kSqs, kInotify };

// The notification keys of [source] (discovery cda or prefix only).
struct NotificationConfig {
  NotificationKind kind = NotificationKind::kNone;
  std::string queue_url;     // kSqs: https://sqs.<region>.amazonaws.com/<account>/<queue>
  std::string sqs_endpoint;  // kSqs: explicit endpoint; empty: the AWS SDK chain, else the queue URL's host
  // A listing at start (backfill_on_start) and every backfill_interval (0:
  // never again) finds what notifications missed; the ledger decides what is new.
  int64_t backfill_interval_ms = int64_t{3600} * 1000;
  bool backfill_on_start = true;
  // kSqs: how long a received message stays hidden; floe extends it while it
  // holds the message (until the files it names are committed).
  int64_t visibility_timeout_ms = int64_t{300} * 1000;
  int64_t wait_time_ms = 20'000;  // kSqs: long-poll wait of one receive, 0..20 s
  int64_t max_messages = 10'000;  // kSqs: messages held (received, not yet deleted) at most
};

struct SourceConfig {
  // format = "cda" (the default) is the CDA preset: discovery "cda", Parquet
  // files, changes "cda". format = "parquet" defaults to discovery "prefix"
  // and changes "append" (or "columns" with [merge] mode = "merge").
  DiscoveryKind discovery = DiscoveryKind::kCda;
  SourceFormat format = SourceFormat::kParquet;
  ChangeKind changes = ChangeKind::kCda;
  std::string uri;  // local directory or s3://bucket/prefix
  std::vector<std::string>
      include;  // discovery cda: table-name globs; discovery prefix: path globs relative to uri
  std::vector<std::string> exclude;
  // discovery cda: after a reset (manifest timestamp backwards, fingerprint gone) reload the table
  // from scratch instead of stopping it.
  bool reload_on_reset = false;
  // discovery prefix: the source table name (default: the last component of uri).
  std::string table;
  // discovery prefix: a local file is eligible once unchanged for this long (object stores: at once).
  int64_t settle_ms = 10'000;
  // discovery prefix: Hive-style key=value folders become columns of their files' rows.
  bool hive_partitioning = true;
  // discovery prefix: the Iceberg type of a Hive partition column ("int",
  // "long", "date", "string", ...); a column not listed is inferred per value
  // (int, long, date, else string).
  std::map<std::string, std::string> partition_column_types;
  // discovery prefix: "{schema}/{table}/**"-style glob relative to uri whose
  // {table} (and {schema}) segments name each file's source table; empty: one
  // table (`table`).
  std::string table_from_path;
  // discovery prefix: file-name globs of full-load files (DMS "LOAD*"), taken
  // before every other file of their table.
  std::vector<std::string> full_load_files;
  // A uri that does not exist (yet) is a warning every round instead of an error.
  bool allow_missing_uri = false;
  // discovery prefix, local uri: a symbolic link to a file outside uri is
  // left out with a warning every round unless this is true (links that
  // stay inside uri are always followed).
  bool follow_links_outside_uri = false;
  // Files of a new table's first batch whose schemas vote on its column
  // types (copied into TableSettings::schema.sample_files).
  int64_t schema_sample_files = 64;
  // format jsonl, json, csv: how the text is read.
  TextFormatConfig text;
  // Stream discoveries (kafka, kinesis).
  StreamSourceConfig stream;
  KafkaSourceConfig kafka;
  KinesisSourceConfig kinesis;
  // discovery table_changes: the source tables ("namespace.table", in
  // `catalog`: the pipeline's [catalog], copied in by the parser).
  struct TableChangesConfig {
    std::vector<std::string> tables;
    catalog::CatalogOptions catalog;
    // A unit holds at most this many source commits ([source] commits_per_unit).
    int64_t commits_per_unit = 64;
    // Per source table name (without namespace): its [merge] keys, which
    // also pair its updates (empty: the source table's own key).
    std::map<std::string, std::vector<std::string>> keys;
  } table_changes;
  // discovery cda and prefix: notifications besides listing.
  NotificationConfig notifications;
};

struct MergeConfig {
  WriteMode mode = WriteMode::kMerge;  // cda default; parquet sources default to append
  std::vector<std::string> keys = {"id"};
  // changes = "debezium" from Kafka without [merge] keys: the key columns are
  // the fields of the Kafka record key (Debezium's key struct), adopted from
  // the first records and recorded in the table. Keys given win.
  bool keys_from_record_key = false;
  bool KeysFromRecordKey() const { return keys.empty() && keys_from_record_key; }
  // changes = "table_changes" without [merge] keys: the key columns are the
  // source table's (identifier fields, else the [merge] keys floe recorded
  // in it), found when the pipeline first reads it.
  bool keys_from_source_table = false;
  // One column, or two whose values each fit 8 bytes (number, timestamp,
  // timestamp_text): the first decides, the second breaks ties.
  std::vector<OrderColumn> order_by = {{"gwcbi___seqval_hex", OrderingKind::kPaddedHex}};
  // A row without an ordering value (the column missing from its file, or
  // null) orders before every change instead of being bad: DMS full-load rows.
  bool unordered_rows_oldest = false;
  std::string operation_column = "gwcbi___operation";  // empty: every row is an upsert
  std::vector<OperationCode> insert_values = {int64_t{0}, int64_t{2}};
  std::vector<OperationCode> update_values = {int64_t{4}};
  std::vector<OperationCode> delete_values = {int64_t{1}};
  std::vector<OperationCode> ignore_values = {int64_t{3}};  // CDA "before" images
  MissingOperation missing_operation = MissingOperation::kQuarantine;
  int64_t tombstone_retention_ms = int64_t{30} * 24 * 3600 * 1000;
};

struct LineageConfig {
  bool source_file = false;    // column _floe_source_file (string)
  bool row_number = false;     // column _floe_source_row (long, 0-based row in its file)
  bool file_modified = false;  // column _floe_source_modified (timestamptz)
  bool ingested_at = false;    // column _floe_ingested_at (timestamptz, the batch's commit time)
};

struct TargetConfig {
  std::string ns = "default";  // [target] namespace, dotted for nested namespaces
  int format_version = 2;      // 2: position delete files; 3: deletion vectors
  int64_t target_file_size_bytes = int64_t{128} << 20;
  std::string codec = "zstd";  // snappy | zstd | gzip | brotli | lz4 (LZ4_RAW) | none
  std::optional<int> codec_level;
  // Partition fields like "day(createtime)", "bucket(16, id)", "identity(region)".
  std::vector<std::string> partition_by;
  std::map<std::string, std::string> table_properties;
  // Each commit's row changes also go to the append-only table
  // <table>__changes (ingest/change_feed_table.h).
  bool change_feed = false;
};

struct SchemaPolicyConfig {
  IncompatiblePolicy on_incompatible = IncompatiblePolicy::kRescue;
  BadRowPolicy on_bad_row = BadRowPolicy::kQuarantineFile;
  // How many files of a new table's first batch vote on its column types
  // (spread over the batch); [source] schema_sample_files.
  int64_t sample_files = 64;
};

struct TriggerConfig {
  int64_t interval_ms = 60'000;
  int64_t max_files_per_batch = 1000;
  // Streams: a unit (one partition's offset range) holds at most this many records.
  int64_t max_records_per_batch = 100'000;
  int64_t max_bytes_per_batch = int64_t{1} << 30;
};

// [maintenance]: table upkeep (compaction, snapshot expiry, orphan removal,
// manifest rewrite) run between ingest commits and by `floe maintain`.
struct MaintenanceConfig {
  bool enabled = true;
  int64_t compact_every = 10;  // a table's ingest commits between maintenance runs
  int64_t min_input_files = 5;
  double small_file_ratio = 0.75;  // of [target] target_file_size
  double delete_ratio_threshold = 0.2;
  int64_t max_delete_files = 4;
  std::vector<std::string> sort_by;  // columns compaction sorts rewritten rows by
  int64_t retain_last = 10;
  int64_t max_snapshot_age_ms = int64_t{5} * 24 * 3600 * 1000;
  int64_t orphan_older_than_ms = int64_t{3} * 24 * 3600 * 1000;
  bool rewrite_manifests = true;
};

// The settings one target table uses after [tables.<name>] overrides.
// [performance]: how much of the machine one pipeline may use.
// How `floe run` writes its log lines ([observability] log_format).
enum class LogFormat { kText, kJson };

// [observability]: what `floe run` serves over HTTP and how it logs.
struct ObservabilityConfig {
  std::string http;   // "host:port" to serve /metrics, /healthz, /readyz, /api/status, /; empty: off
  std::string token;  // bearer token (required beyond loopback); empty: none
  std::vector<std::string> allowed_hosts;  // Host header names besides loopback ones
  std::vector<std::string> cors_origins;   // origins whose pages may call the endpoints
  LogFormat log_format = LogFormat::kText;
};

struct PerformanceConfig {
  // Worker threads for decoding source files and encoding output column
  // chunks; 0 means one per core (std::thread::hardware_concurrency()).
  int threads = 0;
  // Memory the pipeline plans to stay within, the primary-key index aside
  // (the index holds every live key of a table and is accounted separately,
  // at about 32 bytes per key). Bounds a batch's change map, the source data
  // decoded ahead and the output buffered before a row group is flushed;
  // a batch that would exceed it is cut short and the rest goes to the next
  // batch.
  int64_t memory_budget_bytes = int64_t{512} << 20;
  // At most this many tables of a poll are applied at once, each with an
  // equal share of `threads` and `memory_budget`; 0 means as many as there
  // are threads, as long as each table's share of the budget is at least
  // kMinTableMemoryBudget.
  int parallel_tables = 0;
  static constexpr int64_t kMinTableMemoryBudget = int64_t{64} << 20;
  // threads resolved: `threads`, or the number of cores when 0.
  int EffectiveThreads() const;
  // How many of `tables` tables are applied at once (>= 1).
  int TablesInParallel(size_t tables) const;
};

struct TableSettings {
  ChangeKind changes = ChangeKind::kCda;  // [source] changes; merge.mode kAppend still means append
  MergeConfig merge;
  TargetConfig target;
  SchemaPolicyConfig schema;
  LineageConfig lineage;
  PerformanceConfig performance;  // global ([performance]); copied into every table's settings
  std::string target_table;       // table name in the catalog (default: the source table name, lower-cased)
  TransformConfig transform;
  // [[expectations]] then [[tables.<name>.expectations]] (one of the same
  // name replaces the pipeline-wide one in place).
  std::vector<ExpectationConfig> expectations;
  // The [[aggregates]] over this table.
  std::vector<AggregateConfig> aggregates;
};

struct TableOverride {
  std::optional<MergeConfig> merge;  // set when any merge key was given; unset keys keep the global value
  std::optional<std::vector<std::string>> partition_by;
  std::optional<IncompatiblePolicy> on_incompatible;
  std::optional<BadRowPolicy> on_bad_row;
  std::optional<std::string> target_table;
  std::map<std::string, std::string> table_properties;
  std::optional<std::vector<std::string>> column_names;  // csv: copied into SourceConfig::text
  TransformOverride transform;
  std::vector<ExpectationConfig> expectations;  // [[tables.<name>.expectations]]
};

struct PipelineConfig {
  std::string name;         // pipeline id: letters, digits, '-', '_'
  std::string config_path;  // the file it was read from ("" when built in code)
  SourceConfig source;
  // [catalog]; type is always set ("sql" by default) and s3 is [s3].
  catalog::CatalogOptions catalog;
  TargetConfig target;
  MergeConfig merge;
  SchemaPolicyConfig schema;
  LineageConfig lineage;
  TriggerConfig trigger;
  MaintenanceConfig maintenance;
  PerformanceConfig performance;
  ObservabilityConfig observability;
  std::string
      state_dir;  // resolved: [state] dir, else $FLOE_STATE_DIR/<name>, else <config dir>/.floe-state/<name>
  std::string
      state_uri;  // [state] uri: "postgresql://..." keeps the ledger there; "" = <state_dir>/ledger.db
  // [state] lease_timeout: a worker silent this long loses its table leases (PostgreSQL ledger only).
  int64_t lease_timeout_ms = 30'000;
  s3::S3Options s3;                             // [s3] section
  std::map<std::string, TableOverride> tables;  // [tables.<source table name>]
  TransformConfig transform;                    // [transform]
  std::vector<ExpectationConfig> expectations;  // [[expectations]]
  std::vector<AggregateConfig> aggregates;      // [[aggregates]]

  TableSettings ForTable(const std::string& source_table) const;
};

Result<PipelineConfig> LoadPipelineConfig(const std::string& path);
// Parses TOML text; `path` names it in errors and anchors relative paths
// (an empty path: errors say "pipeline config", paths resolve against the
// working directory).
Result<PipelineConfig> ParsePipelineConfig(const std::string& toml_text, const std::string& path);

// "500ms", "10s", "5m", "2h", "30d" (a decimal number and a unit, optional
// space between) or a plain number of seconds; never negative.
Result<int64_t> ParseDurationMs(const std::string& text);
// "128MiB", "1GiB", "64MB", "512KiB", "100B" (KB/MB/GB/TB are powers of 1000,
// KiB/MiB/GiB/TiB of 1024; units ignore case) or a plain number of bytes.
Result<int64_t> ParseSizeBytes(const std::string& text);
// Lower-case names as the config file spells them.
const char* DiscoveryKindName(DiscoveryKind kind);        // "cda", "prefix", "kafka", "kinesis"
const char* NotificationKindName(NotificationKind kind);  // "none", "sqs", "inotify"
const char* SourceFormatName(SourceFormat format);        // "parquet", "jsonl", "json", "csv", "avro"
const char* ChangeKindName(ChangeKind kind);              // "cda", "columns", "append", "dms", "debezium"
const char* WriteModeName(WriteMode mode);
// "hex", "number", "timestamp", "digits", "timestamp_text"
const char* OrderingKindName(OrderingKind kind);
const char* IncompatiblePolicyName(IncompatiblePolicy policy);
const char* BadRowPolicyName(BadRowPolicy policy);            // "quarantine", "table"
const char* ExpectationActionName(ExpectationAction action);  // "warn", "drop", "quarantine", "fail"

// A merge table's key and ordering columns must reach the table as they
// arrive (the key index reads them back from the table): a transform that
// drops, renames or redefines one of `merge_columns` (compared ignoring
// ASCII case), or renames another column onto one, is InvalidArgument
// naming `label`, the key and the column. Called at config load with
// [merge] keys and order_by, and by the table ingestor with the columns its
// change convention writes.
Status CheckTransformKeepsColumns(const TransformConfig& transform,
                                  const std::vector<std::string>& merge_columns, const std::string& label);

}  // namespace floe::ingest
