// Pipeline configuration: TOML -> PipelineConfig with every key checked.
//
// toml++ reports syntax errors by throwing toml::parse_error; the throw is
// caught here and becomes an InvalidArgument "<file>:<line>:<col>: ...", so
// no exception leaves this file. Every section is read through a
// SectionReader that remembers which keys were consumed: whatever is left
// at the end is an unknown key (usually a typo) and an error.
#include "ingest/config/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "catalog/metastore.h"
#include "common/redaction.h"
#include "common/strings.h"
#include "ingest/config/aggregate_section.h"
#include "ingest/config/config_section.h"
#include "ingest/config/source_notifications.h"
#include "ingest/config/transform_config.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;
using config_internal::ApplyTransformOverride;
using config_internal::DescribeTomlValue;
using config_internal::MergeExpectations;
using config_internal::ParseContext;
using config_internal::ReadAggregates;
using config_internal::ReadExpectations;
using config_internal::ReadTransform;
using config_internal::SectionReader;

bool IsValidName(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

// Partition fields: a column name, or transform(args) with a known transform.
bool IsValidPartitionField(const std::string& field) {
  static const std::set<std::string> kTransforms = {"identity", "year",   "month",    "day",
                                                    "hour",     "bucket", "truncate", "void"};
  size_t open = field.find('(');
  if (open == std::string::npos) {
    return !field.empty() && field.find_first_of(" ,)") == std::string::npos;
  }
  if (field.back() != ')' || open == 0) return false;
  if (!kTransforms.count(field.substr(0, open))) return false;
  std::string args = field.substr(open + 1, field.size() - open - 2);
  return args.find_first_not_of(" ") != std::string::npos;
}

// A sub-table of the document, or an error when the key holds something else.
Result<const toml::table*> SectionTable(const ParseContext& context, const toml::table& root,
                                        std::string_view name) {
  const toml::node* node = root.get(name);
  if (!node) return static_cast<const toml::table*>(nullptr);
  const auto* table = node->as_table();
  if (!table) {
    return Status::InvalidArgument(context.display_path + ": " + std::string(name) +
                                   ": expected a section [" + std::string(name) + "], got " +
                                   DescribeTomlValue(*node));
  }
  return table;
}

bool HasScheme(const std::string& uri) {
  size_t colon = uri.find("://");
  if (colon == std::string::npos || colon == 0) return false;
  return std::all_of(uri.begin(), uri.begin() + static_cast<std::ptrdiff_t>(colon),
                     [](unsigned char c) { return std::isalnum(c) || c == '+' || c == '-' || c == '.'; });
}

std::string ResolvePath(const ParseContext& context, const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) p = context.base_dir / p;
  std::string out = p.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Local paths (plain or file://) resolve against the config's directory;
// other URIs (s3://, ...) are left alone.
std::string ResolveLocation(const ParseContext& context, const std::string& location) {
  if (location.rfind("file://", 0) == 0) return "file://" + ResolvePath(context, location.substr(7));
  if (HasScheme(location)) return location;
  return ResolvePath(context, location);
}

const std::vector<std::string> kModeNames = {"merge", "append"};
const std::vector<std::string> kOrderKindNames = {"hex", "number", "timestamp", "digits", "timestamp_text"};
const std::vector<std::string> kPolicyNames = {"rescue", "quarantine", "fail"};
const std::vector<std::string> kBadRowNames = {"quarantine", "table"};
const std::vector<std::string> kMissingOperationNames = {"quarantine", "upsert"};
// Ordering values are 16 bytes (ingest/merge/order_value.h): at most two
// columns of 8 bytes each.
constexpr size_t kMaxOrderColumns = 2;

// A string or an array of strings (order_by, order_kind).
Result<std::optional<std::vector<std::string>>> StringOrStrings(SectionReader& section,
                                                                std::string_view key) {
  const toml::node* node = section.Find(key);
  if (!node) return std::optional<std::vector<std::string>>();
  if (node->as_string()) {
    FLOE_ASSIGN_OR_RETURN(auto one, section.String(key));
    return std::optional<std::vector<std::string>>(std::vector<std::string>{*one});
  }
  if (!node->as_array()) {
    return section.Error(key, "expected a string or an array of strings, got " + DescribeTomlValue(*node),
                         node);
  }
  return section.StringArray(key);
}

// An array of operation codes: integers or strings.
Result<std::optional<std::vector<OperationCode>>> OperationCodes(SectionReader& section,
                                                                 std::string_view key) {
  const toml::node* node = section.Find(key);
  if (!node) return std::optional<std::vector<OperationCode>>();
  const auto* array = node->as_array();
  if (!array) {
    return section.Error(key, "expected an array of integers or strings, got " + DescribeTomlValue(*node),
                         node);
  }
  std::vector<OperationCode> codes;
  for (const toml::node& element : *array) {
    if (const auto* integer = element.as_integer()) {
      codes.emplace_back(integer->get());
    } else if (const auto* text = element.as_string()) {
      if (text->get().empty()) return section.Error(key, "an operation code is an empty string", &element);
      codes.emplace_back(text->get());
    } else {
      return section.Error(
          key, "expected an array of integers or strings, found " + DescribeTomlValue(element), &element);
    }
  }
  return std::optional<std::vector<OperationCode>>(std::move(codes));
}

// The merge keys shared by [merge] and [tables.<name>]. `default_kind` is
// the order_kind of columns order_by names without one.
Status ReadMergeKeys(SectionReader& section, MergeConfig* merge, OrderingKind default_kind, bool* any_given) {
  FLOE_ASSIGN_OR_RETURN(auto mode, section.Choice("mode", kModeNames));
  FLOE_ASSIGN_OR_RETURN(auto keys, section.StringArray("keys"));
  FLOE_ASSIGN_OR_RETURN(auto order_by, StringOrStrings(section, "order_by"));
  FLOE_ASSIGN_OR_RETURN(auto order_kind, StringOrStrings(section, "order_kind"));
  FLOE_ASSIGN_OR_RETURN(auto operation_column, section.String("operation_column"));
  FLOE_ASSIGN_OR_RETURN(auto insert_values, OperationCodes(section, "insert_values"));
  FLOE_ASSIGN_OR_RETURN(auto update_values, OperationCodes(section, "update_values"));
  FLOE_ASSIGN_OR_RETURN(auto delete_values, OperationCodes(section, "delete_values"));
  FLOE_ASSIGN_OR_RETURN(auto ignore_values, OperationCodes(section, "ignore_values"));
  FLOE_ASSIGN_OR_RETURN(auto missing_operation, section.Choice("missing_operation", kMissingOperationNames));
  if (mode) merge->mode = static_cast<WriteMode>(*mode);
  if (keys) merge->keys = *keys;
  std::vector<OrderingKind> kinds;
  if (order_kind) {
    for (const std::string& name : *order_kind) {
      auto found = std::find(kOrderKindNames.begin(), kOrderKindNames.end(), name);
      if (found == kOrderKindNames.end()) {
        std::string expected;
        for (size_t i = 0; i < kOrderKindNames.size(); ++i) {
          expected += (i == 0                            ? ""
                       : i + 1 == kOrderKindNames.size() ? " or "
                                                         : ", ") +
                      ("\"" + kOrderKindNames[i] + "\"");
        }
        return section.Error("order_kind", "expected " + expected + ", got \"" + name + "\"");
      }
      kinds.push_back(static_cast<OrderingKind>(found - kOrderKindNames.begin()));
    }
    if (kinds.empty()) return section.Error("order_kind", "must name at least one kind");
  }
  if (order_by) {
    if (order_by->size() > kMaxOrderColumns) {
      return section.Error(
          "order_by", "orders by at most 2 columns (an ordering value is 16 bytes: two 8-byte halves), got " +
                          std::to_string(order_by->size()));
    }
    merge->order_by.clear();
    for (const std::string& name : *order_by) merge->order_by.push_back({name, default_kind});
    if (order_by->empty()) merge->order_by.clear();
  }
  if (order_kind) {
    if (merge->order_by.empty()) return section.Error("order_kind", "needs order_by");
    if (kinds.size() != 1 && kinds.size() != merge->order_by.size()) {
      return section.Error("order_kind", "names " + std::to_string(kinds.size()) + " kinds for " +
                                             std::to_string(merge->order_by.size()) +
                                             " order_by columns: give one kind, or one per column");
    }
    for (size_t i = 0; i < merge->order_by.size(); ++i) {
      merge->order_by[i].kind = kinds.size() == 1 ? kinds[0] : kinds[i];
    }
  }
  if (operation_column) merge->operation_column = *operation_column;
  if (insert_values) merge->insert_values = *insert_values;
  if (update_values) merge->update_values = *update_values;
  if (delete_values) merge->delete_values = *delete_values;
  if (ignore_values) merge->ignore_values = *ignore_values;
  if (missing_operation) merge->missing_operation = static_cast<MissingOperation>(*missing_operation);
  *any_given = mode || keys || order_by || order_kind || operation_column || insert_values || update_values ||
               delete_values || ignore_values || missing_operation;
  return Status::OK();
}

// Checks that a merge configuration can work; `where` names the section.
Status ValidateMerge(const ParseContext& context, const std::string& where, const MergeConfig& merge) {
  auto error = [&](const std::string& what) {
    return Status::InvalidArgument(context.display_path + ": " + where + ": " + what);
  };
  std::set<std::string> seen;
  for (const std::string& key : merge.keys) {
    if (key.empty()) return error("keys: a key column name is empty");
    if (!seen.insert(key).second) return error("keys: column \"" + key + "\" is listed twice");
  }
  std::set<std::string> ordered;
  for (const OrderColumn& column : merge.order_by) {
    if (column.name.empty()) return error("order_by: a column name is empty");
    if (!ordered.insert(column.name).second) {
      return error("order_by: column \"" + column.name + "\" is listed twice");
    }
    // Each column of a composite gets 8 of the 16 bytes; hex and digit
    // strings need all 16 (32 hex or 38 decimal digits).
    if (merge.order_by.size() > 1 &&
        (column.kind == OrderingKind::kPaddedHex || column.kind == OrderingKind::kDigits)) {
      return error("order_by: column \"" + column.name + "\" of kind \"" + OrderingKindName(column.kind) +
                   "\" needs all 16 bytes of an ordering value and cannot be combined with another column; "
                   "combine number, timestamp or timestamp_text columns");
    }
  }
  if (merge.mode == WriteMode::kMerge) {
    if (merge.keys.empty() && !merge.keys_from_record_key && !merge.keys_from_source_table) {
      return error("mode = \"merge\" needs keys (the primary key columns)");
    }
    if (merge.order_by.empty()) {
      return error("mode = \"merge\" needs order_by (the column that orders changes of one key)");
    }
  }
  std::map<OperationCode, std::string> codes;
  const std::pair<const char*, const std::vector<OperationCode>*> lists[] = {
      {"insert_values", &merge.insert_values},
      {"update_values", &merge.update_values},
      {"delete_values", &merge.delete_values},
      {"ignore_values", &merge.ignore_values}};
  for (const auto& [name, values] : lists) {
    for (const OperationCode& code : *values) {
      auto [it, inserted] = codes.emplace(code, name);
      if (!inserted) {
        return error("operation code " + OperationCodeText(code) + " appears in both " + it->second +
                     " and " + name);
      }
    }
  }
  return Status::OK();
}

Status ValidatePartitionBy(const ParseContext& context, const std::string& where,
                           const std::vector<std::string>& fields) {
  for (const std::string& field : fields) {
    if (!IsValidPartitionField(field)) {
      return Status::InvalidArgument(
          context.display_path + ": " + where +
          " partition_by: expected a column or a transform like \"day(createtime)\", "
          "\"bucket(16, id)\", \"truncate(4, name)\", got \"" +
          field + "\"");
    }
  }
  return Status::OK();
}

// Which of [source] changes / [merge] mode the file set: the changes
// default depends on [merge] mode, which ReadMerge reads later.
struct ChangesChoice {
  std::optional<ChangeKind> changes;  // [source] changes, when given
};

// column_names: not empty, no name empty or repeated.
Status CheckColumnNames(SectionReader& section, const std::vector<std::string>& names) {
  if (names.empty()) return section.Error("column_names", "is empty");
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty()) return section.Error("column_names", "holds an empty name");
    if (!seen.insert(name).second) return section.Error("column_names", "names \"" + name + "\" twice");
  }
  return Status::OK();
}

// The [source] keys of the text formats into `text`; a key of a format other
// than `format` is an error naming the formats it applies to.
// `stream_policy`: a stream source's [source] on_bad_record (dead_letter |
// skip | fail) goes there; nullptr for files (rescue | quarantine).
Status ReadTextFormatKeys(SectionReader& section, SourceFormat format, TextFormatConfig* text,
                          StreamBadRecordPolicy* stream_policy) {
  const bool is_json = format == SourceFormat::kJsonLines || format == SourceFormat::kJson;
  const bool is_csv = format == SourceFormat::kCsv;
  auto only = [&](std::string_view key, const char* formats) {
    return section.Error(key, std::string("applies only to format = ") + formats + ", not \"" +
                                  SourceFormatName(format) + "\"");
  };
  const char* kText = "\"jsonl\", \"json\" or \"csv\"";
  FLOE_ASSIGN_OR_RETURN(auto infer, section.Bool("infer_column_types"));
  FLOE_ASSIGN_OR_RETURN(auto hints, section.String("schema_hints"));
  FLOE_ASSIGN_OR_RETURN(auto sample, section.Size("schema_sample_bytes"));
  FLOE_ASSIGN_OR_RETURN(auto timestamp_format, section.String("timestamp_format"));
  FLOE_ASSIGN_OR_RETURN(auto date_format, section.String("date_format"));
  FLOE_ASSIGN_OR_RETURN(auto compression,
                        section.Choice("compression", {"auto", "none", "gzip", "zstd", "lz4", "bzip2"}));
  std::optional<size_t> on_bad_record;
  if (stream_policy != nullptr) {
    FLOE_ASSIGN_OR_RETURN(auto policy, section.Choice("on_bad_record", {"dead_letter", "skip", "fail"}));
    static constexpr StreamBadRecordPolicy kPolicies[] = {
        StreamBadRecordPolicy::kDeadLetter, StreamBadRecordPolicy::kSkip, StreamBadRecordPolicy::kFail};
    if (policy) *stream_policy = kPolicies[*policy];
  } else {
    FLOE_ASSIGN_OR_RETURN(on_bad_record, section.Choice("on_bad_record", {"rescue", "quarantine"}));
  }
  FLOE_ASSIGN_OR_RETURN(auto strip_outer_array, section.Bool("strip_outer_array"));
  FLOE_ASSIGN_OR_RETURN(auto nested_as_json, section.Bool("nested_as_json"));
  FLOE_ASSIGN_OR_RETURN(auto delimiter, section.String("delimiter"));
  FLOE_ASSIGN_OR_RETURN(auto quote, section.String("quote"));
  FLOE_ASSIGN_OR_RETURN(auto escape, section.String("escape"));
  FLOE_ASSIGN_OR_RETURN(auto header, section.Bool("header"));
  FLOE_ASSIGN_OR_RETURN(auto null_string, section.String("null_string"));
  FLOE_ASSIGN_OR_RETURN(auto skip_rows, section.Integer("skip_rows", 0, int64_t{1} << 40));
  FLOE_ASSIGN_OR_RETURN(auto encoding, section.Choice("encoding", {"utf-8", "latin-1"}));
  FLOE_ASSIGN_OR_RETURN(auto column_names, section.StringArray("column_names"));
  if (!is_json && !is_csv) {
    const std::pair<const char*, bool> given[] = {
        {"infer_column_types", infer.has_value()},   {"schema_hints", hints.has_value()},
        {"schema_sample_bytes", sample.has_value()}, {"timestamp_format", timestamp_format.has_value()},
        {"date_format", date_format.has_value()},    {"compression", compression.has_value()},
        {"on_bad_record", on_bad_record.has_value()}};
    for (const auto& [key, present] : given) {
      if (present) return only(key, kText);
    }
  }
  if (!is_json) {
    if (strip_outer_array) return only("strip_outer_array", "\"json\"");
    if (nested_as_json) return only("nested_as_json", "\"jsonl\" or \"json\"");
  }
  if (!is_csv) {
    const std::pair<const char*, bool> given[] = {
        {"delimiter", delimiter.has_value()},     {"quote", quote.has_value()},
        {"escape", escape.has_value()},           {"header", header.has_value()},
        {"null_string", null_string.has_value()}, {"skip_rows", skip_rows.has_value()},
        {"encoding", encoding.has_value()},       {"column_names", column_names.has_value()}};
    for (const auto& [key, present] : given) {
      if (present) return only(key, "\"csv\"");
    }
  }
  if (format == SourceFormat::kJsonLines && strip_outer_array) {
    return only("strip_outer_array", "\"json\" (a file holding one top-level array)");
  }
  if (infer) text->infer_column_types = *infer;
  if (hints) text->schema_hints = *hints;
  if (sample) text->schema_sample_bytes = *sample;
  if (timestamp_format) text->timestamp_format = *timestamp_format;
  if (date_format) text->date_format = *date_format;
  if (compression) {
    static const char* kNames[] = {"auto", "none", "gzip", "zstd", "lz4", "bzip2"};
    text->compression = kNames[*compression];
  }
  if (on_bad_record) text->quarantine_bad_records = *on_bad_record == 1;
  if (strip_outer_array) text->strip_outer_array = *strip_outer_array;
  if (nested_as_json) text->nested_as_json = *nested_as_json;
  // One character each; "\t" in TOML is a tab. quote and escape may be "" (none).
  const std::pair<const char*, std::optional<std::string>*> characters[] = {
      {"delimiter", &delimiter}, {"quote", &quote}, {"escape", &escape}};
  for (const auto& [key, value] : characters) {
    if (!*value) continue;
    const bool may_be_empty = std::string_view(key) != "delimiter";
    if ((*value)->size() > 1 || (!may_be_empty && (*value)->empty())) {
      return section.Error(key, std::string("must be one character") +
                                    (may_be_empty ? " or \"\" (none)" : "") + ", got \"" + **value + "\"");
    }
  }
  text->delimiter = delimiter;
  text->quote = quote;
  text->escape = escape;
  text->header = header;
  if (null_string) text->null_string = *null_string;
  if (skip_rows) text->skip_rows = *skip_rows;
  if (encoding) text->encoding = *encoding == 0 ? "utf-8" : "latin-1";
  if (column_names) {
    FLOE_RETURN_IF_ERROR(CheckColumnNames(section, *column_names));
    text->column_names = *column_names;
  }
  return Status::OK();
}

// The [source] keys every stream discovery reads: schema_registry (with its
// credentials), <kind>_metadata and the starting position
// (`starting_key`: its values, the first meaning the oldest record).
Status ReadStreamSourceKeys(SectionReader& section, const char* metadata_key, const char* starting_key,
                            const std::vector<std::string>& starting_values, StreamSourceConfig* stream) {
  FLOE_ASSIGN_OR_RETURN(auto starting, section.Choice(starting_key, starting_values));
  FLOE_ASSIGN_OR_RETURN(auto metadata, section.Bool(metadata_key));
  FLOE_ASSIGN_OR_RETURN(auto registry, section.String("schema_registry"));
  FLOE_ASSIGN_OR_RETURN(auto registry_auth, section.String("schema_registry_auth"));
  FLOE_ASSIGN_OR_RETURN(auto registry_token, section.String("schema_registry_token"));
  if (registry) {
    if (registry->rfind("http://", 0) != 0 && registry->rfind("https://", 0) != 0) {
      return section.Error("schema_registry", "expected http(s)://host:port[,http(s)://host:port]");
    }
    stream->schema_registry_url = *registry;
  }
  if ((registry_auth || registry_token) && !registry) {
    return section.Error(registry_auth ? "schema_registry_auth" : "schema_registry_token",
                         "needs schema_registry");
  }
  if (registry_auth && registry_token) {
    return section.Error("schema_registry_token",
                         "set schema_registry_auth or schema_registry_token, not both");
  }
  if (registry_auth) {
    if (registry_auth->find(':') == std::string::npos) {
      return section.Error("schema_registry_auth", "expected \"user:password\"");
    }
    stream->schema_registry_auth = *registry_auth;
  }
  if (registry_token) stream->schema_registry_token = *registry_token;
  if (starting) stream->start_at_latest = *starting == 1;
  if (metadata) stream->metadata_column = *metadata;
  return Status::OK();
}

// [source] topic_routes = { "<topic>" = { field = "a.b", tables = [...],
// on_unrouted = "..." }, ... }: each topic must be one the source reads
// (listed in topics, or matched by topic_pattern) and not in topic_tables.
Status ReadTopicRoutes(SectionReader& section, KafkaSourceConfig* kafka) {
  FLOE_ASSIGN_OR_RETURN(const toml::table* routes, section.Table("topic_routes"));
  if (routes == nullptr) return Status::OK();
  std::optional<std::regex> pattern;
  if (!kafka->topic_pattern.empty()) {
    try {
      pattern.emplace(kafka->topic_pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      return section.Error("topic_pattern", "is not a regular expression");
    }
  }
  for (const auto& [name, node] : *routes) {
    const std::string topic(name.str());
    const std::string key = "topic_routes.\"" + topic + "\"";
    const auto* table = node.as_table();
    if (table == nullptr) {
      return section.Error(
          key, "expected { field = \"...\", tables = [...] }, got " + DescribeTomlValue(node), &node);
    }
    const bool read =
        pattern ? std::regex_match(topic, *pattern)
                : std::find(kafka->topics.begin(), kafka->topics.end(), topic) != kafka->topics.end();
    if (!read) {
      return section.Error(
          key, pattern ? "names a topic topic_pattern does not match" : "names a topic that is not in topics",
          &node);
    }
    if (kafka->topic_tables.count(topic)) {
      return section.Error(key, "the topic is also in topic_tables: a topic goes to one table, or is routed");
    }
    SectionReader route_section = section.Nested(section.KeyPath(key), table);
    FLOE_ASSIGN_OR_RETURN(auto field, route_section.String("field"));
    FLOE_ASSIGN_OR_RETURN(auto tables, route_section.StringArray("tables"));
    FLOE_ASSIGN_OR_RETURN(auto policy, route_section.Choice("on_unrouted", {"dead_letter", "skip", "fail"}));
    FLOE_RETURN_IF_ERROR(route_section.CheckNoUnknownKeys());
    TopicRoute route;
    if (!field) return route_section.Error("field", "is required: the record field that names the table");
    std::vector<std::string> path;
    for (size_t start = 0;;) {
      const size_t dot = field->find('.', start);
      path.push_back(field->substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    for (const std::string& segment : path) {
      if (segment.empty()) {
        return route_section.Error(
            "field", "must be a dot path of field names like \"source.table\", got \"" + *field + "\"");
      }
    }
    route.field = path;
    if (!tables || tables->empty()) {
      return route_section.Error("tables", "must list the tables the field's values name");
    }
    std::set<std::string> seen;
    for (const std::string& routed : *tables) {
      if (Status valid = catalog::ValidateName(routed, "table name"); !valid.ok()) {
        return route_section.Error("tables", valid.message());
      }
      if (!seen.insert(routed).second) return route_section.Error("tables", "lists " + routed + " twice");
    }
    route.tables = *tables;
    if (policy) route.on_unrouted = static_cast<UnroutedRecordPolicy>(*policy);
    kafka->topic_routes[topic] = std::move(route);
  }
  return Status::OK();
}

// The [source] keys of discovery = "kafka" (topics, topic_pattern,
// topic_tables, topic_routes, group_id) and [source.kafka].
Status ReadKafkaSourceKeys(SectionReader& section, SourceConfig* source) {
  KafkaSourceConfig& kafka = source->kafka;
  FLOE_RETURN_IF_ERROR(ReadStreamSourceKeys(section, "kafka_metadata", "starting_offsets",
                                            {"earliest", "latest"}, &source->stream));
  FLOE_ASSIGN_OR_RETURN(auto topics, section.StringArray("topics"));
  FLOE_ASSIGN_OR_RETURN(auto pattern, section.String("topic_pattern"));
  FLOE_ASSIGN_OR_RETURN(auto topic_tables, section.StringMap("topic_tables"));
  FLOE_ASSIGN_OR_RETURN(auto properties, section.StringMap("kafka"));
  FLOE_ASSIGN_OR_RETURN(auto group_id, section.String("group_id"));
  FLOE_ASSIGN_OR_RETURN(auto auth, section.String("kafka_auth"));
  FLOE_ASSIGN_OR_RETURN(auto region, section.String("region"));
  if (auth) {
    if (*auth != "aws_msk_iam") {
      return section.Error("kafka_auth",
                           "must be \"aws_msk_iam\" (other SASL mechanisms and TLS are set in "
                           "[source.kafka]), got \"" +
                               *auth + "\"");
    }
    kafka.aws_msk_iam = true;
  }
  if (region) {
    if (!kafka.aws_msk_iam) return section.Error("region", "is only used with kafka_auth = \"aws_msk_iam\"");
    if (region->empty()) return section.Error("region", "is empty");
    kafka.region = *region;
  }
  if (group_id) {
    if (group_id->empty()) return section.Error("group_id", "is empty");
    kafka.group_id = *group_id;
  }
  if (topics.has_value() == pattern.has_value()) {
    return section.Error(topics ? "topic_pattern" : "topics",
                         topics
                             ? "set topics or topic_pattern, not both"
                             : "discovery \"kafka\" needs topics = [\"...\"] or topic_pattern = \"regex\"");
  }
  if (topics) {
    if (topics->empty()) return section.Error("topics", "is empty");
    for (const std::string& topic : *topics) {
      if (topic.empty()) return section.Error("topics", "holds an empty topic name");
    }
    kafka.topics = *topics;
  }
  if (pattern) {
    if (pattern->empty()) return section.Error("topic_pattern", "is empty");
    kafka.topic_pattern = *pattern;
  }
  if (topic_tables) {
    for (const auto& [topic, name] : *topic_tables) {
      if (name.empty() || name.find_first_of("/\\") != std::string::npos) {
        return section.Error("topic_tables." + topic, "must name a table (no slashes), got \"" + name + "\"");
      }
    }
    kafka.topic_tables = *topic_tables;
  }
  FLOE_RETURN_IF_ERROR(ReadTopicRoutes(section, &kafka));
  if (properties) {
    static const std::set<std::string> kManaged = {"bootstrap.servers",  "group.id",
                                                   "enable.auto.commit", "enable.auto.offset.store",
                                                   "auto.offset.reset",  "enable.partition.eof"};
    for (const auto& [name, value] : *properties) {
      if (kManaged.count(name)) {
        return section.Error(
            "kafka." + name,
            "is managed by floe (positions come from the ledger and the table; the bootstrap "
            "servers from uri)");
      }
    }
    kafka.properties = *properties;
  }
  if (kafka.aws_msk_iam) {
    for (const auto& [name, value] : kafka.properties) {
      if (name == "sasl.mechanism" || name == "sasl.mechanisms") {
        if (value != "OAUTHBEARER") {
          return section.Error("kafka." + name,
                               "must be OAUTHBEARER (or unset) with kafka_auth = \"aws_msk_iam\"");
        }
      }
      if (name.rfind("sasl.oauthbearer.", 0) == 0 || name == "enable.sasl.oauthbearer.unsecure.jwt") {
        return section.Error("kafka." + name,
                             "conflicts with kafka_auth = \"aws_msk_iam\" (floe makes the token)");
      }
    }
  }
  return Status::OK();
}

// The [source] keys of discovery = "kinesis" (uri, table, region, endpoint,
// starting_position, kinesis_metadata).
Status ReadKinesisSourceKeys(SectionReader& section, const std::optional<std::string>& uri,
                             const std::optional<std::string>& table, SourceConfig* source) {
  KinesisSourceConfig& kinesis = source->kinesis;
  FLOE_RETURN_IF_ERROR(ReadStreamSourceKeys(section, "kinesis_metadata", "starting_position",
                                            {"TRIM_HORIZON", "LATEST"}, &source->stream));
  FLOE_ASSIGN_OR_RETURN(auto region, section.String("region"));
  FLOE_ASSIGN_OR_RETURN(auto endpoint, section.String("endpoint"));
  const std::string expected =
      "discovery \"kinesis\" needs the stream as kinesis://<stream name> or its ARN "
      "(arn:aws:kinesis:<region>:<account>:stream/<name>)";
  if (!uri) return section.Error("uri", expected);
  std::string name;
  if (uri->rfind("kinesis://", 0) == 0) {
    name = uri->substr(10);
    while (!name.empty() && name.back() == '/') name.pop_back();
  } else if (uri->rfind("arn:", 0) == 0) {
    // arn:<partition>:kinesis:<region>:<account>:stream/<name>
    const size_t at = uri->find(":stream/");
    std::vector<std::string> parts;
    for (size_t start = 0; parts.size() < 5;) {
      const size_t colon = uri->find(':', start);
      if (colon == std::string::npos) break;
      parts.push_back(uri->substr(start, colon - start));
      start = colon + 1;
    }
    if (at == std::string::npos || parts.size() < 5 || parts[2] != "kinesis" || parts[3].empty()) {
      return section.Error("uri", expected + ", got \"" + *uri + "\"");
    }
    kinesis.stream_arn = *uri;
    kinesis.region = parts[3];
    name = uri->substr(at + 8);
  } else {
    return section.Error("uri", expected + ", got \"" + *uri + "\"");
  }
  // Kinesis stream names: 1-128 of [a-zA-Z0-9_.-].
  const bool valid_name = !name.empty() && name.size() <= 128 &&
                          name.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789_.-") == std::string::npos;
  if (!valid_name) {
    return section.Error(
        "uri", "\"" + name + "\" is not a Kinesis stream name (1-128 letters, digits, '_', '.', '-')");
  }
  kinesis.stream = name;
  if (table) {
    if (table->empty() || table->find_first_of("/\\") != std::string::npos) {
      return section.Error("table", "must name a table (no slashes), got \"" + *table + "\"");
    }
    kinesis.table = *table;
  } else {
    kinesis.table = name;
  }
  if (region) {
    if (region->empty()) return section.Error("region", "is empty");
    if (!kinesis.stream_arn.empty() && *region != kinesis.region) {
      return section.Error("region", "is \"" + *region + "\", but the stream ARN in uri names region \"" +
                                         kinesis.region + "\"");
    }
    kinesis.region = *region;
  }
  if (endpoint) {
    if (endpoint->rfind("http://", 0) != 0 && endpoint->rfind("https://", 0) != 0) {
      return section.Error("endpoint", "expected http(s)://host[:port], got \"" + *endpoint + "\"");
    }
    kinesis.endpoint = *endpoint;
  }
  source->uri = *uri;
  return Status::OK();
}

Status ReadSource(const ParseContext& context, const toml::table* table, SourceConfig* source,
                  ChangesChoice* choice) {
  SectionReader section(context, "[source]", table);
  FLOE_ASSIGN_OR_RETURN(auto format,
                        section.Choice("format", {"cda", "parquet", "jsonl", "json", "csv", "avro"}));
  FLOE_ASSIGN_OR_RETURN(auto discovery,
                        section.Choice("discovery", {"cda", "prefix", "kafka", "kinesis", "table_changes"}));
  const bool table_changes = discovery && *discovery == 4;
  const bool kafka = discovery && *discovery == 2;
  const bool kinesis = discovery && *discovery == 3;
  const bool stream = kafka || kinesis;
  FLOE_ASSIGN_OR_RETURN(auto changes,
                        section.Choice("changes", {"cda", "columns", "append", "dms", "debezium"}));
  FLOE_ASSIGN_OR_RETURN(auto uri, section.String("uri"));
  FLOE_ASSIGN_OR_RETURN(auto include, section.StringArray("include"));
  FLOE_ASSIGN_OR_RETURN(auto exclude, section.StringArray("exclude"));
  FLOE_ASSIGN_OR_RETURN(auto reload_on_reset, section.Bool("reload_on_reset"));
  FLOE_ASSIGN_OR_RETURN(auto source_table, section.String("table"));
  FLOE_ASSIGN_OR_RETURN(auto settle, section.Duration("settle"));
  FLOE_ASSIGN_OR_RETURN(auto hive_partitioning, section.Bool("hive_partitioning"));
  FLOE_ASSIGN_OR_RETURN(auto partition_column_types, section.StringMap("partition_column_types"));
  FLOE_ASSIGN_OR_RETURN(auto table_from_path, section.String("table_from_path"));
  FLOE_ASSIGN_OR_RETURN(auto full_load_files, section.StringArray("full_load_files"));
  FLOE_ASSIGN_OR_RETURN(auto allow_missing_uri, section.Bool("allow_missing_uri"));
  FLOE_ASSIGN_OR_RETURN(auto follow_links_outside_uri, section.Bool("follow_links_outside_uri"));
  FLOE_ASSIGN_OR_RETURN(auto schema_sample_files, section.Integer("schema_sample_files", 1, 100'000));
  FLOE_ASSIGN_OR_RETURN(config_internal::NotificationKeys notification_keys,
                        config_internal::ReadNotificationKeys(section));
  FLOE_ASSIGN_OR_RETURN(auto source_tables, section.StringArray("tables"));
  FLOE_ASSIGN_OR_RETURN(auto commits_per_unit, section.Integer("commits_per_unit", 1, 100'000));
  // The keys only file discoveries (cda, prefix) take; a Kinesis source
  // takes `table` too (the stream's table).
  const std::pair<const char*, bool> file_keys[] = {
      {"include", include.has_value()},
      {"exclude", exclude.has_value()},
      {"reload_on_reset", reload_on_reset.has_value()},
      {"table", !kinesis && source_table.has_value()},
      {"settle", settle.has_value()},
      {"hive_partitioning", hive_partitioning.has_value()},
      {"partition_column_types", partition_column_types.has_value()},
      {"table_from_path", table_from_path.has_value()},
      {"full_load_files", full_load_files.has_value()},
      {"allow_missing_uri", allow_missing_uri.has_value()},
      {"follow_links_outside_uri", follow_links_outside_uri.has_value()},
      {"schema_sample_files", schema_sample_files.has_value()}};
  if (table_changes) {
    // A floe table's change feed: the tables name everything; no file,
    // format or change-convention key applies.
    FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
    const std::pair<const char*, bool> other_keys[] = {
        {"format", format.has_value()},
        {"changes", changes.has_value()},
        {"uri", uri.has_value()},
        {notification_keys.FirstGiven(), notification_keys.FirstGiven() != nullptr}};
    std::vector<std::pair<const char*, bool>> keys(std::begin(other_keys), std::end(other_keys));
    keys.insert(keys.end(), std::begin(file_keys), std::end(file_keys));
    for (const auto& [key, present] : keys) {
      if (present) {
        return section.Error(key,
                             "does not apply to discovery \"table_changes\" (it reads the change feed of the "
                             "floe tables in `tables`, from the pipeline's [catalog])");
      }
    }
    if (!source_tables || source_tables->empty()) {
      return section.Error("tables",
                           "discovery \"table_changes\" needs the source tables, as "
                           "[\"namespace.table\", ...] in the pipeline's [catalog]");
    }
    std::set<std::string> names;
    for (const std::string& name : *source_tables) {
      const size_t dot = name.rfind('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == name.size() ||
          name.find('/') != std::string::npos) {
        return section.Error("tables", "expected \"namespace.table\" (no slashes), got \"" + name + "\"");
      }
      // The target table is named by the source table's name alone.
      if (!names.insert(AsciiLower(name.substr(dot + 1))).second) {
        return section.Error("tables", "two source tables are named \"" + name.substr(dot + 1) +
                                           "\": their changes would go to one target table");
      }
    }
    source->discovery = DiscoveryKind::kTableChanges;
    source->changes = ChangeKind::kTableChanges;
    choice->changes = ChangeKind::kTableChanges;
    source->table_changes.tables = *source_tables;
    // What logs and `floe status` name as the source.
    source->uri = "table-changes://";
    for (size_t i = 0; i < source_tables->size(); ++i) source->uri += (i ? "," : "") + (*source_tables)[i];
    if (commits_per_unit) source->table_changes.commits_per_unit = *commits_per_unit;
    return Status::OK();
  }
  if (source_tables) return section.Error("tables", "applies to discovery \"table_changes\"");
  if (commits_per_unit) return section.Error("commits_per_unit", "applies to discovery \"table_changes\"");
  static constexpr SourceFormat kFormats[] = {SourceFormat::kParquet,   SourceFormat::kParquet,
                                              SourceFormat::kJsonLines, SourceFormat::kJson,
                                              SourceFormat::kCsv,       SourceFormat::kAvro};
  source->format = format ? kFormats[*format] : SourceFormat::kParquet;
  if (stream) {
    if (!format) source->format = SourceFormat::kJson;  // record values are JSON
    // Record values decode by inference unless told otherwise: a Debezium
    // envelope needs its structs and numbers, not one string per member.
    source->text.infer_column_types = true;
  }
  FLOE_RETURN_IF_ERROR(ReadTextFormatKeys(section, source->format, &source->text,
                                          stream ? &source->stream.on_bad_record : nullptr));
  if (stream) {
    const char* kind = kafka ? "kafka" : "kinesis";
    if (kafka) {
      FLOE_RETURN_IF_ERROR(ReadKafkaSourceKeys(section, source));
    } else {
      FLOE_RETURN_IF_ERROR(ReadKinesisSourceKeys(section, uri, source_table, source));
    }
    FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
    if (const char* key = notification_keys.FirstGiven(); key != nullptr) {
      return section.Error(key,
                           "applies to files (discovery \"cda\" or \"prefix\"): notifications announce new "
                           "files; discovery \"kafka\" reads a stream, which needs none");
    }
    for (const auto& [key, present] : file_keys) {
      if (present) {
        return section.Error(
            key, std::string("applies to files (discovery \"cda\" or \"prefix\"), not to discovery \"") +
                     kind + "\"" +
                     std::string(std::string_view(key) == "table"
                                     ? "; topics name their tables (topic_tables overrides)"
                                     : ""));
      }
    }
    source->discovery = kafka ? DiscoveryKind::kKafka : DiscoveryKind::kKinesis;
    const bool avro_values = format && source->format == SourceFormat::kAvro;
    if (format && !avro_values && source->format != SourceFormat::kJson &&
        source->format != SourceFormat::kJsonLines) {
      return section.Error("format",
                           std::string("discovery \"") + kind +
                               "\" reads JSON record values (format = \"json\") or Confluent Avro ones "
                               "(format = \"avro\"), not " +
                               SourceFormatName(source->format));
    }
    if (avro_values != !source->stream.schema_registry_url.empty()) {
      return section.Error(avro_values ? "format" : "schema_registry",
                           avro_values ? "\"avro\" records carry their writer schema's registry id: set "
                                         "schema_registry = \"http://host:8081\""
                                       : "applies to format = \"avro\" (Confluent Avro record values)");
    }
    source->format = avro_values ? SourceFormat::kAvro : SourceFormat::kJson;
    if (changes) {
      const ChangeKind change_kind = static_cast<ChangeKind>(*changes);
      if (change_kind != ChangeKind::kDebezium && change_kind != ChangeKind::kAppend &&
          change_kind != ChangeKind::kColumns) {
        return section.Error("changes", std::string("\"") + ChangeKindName(change_kind) + "\" reads files; " +
                                            (kafka ? "Kafka" : "Kinesis") +
                                            " records take \"debezium\", \"append\" or \"columns\"");
      }
      choice->changes = change_kind;
      source->changes = change_kind;
    }
    if (kinesis) return Status::OK();
    if (!uri || uri->rfind("kafka://", 0) != 0 || uri->size() == 8) {
      return section.Error(
          "uri", "discovery \"kafka\" needs the bootstrap servers as kafka://host:port[,host:port]" +
                     std::string(uri ? ", got \"" + *uri + "\"" : ""));
    }
    source->uri = *uri;
    source->kafka.bootstrap_servers = uri->substr(8);
    while (!source->kafka.bootstrap_servers.empty() && source->kafka.bootstrap_servers.back() == '/') {
      source->kafka.bootstrap_servers.pop_back();
    }
    return Status::OK();
  }
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());

  // format = "cda" is the CDA preset; otherwise the axes are chosen one by
  // one. changes = "dms" reads a DMS S3 target, never a CDA export.
  const bool dms = changes && static_cast<ChangeKind>(*changes) == ChangeKind::kDms;
  const bool debezium = changes && static_cast<ChangeKind>(*changes) == ChangeKind::kDebezium;
  const bool cda_preset = (!format && !dms && !debezium) || (format && *format == 0);
  if (discovery) {
    source->discovery = *discovery == 0 ? DiscoveryKind::kCda : DiscoveryKind::kPrefix;
    if (format && *format == 0 && source->discovery != DiscoveryKind::kCda) {
      return section.Error("discovery",
                           "format = \"cda\" reads a CDA export (discovery \"cda\"); for Parquet files "
                           "under a prefix set format = \"parquet\"");
    }
    if (format && *format > 1 && source->discovery == DiscoveryKind::kCda) {
      return section.Error("discovery",
                           std::string("\"cda\" reads a CDA export, which holds Parquet files, not ") +
                               SourceFormatName(source->format) + " files; use discovery = \"prefix\"");
    }
    if ((dms || debezium) && source->discovery == DiscoveryKind::kCda) {
      return section.Error("discovery", std::string("\"cda\" reads a CDA export, not ") +
                                            (dms ? "AWS DMS files" : "Debezium change events") +
                                            " (changes = \"" + (dms ? "dms" : "debezium") +
                                            "\"); use discovery = \"prefix\"");
    }
  } else {
    source->discovery = cda_preset ? DiscoveryKind::kCda : DiscoveryKind::kPrefix;
  }
  if (changes) {
    choice->changes = static_cast<ChangeKind>(*changes);
    source->changes = *choice->changes;
  }
  if (!uri || uri->empty())
    return section.Error("uri", "is required (a local directory or s3://bucket/prefix)");
  source->uri = ResolveLocation(context, *uri);
  if (source->uri.rfind("file://", 0) == 0) source->uri = source->uri.substr(7);
  if (include) source->include = *include;
  if (exclude) source->exclude = *exclude;
  bool cda = source->discovery == DiscoveryKind::kCda;
  // Keys of one discovery kind; a file format names the prefix discovery.
  auto only_for = [&](const char* key, const char* format_name) {
    const std::string formats =
        std::string_view(format_name) == "cda"
            ? "format = \"cda\""
            : "file formats under a prefix (format = \"parquet\", \"jsonl\", \"json\", "
              "\"csv\" or \"avro\")";
    return section.Error(key,
                         "applies only to " + formats + " (discovery \"" + (cda ? "prefix" : "cda") + "\")");
  };
  if (reload_on_reset) {
    if (!cda) return only_for("reload_on_reset", "cda");
    source->reload_on_reset = *reload_on_reset;
  }
  if (source_table) {
    if (cda) return only_for("table", "parquet");
    source->table = *source_table;
  }
  if (settle) {
    if (cda) return only_for("settle", "parquet");
    source->settle_ms = *settle;
  }
  if (hive_partitioning) {
    if (cda) return only_for("hive_partitioning", "parquet");
    source->hive_partitioning = *hive_partitioning;
  }
  if (partition_column_types) {
    if (cda) return only_for("partition_column_types", "parquet");
    static const std::set<std::string> kPartitionTypes = {"string", "int",     "long",
                                                          "date",   "boolean", "double"};
    for (const auto& [column, type] : *partition_column_types) {
      if (!kPartitionTypes.count(type)) {
        return section.Error("partition_column_types." + column,
                             "expected \"string\", \"int\", \"long\", \"date\", \"boolean\" or "
                             "\"double\", got \"" +
                                 type + "\"");
      }
    }
    source->partition_column_types = *partition_column_types;
  }
  if (full_load_files) {
    if (cda) return only_for("full_load_files", "parquet");
    source->full_load_files = *full_load_files;
  } else if (dms) {
    source->full_load_files = {"LOAD*"};  // DMS names full-load files LOAD00000001.parquet, ...
  }
  if (allow_missing_uri) source->allow_missing_uri = *allow_missing_uri;
  if (schema_sample_files) source->schema_sample_files = *schema_sample_files;
  if (follow_links_outside_uri) {
    if (cda) return only_for("follow_links_outside_uri", "parquet");
    source->follow_links_outside_uri = *follow_links_outside_uri;
  }
  if (table_from_path) {
    if (cda) return only_for("table_from_path", "parquet");
    if (source_table) return section.Error("table_from_path", "names the tables itself; drop table");
    if (table_from_path->find("{table}") == std::string::npos) {
      return section.Error("table_from_path",
                           "needs a {table} segment naming the source table, like \"{schema}/{table}/**\", "
                           "got \"" +
                               *table_from_path + "\"");
    }
    source->table_from_path = *table_from_path;
  } else if (dms && !source_table) {
    source->table_from_path = "{schema}/{table}/**";  // DMS writes <schema>/<table>/ under its bucket folder
  }
  FLOE_RETURN_IF_ERROR(config_internal::ApplyNotificationKeys(section, notification_keys, source));
  if (!cda && source->table.empty() && source->table_from_path.empty()) {
    // The last path component of the uri names the table.
    std::string trimmed = source->uri;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    size_t slash = trimmed.find_last_of('/');
    source->table = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
    if (source->table.empty() || source->table.find(':') != std::string::npos) {
      return section.Error("table", "cannot be derived from uri \"" + source->uri + "\"; set it");
    }
  }
  return Status::OK();
}

// The REST settings of [catalog] (type = "rest"); any of them with another
// type is an error, so a half-edited config cannot silently ignore them.
Status ReadRestCatalogKeys(SectionReader& section, catalog::CatalogOptions* catalog) {
  catalog::rest::RestCatalogOptions& rest = catalog->rest;
  std::optional<std::string> signing_name;
  const std::pair<const char*, std::string*> strings[] = {
      {"prefix", &rest.prefix},         {"token", &rest.token},
      {"credential", &rest.credential}, {"oauth2_server_uri", &rest.oauth2_server_uri},
      {"scope", &rest.scope},           {"signing_region", &rest.signing_region}};
  std::vector<std::string> present;
  for (const auto& [key, target] : strings) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.String(key));
    if (!value) continue;
    *target = *value;
    present.push_back(key);
  }
  FLOE_ASSIGN_OR_RETURN(signing_name, section.String("signing_name"));
  if (signing_name) present.push_back("signing_name");
  FLOE_ASSIGN_OR_RETURN(auto sigv4, section.Bool("sigv4_enabled"));
  if (sigv4) {
    rest.sigv4_enabled = *sigv4;
    present.push_back("sigv4_enabled");
  }
  FLOE_ASSIGN_OR_RETURN(auto headers, section.StringMap("headers"));
  if (headers) {
    rest.headers = *headers;
    present.push_back("headers");
  }
  if (catalog->type != "rest" && !present.empty()) {
    return section.Error(present.front(), "is a REST catalog setting; it needs type = \"rest\"");
  }
  if (catalog->type != "rest") return Status::OK();
  if (rest.scope.empty()) rest.scope = "catalog";
  if (!rest.token.empty() && !rest.credential.empty()) {
    return section.Error("credential", "set either token or credential, not both");
  }
  if (!rest.oauth2_server_uri.empty() && rest.credential.empty()) {
    return section.Error("oauth2_server_uri", "needs credential (client_id:client_secret)");
  }
  if (!rest.sigv4_enabled && (!rest.signing_region.empty() || signing_name)) {
    return section.Error(rest.signing_region.empty() ? "signing_name" : "signing_region",
                         "only applies with sigv4_enabled = true");
  }
  if (signing_name && !signing_name->empty()) rest.signing_name = *signing_name;
  for (const auto& [name, value] : rest.headers) {
    if (name.empty() || name.find_first_of(": \r\n") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return section.Error("headers." + name, "is not a valid HTTP header name and value");
    }
  }
  return Status::OK();
}

// The Glue Data Catalog settings of [catalog] (type = "glue"); like the REST
// keys, any of them with another type is an error.
Status ReadGlueCatalogKeys(SectionReader& section, catalog::CatalogOptions* catalog) {
  catalog::glue::GlueCatalogOptions& glue = catalog->glue;
  FLOE_ASSIGN_OR_RETURN(auto catalog_id, section.String("catalog_id"));
  FLOE_ASSIGN_OR_RETURN(auto account_id, section.String("account_id"));
  FLOE_ASSIGN_OR_RETURN(auto region, section.String("region"));
  FLOE_ASSIGN_OR_RETURN(auto endpoint, section.String("endpoint"));
  FLOE_ASSIGN_OR_RETURN(auto skip_archive, section.Bool("skip_archive"));
  const std::pair<const char*, bool> present[] = {{"catalog_id", catalog_id.has_value()},
                                                  {"account_id", account_id.has_value()},
                                                  {"region", region.has_value()},
                                                  {"endpoint", endpoint.has_value()},
                                                  {"skip_archive", skip_archive.has_value()}};
  if (catalog->type != "glue") {
    for (const auto& [key, given] : present) {
      if (given) return section.Error(key, "is a Glue catalog setting; it needs type = \"glue\"");
    }
    return Status::OK();
  }
  if (catalog_id && account_id && *catalog_id != *account_id) {
    return section.Error("account_id",
                         "names another account than catalog_id (\"" + *catalog_id + "\"); set one");
  }
  glue.catalog_id = catalog_id ? *catalog_id : account_id.value_or("");
  if (!glue.catalog_id.empty() && glue.catalog_id.find_first_of("/?#@ ") != std::string::npos) {
    return section.Error(catalog_id ? "catalog_id" : "account_id",
                         "must be an AWS account id, got \"" + glue.catalog_id + "\"");
  }
  if (region) glue.region = *region;
  if (endpoint) {
    if (endpoint->rfind("http://", 0) != 0 && endpoint->rfind("https://", 0) != 0) {
      return section.Error("endpoint", "expected http(s)://host[:port], got \"" + *endpoint + "\"");
    }
    glue.endpoint = *endpoint;
  }
  if (skip_archive) glue.skip_archive = *skip_archive;
  return Status::OK();
}

Status ReadCatalog(const ParseContext& context, const toml::table* table, catalog::CatalogOptions* catalog) {
  SectionReader section(context, "[catalog]", table);
  FLOE_ASSIGN_OR_RETURN(auto type, section.Choice("type", {"sql", "filesystem", "rest", "glue"}));
  FLOE_ASSIGN_OR_RETURN(auto uri, section.String("uri"));
  FLOE_ASSIGN_OR_RETURN(auto warehouse, section.String("warehouse"));
  FLOE_ASSIGN_OR_RETURN(auto name, section.String("name"));
  static const char* const kTypes[] = {"sql", "filesystem", "rest", "glue"};
  catalog->type = kTypes[type.value_or(0)];
  FLOE_RETURN_IF_ERROR(ReadRestCatalogKeys(section, catalog));
  FLOE_RETURN_IF_ERROR(ReadGlueCatalogKeys(section, catalog));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());

  if (name) {
    if (name->empty()) return section.Error("name", "must not be empty");
    catalog->name = *name;
  }
  if (catalog->type == "glue") {
    // Glue holds the metadata pointers; the warehouse places new tables of
    // databases without a LocationUri (optional).
    if (uri)
      return section.Error("uri", "does not apply to type = \"glue\" (use catalog_id, region, endpoint)");
    catalog->uri = "glue://" + catalog->glue.catalog_id;
    if (warehouse && !warehouse->empty()) {
      catalog->warehouse = ResolveLocation(context, *warehouse);
      if (catalog->warehouse.rfind("file://", 0) == 0) catalog->warehouse = catalog->warehouse.substr(7);
    }
    return Status::OK();
  }
  if (catalog->type == "rest") {
    // The REST service owns table locations; warehouse is whatever it expects (a name, an account id, a
    // location).
    if (warehouse) catalog->warehouse = *warehouse;
    if (!uri || uri->empty()) {
      return section.Error("uri",
                           "is required for type = \"rest\" (https://host[/path] of the catalog service)");
    }
    std::string http = uri->rfind("rest+", 0) == 0 ? uri->substr(5) : *uri;
    if (http.rfind("http://", 0) != 0 && http.rfind("https://", 0) != 0) {
      return section.Error("uri", "expected http(s)://host[:port][/path] for type = \"rest\", got \"" +
                                      RedactUri(*uri) + "\"");
    }
    catalog->uri = "rest+" + http;
    return Status::OK();
  }
  if (!warehouse || warehouse->empty()) {
    return section.Error("warehouse", "is required (a local directory or s3://bucket/prefix)");
  }
  catalog->warehouse = ResolveLocation(context, *warehouse);
  if (catalog->warehouse.rfind("file://", 0) == 0) catalog->warehouse = catalog->warehouse.substr(7);

  if (catalog->type == "filesystem") {
    if (HasScheme(catalog->warehouse)) {
      return section.Error("warehouse",
                           "type = \"filesystem\" needs a local directory (a rename is not atomic "
                           "on object stores; use type = \"sql\"), got \"" +
                               catalog->warehouse + "\"");
    }
    if (!uri || uri->empty()) {
      catalog->uri = "file://" + catalog->warehouse;
    } else {
      if (uri->rfind("file://", 0) != 0) {
        return section.Error("uri",
                             "type = \"filesystem\" takes a file:// uri, got \"" + RedactUri(*uri) + "\"");
      }
      catalog->uri = ResolveLocation(context, *uri);
      if (catalog->uri != "file://" + catalog->warehouse) {
        return section.Error("uri", "must name the warehouse directory \"" + catalog->warehouse +
                                        "\" for type = \"filesystem\", got \"" + catalog->uri + "\"");
      }
    }
    return Status::OK();
  }
  if (!uri || uri->empty()) {
    return section.Error("uri",
                         "is required for type = \"sql\" (sqlite:///path/catalog.db or postgresql://...)");
  }
  if (uri->rfind("sqlite://", 0) == 0) {
    std::string db_path = uri->substr(9);
    if (db_path.empty()) return section.Error("uri", "sqlite:// needs a database path");
    catalog->uri = "sqlite://" + ResolvePath(context, db_path);
  } else if (uri->rfind("postgresql://", 0) == 0 || uri->rfind("postgres://", 0) == 0) {
    catalog->uri = *uri;
  } else if (uri->rfind("file://", 0) == 0) {
    return section.Error("uri", "a file:// uri is a filesystem catalog: set type = \"filesystem\"");
  } else {
    return section.Error("uri", "expected sqlite:///path/catalog.db or postgresql://user@host/db, got \"" +
                                    RedactUri(*uri) + "\"");
  }
  return Status::OK();
}

Status ReadTarget(const ParseContext& context, const toml::table* table, TargetConfig* target) {
  SectionReader section(context, "[target]", table);
  FLOE_ASSIGN_OR_RETURN(auto ns, section.String("namespace"));
  FLOE_ASSIGN_OR_RETURN(auto format_version,
                        section.Integer("format_version", std::numeric_limits<int64_t>::min(),
                                        std::numeric_limits<int64_t>::max()));
  FLOE_ASSIGN_OR_RETURN(auto file_size, section.Size("target_file_size"));
  FLOE_ASSIGN_OR_RETURN(auto codec, section.String("codec"));
  FLOE_ASSIGN_OR_RETURN(auto codec_level, section.Integer("codec_level", -1000, 1000));
  FLOE_ASSIGN_OR_RETURN(auto partition_by, section.StringArray("partition_by"));
  FLOE_ASSIGN_OR_RETURN(auto properties, section.StringMap("properties"));
  FLOE_ASSIGN_OR_RETURN(auto change_feed, section.Bool("change_feed"));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());

  if (change_feed) target->change_feed = *change_feed;
  if (ns) {
    bool ok = !ns->empty() && ns->front() != '.' && ns->back() != '.' && ns->find("..") == std::string::npos;
    if (!ok)
      return section.Error("namespace", "expected a name like \"cda\" or \"lake.cda\", got \"" + *ns + "\"");
    target->ns = *ns;
  }
  if (format_version) {
    if (*format_version != 2 && *format_version != 3) {
      return section.Error("format_version",
                           "expected 2 (position delete files) or 3 (deletion vectors), got " +
                               std::to_string(*format_version));
    }
    target->format_version = static_cast<int>(*format_version);
  }
  if (file_size) {
    if (*file_size < (int64_t{1} << 20)) return section.Error("target_file_size", "must be at least 1MiB");
    target->target_file_size_bytes = *file_size;
  }
  if (codec) {
    std::string name = AsciiLower(*codec);
    if (name == "uncompressed") name = "none";
    static const std::set<std::string> kCodecs = {"snappy", "zstd", "gzip", "brotli", "lz4", "none"};
    if (!kCodecs.count(name)) {
      return section.Error("codec",
                           "expected snappy, zstd, gzip, brotli, lz4 or none, got \"" + *codec + "\"");
    }
    target->codec = name;
  }
  if (codec_level) {
    int64_t low = 0, high = -1;
    if (target->codec == "zstd") low = 1, high = 22;
    if (target->codec == "gzip") low = 1, high = 9;
    if (target->codec == "brotli") low = 0, high = 11;
    if (high < 0) return section.Error("codec_level", "codec \"" + target->codec + "\" has no levels");
    if (*codec_level < low || *codec_level > high) {
      return section.Error("codec_level", "codec \"" + target->codec + "\" takes levels " +
                                              std::to_string(low) + " to " + std::to_string(high) + ", got " +
                                              std::to_string(*codec_level));
    }
    target->codec_level = static_cast<int>(*codec_level);
  }
  if (partition_by) {
    FLOE_RETURN_IF_ERROR(ValidatePartitionBy(context, "[target]", *partition_by));
    target->partition_by = *partition_by;
  }
  if (properties) target->table_properties = *properties;
  return Status::OK();
}

// [merge], with defaults from the change convention: "cda" (and "append" of a
// CDA export) the CDA columns and codes; "dms" DMS's (Op I/U/D, full loads
// without Op are upserts, ordering by AR_H_CHANGE_SEQ with full-load rows
// oldest; no keys: DMS files do not say which columns are the primary key);
// otherwise none. Settles source->changes when [source] changes was not
// given: [merge] mode decides (cda exports merge unless mode = "append";
// prefixes append unless mode = "merge"); when both are given they must agree.
Status ReadMerge(const ParseContext& context, const toml::table* table, const ChangesChoice& choice,
                 SourceConfig* source, MergeConfig* merge) {
  const bool dms = choice.changes == ChangeKind::kDms;
  const bool debezium = choice.changes == ChangeKind::kDebezium;
  const bool feed = choice.changes == ChangeKind::kTableChanges;
  const bool cda_columns = !dms && !debezium && !feed &&
                           (source->discovery == DiscoveryKind::kCda ? choice.changes != ChangeKind::kColumns
                                                                     : choice.changes == ChangeKind::kCda);
  // The kind of an order_by column given without order_kind.
  OrderingKind default_kind = OrderingKind::kPaddedHex;
  if (dms) {
    merge->keys.clear();
    merge->order_by = {{"AR_H_CHANGE_SEQ", OrderingKind::kDigits}};
    merge->unordered_rows_oldest = true;
    merge->operation_column = "Op";
    merge->insert_values = {std::string("I")};
    merge->update_values = {std::string("U")};
    merge->delete_values = {std::string("D")};
    merge->ignore_values.clear();
    merge->missing_operation = MissingOperation::kUpsert;
    default_kind = OrderingKind::kTimestampText;  // DMS's TimestampColumnName column
  } else if (debezium) {
    // Debezium's codes; the commit time orders (set order_by to the log
    // position where the connector has one: source.lsn for PostgreSQL).
    merge->keys.clear();
    merge->order_by = {{"source.ts_ms", OrderingKind::kNumber}};
    // From Kafka, the offset breaks ties of one millisecond (a key's changes
    // share a partition, where offsets grow with every record). Kinesis
    // sequence numbers (up to 129 digits) do not fit an ordering value: the
    // arrival time breaks ties instead, and within a batch the record order.
    if (source->discovery == DiscoveryKind::kKafka)
      merge->order_by.push_back({"kafka.offset", OrderingKind::kNumber});
    if (source->discovery == DiscoveryKind::kKinesis)
      merge->order_by.push_back({"kinesis.arrival", OrderingKind::kTimestamp});
    merge->unordered_rows_oldest = false;
    merge->operation_column = "op";
    merge->insert_values = {std::string("c"), std::string("r")};
    merge->update_values = {std::string("u")};
    merge->delete_values = {std::string("d")};
    merge->ignore_values = {std::string("t"), std::string("m")};
    merge->missing_operation = MissingOperation::kQuarantine;
    default_kind = OrderingKind::kNumber;
  } else if (feed) {
    // A change feed's rows (changes/table_changes.h): no keys means the
    // source table's (its identifier fields or recorded [merge] keys).
    merge->keys.clear();
    merge->order_by = {{kFeedSequenceColumn, OrderingKind::kNumber},
                       {kFeedOrdinalColumn, OrderingKind::kNumber}};
    merge->unordered_rows_oldest = false;
    merge->operation_column = kFeedChangeTypeColumn;
    merge->insert_values = {std::string("insert")};
    merge->update_values = {std::string("update_postimage")};
    merge->delete_values = {std::string("delete")};
    merge->ignore_values = {std::string("update_preimage")};
    merge->missing_operation = MissingOperation::kQuarantine;
    merge->keys_from_source_table = true;
    default_kind = OrderingKind::kNumber;
  } else if (!cda_columns) {
    // Plain files carry no CDA columns: append unless asked to merge.
    merge->mode = WriteMode::kAppend;
    merge->keys.clear();
    merge->order_by.clear();
    merge->operation_column.clear();
    default_kind = OrderingKind::kNumber;
  }
  if (choice.changes)
    merge->mode = *choice.changes == ChangeKind::kAppend ? WriteMode::kAppend : WriteMode::kMerge;
  SectionReader section(context, "[merge]", table);
  bool any_given = false;
  const WriteMode before = merge->mode;
  FLOE_RETURN_IF_ERROR(ReadMergeKeys(section, merge, default_kind, &any_given));
  if (choice.changes && merge->mode != before) {
    return section.Error("mode", std::string("\"") + WriteModeName(merge->mode) +
                                     "\" contradicts [source] changes = \"" +
                                     ChangeKindName(*choice.changes) +
                                     "\" (changes \"append\" appends; \"cda\", \"columns\", \"dms\" and "
                                     "\"debezium\" merge): drop one");
  }
  if (!choice.changes) {
    source->changes = merge->mode == WriteMode::kAppend ? ChangeKind::kAppend
                      : cda_columns                     ? ChangeKind::kCda
                                                        : ChangeKind::kColumns;
  }
  FLOE_ASSIGN_OR_RETURN(auto retention, section.Duration("tombstone_retention"));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (retention) merge->tombstone_retention_ms = *retention;
  if (debezium && merge->keys.empty()) {
    if (source->discovery == DiscoveryKind::kKafka) {
      // The Kafka record key (Debezium's key struct) names the key columns.
      merge->keys_from_record_key = true;
      source->stream.record_key_column = true;
    } else {
      return section.Error(
          "keys",
          "changes = \"debezium\" needs keys (the source table's primary key columns, read from "
          "the after image, or before for a delete; only Kafka records carry Debezium's key struct)");
    }
  }
  if (dms && merge->keys.empty()) {
    return section.Error("keys",
                         "changes = \"dms\" needs keys (the source table's primary key columns: DMS files do "
                         "not name them)");
  }
  return ValidateMerge(context, "[merge]", *merge);
}

Status ReadSchemaPolicy(const ParseContext& context, const toml::table* table, SchemaPolicyConfig* schema) {
  SectionReader section(context, "[schema]", table);
  FLOE_ASSIGN_OR_RETURN(auto policy, section.Choice("on_incompatible", kPolicyNames));
  FLOE_ASSIGN_OR_RETURN(auto bad_rows, section.Choice("on_bad_row", kBadRowNames));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (policy) schema->on_incompatible = static_cast<IncompatiblePolicy>(*policy);
  if (bad_rows) schema->on_bad_row = static_cast<BadRowPolicy>(*bad_rows);
  return Status::OK();
}

Status ReadLineage(const ParseContext& context, const toml::table* table, LineageConfig* lineage) {
  SectionReader section(context, "[lineage]", table);
  const std::pair<const char*, bool*> keys[] = {{"source_file", &lineage->source_file},
                                                {"row_number", &lineage->row_number},
                                                {"file_modified", &lineage->file_modified},
                                                {"ingested_at", &lineage->ingested_at}};
  for (const auto& [key, field] : keys) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.Bool(key));
    if (value) *field = *value;
  }
  return section.CheckNoUnknownKeys();
}

Status ReadTrigger(const ParseContext& context, const toml::table* table, TriggerConfig* trigger) {
  SectionReader section(context, "[trigger]", table);
  FLOE_ASSIGN_OR_RETURN(auto interval, section.Duration("interval"));
  FLOE_ASSIGN_OR_RETURN(auto max_files, section.Integer("max_files_per_batch", 1, 10'000'000));
  FLOE_ASSIGN_OR_RETURN(auto max_bytes, section.Size("max_bytes_per_batch"));
  FLOE_ASSIGN_OR_RETURN(auto max_records, section.Integer("max_records_per_batch", 1, 100'000'000));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (interval) trigger->interval_ms = *interval;
  if (max_files) trigger->max_files_per_batch = *max_files;
  if (max_records) trigger->max_records_per_batch = *max_records;
  if (max_bytes) {
    if (*max_bytes <= 0) return section.Error("max_bytes_per_batch", "must be greater than 0");
    trigger->max_bytes_per_batch = *max_bytes;
  }
  return Status::OK();
}

// A number in (0, 1] (integers 1 and 0 are numbers too; 0 is refused).
Result<std::optional<double>> Fraction(SectionReader& section, std::string_view key) {
  const toml::node* node = section.Find(key);
  if (!node) return std::optional<double>();
  std::optional<double> value;
  if (const auto* f = node->as_floating_point()) value = f->get();
  if (const auto* i = node->as_integer()) value = static_cast<double>(i->get());
  if (!value || !std::isfinite(*value) || *value <= 0 || *value > 1) {
    return section.Error(
        key, "expected a number greater than 0 and at most 1, got " + DescribeTomlValue(*node), node);
  }
  return value;
}

Status ReadMaintenance(const ParseContext& context, const toml::table* table,
                       MaintenanceConfig* maintenance) {
  SectionReader section(context, "[maintenance]", table);
  FLOE_ASSIGN_OR_RETURN(auto enabled, section.Bool("enabled"));
  FLOE_ASSIGN_OR_RETURN(auto compact_every, section.Integer("compact_every", 1, 1'000'000));
  FLOE_ASSIGN_OR_RETURN(auto min_input_files, section.Integer("min_input_files", 1, 1'000'000));
  FLOE_ASSIGN_OR_RETURN(auto small_file_ratio, Fraction(section, "small_file_ratio"));
  FLOE_ASSIGN_OR_RETURN(auto delete_ratio, Fraction(section, "delete_ratio_threshold"));
  FLOE_ASSIGN_OR_RETURN(auto max_delete_files, section.Integer("max_delete_files", 1, 1'000'000));
  FLOE_ASSIGN_OR_RETURN(auto sort_by, section.StringArray("sort_by"));
  FLOE_ASSIGN_OR_RETURN(auto retain_last, section.Integer("retain_last", 1, 1'000'000));
  FLOE_ASSIGN_OR_RETURN(auto max_snapshot_age, section.Duration("max_snapshot_age"));
  FLOE_ASSIGN_OR_RETURN(auto orphan_older_than, section.Duration("orphan_older_than"));
  FLOE_ASSIGN_OR_RETURN(auto rewrite_manifests, section.Bool("rewrite_manifests"));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (enabled) maintenance->enabled = *enabled;
  if (compact_every) maintenance->compact_every = *compact_every;
  if (min_input_files) maintenance->min_input_files = *min_input_files;
  if (small_file_ratio) maintenance->small_file_ratio = *small_file_ratio;
  if (delete_ratio) maintenance->delete_ratio_threshold = *delete_ratio;
  if (max_delete_files) maintenance->max_delete_files = *max_delete_files;
  if (sort_by) maintenance->sort_by = *sort_by;
  if (retain_last) maintenance->retain_last = *retain_last;
  if (max_snapshot_age) maintenance->max_snapshot_age_ms = *max_snapshot_age;
  if (orphan_older_than) {
    // Younger files may belong to a commit in progress.
    if (*orphan_older_than < int64_t{3600} * 1000) {
      return section.Error("orphan_older_than",
                           "must be at least 1h (files of a commit in progress are younger)");
    }
    maintenance->orphan_older_than_ms = *orphan_older_than;
  }
  if (rewrite_manifests) maintenance->rewrite_manifests = *rewrite_manifests;
  return Status::OK();
}

Status ReadPerformance(const ParseContext& context, const toml::table* table,
                       PerformanceConfig* performance) {
  SectionReader section(context, "[performance]", table);
  FLOE_ASSIGN_OR_RETURN(auto threads, section.Integer("threads", 0, 256));
  FLOE_ASSIGN_OR_RETURN(auto budget, section.Size("memory_budget"));
  FLOE_ASSIGN_OR_RETURN(auto parallel_tables, section.Integer("parallel_tables", 0, 256));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (threads) performance->threads = static_cast<int>(*threads);
  if (parallel_tables) performance->parallel_tables = static_cast<int>(*parallel_tables);
  if (budget) {
    // Below this the fixed costs (a row group of one file, writer buffers)
    // alone would exceed the budget.
    if (*budget < (int64_t{64} << 20)) return section.Error("memory_budget", "must be at least 64MiB");
    performance->memory_budget_bytes = *budget;
  }
  const int64_t most_tables = performance->memory_budget_bytes / PerformanceConfig::kMinTableMemoryBudget;
  if (performance->parallel_tables > most_tables) {
    return section.Error("parallel_tables", "each table applied at once needs 64MiB of memory_budget (" +
                                                std::to_string(performance->memory_budget_bytes >> 20) +
                                                "MiB): at most " + std::to_string(most_tables) +
                                                ", or raise memory_budget");
  }
  return Status::OK();
}

Status ReadObservability(const ParseContext& context, const toml::table* table, ObservabilityConfig* out) {
  SectionReader section(context, "[observability]", table);
  FLOE_ASSIGN_OR_RETURN(auto http, section.String("http"));
  FLOE_ASSIGN_OR_RETURN(auto token, section.String("token"));
  FLOE_ASSIGN_OR_RETURN(auto allowed_hosts, section.StringArray("allowed_hosts"));
  FLOE_ASSIGN_OR_RETURN(auto cors_origins, section.StringArray("cors_origins"));
  FLOE_ASSIGN_OR_RETURN(auto log_format, section.Choice("log_format", {"text", "json"}));
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (http) {
    const size_t colon = http->rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == http->size()) {
      return section.Error("http", "expected host:port (e.g. \"127.0.0.1:9464\"), got \"" + *http + "\"");
    }
    out->http = *http;
  }
  if (token) out->token = *token;
  if (allowed_hosts) out->allowed_hosts = *allowed_hosts;
  if (cors_origins) out->cors_origins = *cors_origins;
  if (log_format) out->log_format = *log_format == 1 ? LogFormat::kJson : LogFormat::kText;
  return Status::OK();
}

Status ReadS3(const ParseContext& context, const toml::table* table, s3::S3Options* options) {
  SectionReader section(context, "[s3]", table);
  const std::pair<const char*, std::string*> strings[] = {{"region", &options->region},
                                                          {"endpoint", &options->endpoint},
                                                          {"access_key_id", &options->access_key_id},
                                                          {"secret_access_key", &options->secret_access_key},
                                                          {"session_token", &options->session_token},
                                                          {"profile", &options->profile}};
  for (const auto& [key, field] : strings) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.String(key));
    if (value) *field = *value;
  }
  FLOE_ASSIGN_OR_RETURN(auto path_style, section.Bool("path_style"));
  if (path_style) options->path_style = *path_style;
  FLOE_ASSIGN_OR_RETURN(auto max_attempts, section.Integer("max_attempts", 1, 100));
  if (max_attempts) options->max_attempts = static_cast<int>(*max_attempts);
  const std::pair<const char*, int64_t*> durations[] = {{"connect_timeout", &options->connect_timeout_ms},
                                                        {"request_timeout", &options->request_timeout_ms},
                                                        {"retry_budget", &options->retry_budget_ms},
                                                        {"retry_base_delay", &options->retry_base_delay_ms},
                                                        {"retry_max_delay", &options->retry_max_delay_ms}};
  for (const auto& [key, field] : durations) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.Duration(key));
    if (value) *field = *value;
  }
  const std::pair<const char*, int*> counts[] = {{"read_parallelism", &options->read_parallelism},
                                                 {"upload_parallelism", &options->upload_parallelism}};
  for (const auto& [key, field] : counts) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.Integer(key, 1, 64));
    if (value) *field = static_cast<int>(*value);
  }
  const std::pair<const char*, int64_t*> sizes[] = {{"multipart_part_size", &options->multipart_part_size},
                                                    {"multipart_threshold", &options->multipart_threshold}};
  for (const auto& [key, field] : sizes) {
    FLOE_ASSIGN_OR_RETURN(auto value, section.Size(key));
    if (value) *field = *value;
  }
  FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
  if (options->connect_timeout_ms <= 0) return section.Error("connect_timeout", "must be greater than 0");
  if (options->request_timeout_ms <= 0) return section.Error("request_timeout", "must be greater than 0");
  if (options->multipart_part_size < (int64_t{5} << 20)) {
    return section.Error("multipart_part_size", "must be at least 5MiB (S3's smallest part)");
  }
  return Status::OK();
}

Status ReadTables(const ParseContext& context, const toml::table* tables, const PipelineConfig& globals,
                  std::map<std::string, TableOverride>* overrides) {
  if (!tables) return Status::OK();
  for (const auto& [name_key, node] : *tables) {
    std::string name(name_key.str());
    std::string label = "[tables." + name + "]";
    const auto* table = node.as_table();
    if (!table) {
      return Status::InvalidArgument(context.display_path + ": tables." + name +
                                     ": expected a section [tables." + name + "], got " +
                                     DescribeTomlValue(node));
    }
    if (name.empty())
      return Status::InvalidArgument(context.display_path + ": [tables.\"\"]: empty table name");
    SectionReader section(context, label, table);
    TableOverride out;
    MergeConfig merge = globals.merge;
    bool merge_given = false;
    const OrderingKind default_kind = globals.source.changes == ChangeKind::kDms
                                          ? OrderingKind::kTimestampText
                                      : merge.order_by.empty() ? OrderingKind::kNumber
                                                               : merge.order_by.front().kind;
    FLOE_RETURN_IF_ERROR(ReadMergeKeys(section, &merge, default_kind, &merge_given));
    FLOE_ASSIGN_OR_RETURN(auto partition_by, section.StringArray("partition_by"));
    FLOE_ASSIGN_OR_RETURN(auto policy, section.Choice("on_incompatible", kPolicyNames));
    FLOE_ASSIGN_OR_RETURN(auto bad_rows, section.Choice("on_bad_row", kBadRowNames));
    FLOE_ASSIGN_OR_RETURN(auto target_table, section.String("target_table"));
    FLOE_ASSIGN_OR_RETURN(auto properties, section.StringMap("properties"));
    FLOE_ASSIGN_OR_RETURN(auto column_names, section.StringArray("column_names"));
    if (const toml::node* transform = section.Find("transform")) {
      if (!transform->as_table()) {
        return section.Error(
            "transform",
            "expected a section [tables." + name + ".transform], got " + DescribeTomlValue(*transform),
            transform);
      }
      FLOE_RETURN_IF_ERROR(
          ReadTransform(context, transform->as_table(), "[tables." + name + ".transform]", &out.transform));
    }
    FLOE_RETURN_IF_ERROR(ReadExpectations(context, section.Find("expectations"),
                                          "tables." + name + ".expectations", &out.expectations));
    FLOE_RETURN_IF_ERROR(section.CheckNoUnknownKeys());
    if (column_names) {
      if (globals.source.format != SourceFormat::kCsv) {
        return section.Error("column_names", std::string("applies only to format = \"csv\", not \"") +
                                                 SourceFormatName(globals.source.format) + "\"");
      }
      FLOE_RETURN_IF_ERROR(CheckColumnNames(section, *column_names));
      out.column_names = *column_names;
    }
    if (merge_given) {
      FLOE_RETURN_IF_ERROR(ValidateMerge(context, label, merge));
      out.merge = std::move(merge);
    }
    if (partition_by) {
      FLOE_RETURN_IF_ERROR(ValidatePartitionBy(context, label, *partition_by));
      out.partition_by = *partition_by;
    }
    if (policy) out.on_incompatible = static_cast<IncompatiblePolicy>(*policy);
    if (bad_rows) out.on_bad_row = static_cast<BadRowPolicy>(*bad_rows);
    if (target_table) {
      if (target_table->empty() || target_table->find('.') != std::string::npos) {
        return section.Error("target_table",
                             "expected a table name without '.', got \"" + *target_table + "\"");
      }
      out.target_table = *target_table;
    }
    if (properties) out.table_properties = *properties;
    (*overrides)[name] = std::move(out);
  }
  return Status::OK();
}

Result<PipelineConfig> ParseDocument(const ParseContext& context, const toml::table& root,
                                     const std::string& config_path) {
  PipelineConfig config;
  config.config_path = config_path;

  SectionReader top(context, "", &root);
  FLOE_ASSIGN_OR_RETURN(auto name, top.String("name"));
  if (!name) return top.Error("name", "is required (the pipeline id: letters, digits, '-' and '_')");
  if (!IsValidName(*name)) {
    return top.Error("name", "expected letters, digits, '-' and '_' (at most 128), got \"" + *name + "\"");
  }
  config.name = *name;

  // Sections are consumed through `top` so that unknown ones are reported.
  auto section = [&](std::string_view key) -> Result<const toml::table*> {
    top.Find(key);
    return SectionTable(context, root, key);
  };
  FLOE_ASSIGN_OR_RETURN(const toml::table* source, section("source"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* catalog, section("catalog"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* target, section("target"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* merge, section("merge"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* schema, section("schema"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* lineage, section("lineage"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* trigger, section("trigger"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* maintenance, section("maintenance"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* state, section("state"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* s3, section("s3"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* performance, section("performance"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* observability, section("observability"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* tables, section("tables"));
  FLOE_ASSIGN_OR_RETURN(const toml::table* transform, section("transform"));
  const toml::node* expectations = top.Find("expectations");
  const toml::node* aggregates = top.Find("aggregates");
  FLOE_RETURN_IF_ERROR(top.CheckNoUnknownKeys());

  if (!source) return Status::InvalidArgument(context.display_path + ": section [source] is required");
  if (!catalog) return Status::InvalidArgument(context.display_path + ": section [catalog] is required");
  ChangesChoice changes;
  FLOE_RETURN_IF_ERROR(ReadSource(context, source, &config.source, &changes));
  if (config.source.discovery == DiscoveryKind::kKafka && config.source.kafka.group_id.empty()) {
    config.source.kafka.group_id = "floe-" + config.name;
  }
  FLOE_RETURN_IF_ERROR(ReadCatalog(context, catalog, &config.catalog));
  FLOE_RETURN_IF_ERROR(ReadTarget(context, target, &config.target));
  FLOE_RETURN_IF_ERROR(ReadMerge(context, merge, changes, &config.source, &config.merge));
  FLOE_RETURN_IF_ERROR(ReadSchemaPolicy(context, schema, &config.schema));
  FLOE_RETURN_IF_ERROR(ReadLineage(context, lineage, &config.lineage));
  FLOE_RETURN_IF_ERROR(ReadTrigger(context, trigger, &config.trigger));
  FLOE_RETURN_IF_ERROR(ReadMaintenance(context, maintenance, &config.maintenance));
  FLOE_RETURN_IF_ERROR(ReadS3(context, s3, &config.s3));
  if (config.source.kafka.aws_msk_iam) config.source.kafka.aws = s3::CredentialOptionsOf(config.s3);
  config.catalog.s3 = config.s3;
  // A change-feed source reads its tables from the pipeline's own catalog.
  if (config.source.discovery == DiscoveryKind::kTableChanges)
    config.source.table_changes.catalog = config.catalog;
  FLOE_RETURN_IF_ERROR(ReadPerformance(context, performance, &config.performance));
  FLOE_RETURN_IF_ERROR(ReadObservability(context, observability, &config.observability));

  SectionReader state_section(context, "[state]", state);
  FLOE_ASSIGN_OR_RETURN(auto state_dir, state_section.String("dir"));
  FLOE_ASSIGN_OR_RETURN(auto state_uri, state_section.String("uri"));
  FLOE_ASSIGN_OR_RETURN(auto lease_timeout, state_section.Duration("lease_timeout"));
  FLOE_RETURN_IF_ERROR(state_section.CheckNoUnknownKeys());
  if (lease_timeout) {
    if (!state_uri)
      return state_section.Error("lease_timeout", "needs uri: leases exist only in a PostgreSQL ledger");
    if (*lease_timeout < 3000 || *lease_timeout > 3'600'000)
      return state_section.Error("lease_timeout", "must be between 3s and 1h");
    config.lease_timeout_ms = *lease_timeout;
  }
  if (state_uri) {
    if (!state_uri->starts_with("postgresql://") && !state_uri->starts_with("postgres://")) {
      return state_section.Error(
          "uri", "must be a PostgreSQL URI (postgresql://user:password@host:port/db), got \"" +
                     RedactUri(*state_uri) + "\"");
    }
    config.state_uri = *state_uri;
  }
  if (state_dir) {
    if (state_dir->empty()) return state_section.Error("dir", "must not be empty");
    if (HasScheme(*state_dir)) {
      return state_section.Error(
          "dir",
          "must be a local directory (for a ledger in PostgreSQL set uri), got \"" + *state_dir + "\"");
    }
    config.state_dir = ResolvePath(context, *state_dir);
  } else if (const char* env = std::getenv("FLOE_STATE_DIR"); env && *env) {
    std::error_code ec;
    fs::path base = fs::absolute(env, ec);
    if (ec) base = env;
    config.state_dir = (base / config.name).lexically_normal().string();
  } else {
    config.state_dir = (context.base_dir / ".floe-state" / config.name).lexically_normal().string();
  }

  TransformOverride transform_keys;
  FLOE_RETURN_IF_ERROR(ReadTransform(context, transform, "[transform]", &transform_keys));
  config.transform = ApplyTransformOverride({}, transform_keys);
  FLOE_RETURN_IF_ERROR(ReadExpectations(context, expectations, "expectations", &config.expectations));
  FLOE_RETURN_IF_ERROR(ReadAggregates(context, aggregates, config.source, &config.aggregates));

  FLOE_RETURN_IF_ERROR(ReadTables(context, tables, config, &config.tables));
  for (const auto& [name, table] : config.tables) {
    if (table.column_names) config.source.text.table_column_names[name] = *table.column_names;
  }
  // Transforms keep every merge table's key and ordering columns (the
  // change convention may add its own; the ingestor checks those).
  auto check_keeps = [&](const TableSettings& settings, const std::string& label) -> Status {
    if (settings.merge.mode != WriteMode::kMerge || settings.changes == ChangeKind::kAppend)
      return Status::OK();
    std::vector<std::string> merge_columns = settings.merge.keys;
    for (const OrderColumn& column : settings.merge.order_by) merge_columns.push_back(column.name);
    Status kept = CheckTransformKeepsColumns(settings.transform, merge_columns, label);
    if (!kept.ok()) return Status::InvalidArgument(context.display_path + ": " + kept.message());
    return Status::OK();
  };
  FLOE_RETURN_IF_ERROR(check_keeps(config.ForTable(""), "[transform]"));
  for (const auto& [name, override_settings] : config.tables) {
    FLOE_RETURN_IF_ERROR(check_keeps(config.ForTable(name), "[transform] of table " + name));
  }
  // A change feed pairs each source table's updates by the key its target merges by.
  for (const std::string& qualified : config.source.table_changes.tables) {
    const std::string table = qualified.substr(qualified.rfind('.') + 1);
    config.source.table_changes.keys[table] = config.ForTable(table).merge.keys;
  }
  return config;
}

}  // namespace

int PerformanceConfig::EffectiveThreads() const {
  if (threads > 0) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(std::min(cores, 256u));
}

int PerformanceConfig::TablesInParallel(size_t tables) const {
  int64_t parallel = parallel_tables > 0 ? parallel_tables : EffectiveThreads();
  if (parallel_tables == 0) parallel = std::min(parallel, memory_budget_bytes / kMinTableMemoryBudget);
  parallel = std::min<int64_t>(parallel, static_cast<int64_t>(tables));
  return static_cast<int>(std::max<int64_t>(parallel, 1));
}

TableSettings PipelineConfig::ForTable(const std::string& source_table) const {
  TableSettings settings;
  settings.changes = source.changes;
  settings.merge = merge;
  settings.target = target;
  settings.schema = schema;
  settings.schema.sample_files = source.schema_sample_files;
  settings.lineage = lineage;
  settings.performance = performance;
  settings.target_table = AsciiLower(source_table);
  settings.transform = transform;
  settings.expectations = expectations;
  for (const AggregateConfig& aggregate : aggregates) {
    if (AsciiLower(aggregate.table) == AsciiLower(source_table)) settings.aggregates.push_back(aggregate);
  }
  auto it = tables.find(source_table);
  if (it == tables.end()) return settings;
  const TableOverride& override_settings = it->second;
  if (override_settings.merge) settings.merge = *override_settings.merge;
  if (override_settings.partition_by) settings.target.partition_by = *override_settings.partition_by;
  if (override_settings.on_incompatible) settings.schema.on_incompatible = *override_settings.on_incompatible;
  if (override_settings.on_bad_row) settings.schema.on_bad_row = *override_settings.on_bad_row;
  if (override_settings.target_table) settings.target_table = *override_settings.target_table;
  for (const auto& [key, value] : override_settings.table_properties) {
    settings.target.table_properties[key] = value;
  }
  settings.transform = ApplyTransformOverride(std::move(settings.transform), override_settings.transform);
  settings.expectations = MergeExpectations(std::move(settings.expectations), override_settings.expectations);
  return settings;
}

Result<PipelineConfig> ParsePipelineConfig(const std::string& toml_text, const std::string& path) {
  ParseContext context;
  context.display_path = path.empty() ? "pipeline config" : path;
  std::error_code ec;
  if (path.empty()) {
    context.base_dir = fs::current_path(ec);
  } else {
    context.base_dir = fs::absolute(fs::path(path), ec).parent_path();
  }
  if (ec) return Status::IOError(context.display_path + ": cannot resolve its directory: " + ec.message());

  toml::table root;
  try {
    root = toml::parse(toml_text, path);
  } catch (const toml::parse_error& error) {
    const auto& begin = error.source().begin;
    return Status::InvalidArgument(context.display_path + ":" + std::to_string(begin.line) + ":" +
                                   std::to_string(begin.column) + ": " + std::string(error.description()));
  }
  return ParseDocument(context, root, path);
}

Result<PipelineConfig> LoadPipelineConfig(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Status::NotFound(path + ": no such configuration file");
  }
  auto size = fs::file_size(path, ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  if (size > (uint64_t{16} << 20))
    return Status::InvalidArgument(path + ": larger than 16MiB; not a config file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": read failed");
  return ParsePipelineConfig(text.str(), path);
}

const char* DiscoveryKindName(DiscoveryKind kind) {
  switch (kind) {
    case DiscoveryKind::kCda: return "cda";
    case DiscoveryKind::kPrefix: return "prefix";
    case DiscoveryKind::kKafka: return "kafka";
    case DiscoveryKind::kKinesis: return "kinesis";
    case DiscoveryKind::kTableChanges: return "table_changes";
  }
  return "unknown";
}

const char* NotificationKindName(NotificationKind kind) {
  switch (kind) {
    case NotificationKind::kNone: return "none";
    case NotificationKind::kSqs: return "sqs";
    case NotificationKind::kInotify: return "inotify";
  }
  return "unknown";
}

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kCda: return "cda";
    case ChangeKind::kColumns: return "columns";
    case ChangeKind::kAppend: return "append";
    case ChangeKind::kDms: return "dms";
    case ChangeKind::kDebezium: return "debezium";
    case ChangeKind::kTableChanges: return "table_changes";
  }
  return "unknown";
}

const char* SourceFormatName(SourceFormat format) {
  switch (format) {
    case SourceFormat::kParquet: return "parquet";
    case SourceFormat::kJsonLines: return "jsonl";
    case SourceFormat::kJson: return "json";
    case SourceFormat::kCsv: return "csv";
    case SourceFormat::kAvro: return "avro";
  }
  return "unknown";
}
const char* WriteModeName(WriteMode mode) {
  return mode == WriteMode::kMerge ? "merge" : "append";
}
const char* OrderingKindName(OrderingKind kind) {
  switch (kind) {
    case OrderingKind::kPaddedHex: return "hex";
    case OrderingKind::kNumber: return "number";
    case OrderingKind::kTimestamp: return "timestamp";
    case OrderingKind::kDigits: return "digits";
    case OrderingKind::kTimestampText: return "timestamp_text";
  }
  return "unknown";
}
const char* BadRowPolicyName(BadRowPolicy policy) {
  return policy == BadRowPolicy::kTable ? "table" : "quarantine";
}

std::string OperationCodeText(const OperationCode& code) {
  if (const auto* integer = std::get_if<int64_t>(&code)) return std::to_string(*integer);
  return "\"" + std::get<std::string>(code) + "\"";
}

const char* IncompatiblePolicyName(IncompatiblePolicy policy) {
  switch (policy) {
    case IncompatiblePolicy::kRescue: return "rescue";
    case IncompatiblePolicy::kQuarantine: return "quarantine";
    case IncompatiblePolicy::kFail: return "fail";
  }
  return "unknown";
}

}  // namespace floe::ingest
