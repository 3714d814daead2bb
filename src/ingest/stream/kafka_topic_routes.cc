#include "ingest/stream/kafka_topic_routes.h"

#include <simdjson.h>

#include <algorithm>
#include <span>

#include "formats/avro/decoder.h"
#include "formats/connect/confluent_framing.h"
#include "ingest/stream/kafka_discovery.h"

namespace floe::ingest {

namespace {

constexpr char kRoutedTableSeparator = '@';

std::string JoinPath(const std::vector<std::string>& field, size_t segments) {
  std::string path;
  for (size_t i = 0; i < segments && i < field.size(); ++i) {
    if (i > 0) path += '.';
    path += field[i];
  }
  return path;
}

RouteField Unrouted(std::string why) {
  return {RouteField::Kind::kUnrouted, std::move(why)};
}

RouteField Undecodable() {
  return {RouteField::Kind::kUndecodable, {}};
}

}  // namespace

std::vector<KafkaTableStream> KafkaTableStreams(const KafkaSourceConfig& config, const std::string& topic) {
  auto route = config.topic_routes.find(topic);
  if (route == config.topic_routes.end()) return {{topic, KafkaTableOf(config, topic)}};
  std::vector<KafkaTableStream> out;
  for (const std::string& table : route->second.tables) {
    out.push_back({topic + kRoutedTableSeparator + table, table});
  }
  return out;
}

std::string KafkaTopicOfStream(const std::string& stream) {
  return stream.substr(0, stream.find(kRoutedTableSeparator));
}

std::optional<RecordRoute> KafkaRouteOf(const KafkaSourceConfig& config, const std::string& stream,
                                        const std::string& table) {
  const size_t separator = stream.find(kRoutedTableSeparator);
  if (separator == std::string::npos) return std::nullopt;
  auto route = config.topic_routes.find(stream.substr(0, separator));
  if (route == config.topic_routes.end()) return std::nullopt;
  return RecordRoute{route->second.field, table, route->second.tables, route->second.on_unrouted};
}

RouteField JsonRouteField(std::string_view value, const std::vector<std::string>& field) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(value.data(), value.size()).get(element) != simdjson::SUCCESS) return Undecodable();
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) return Undecodable();
  // The JSON converter's envelope (schemas.enable=true): the field is in its payload.
  simdjson::dom::element schema, payload;
  if (object.size() == 2 && object["schema"].get(schema) == simdjson::SUCCESS &&
      object["payload"].get(payload) == simdjson::SUCCESS) {
    // A null payload is the converter's tombstone; anything else not an object the decoder refuses.
    if (payload.is_null()) return {RouteField::Kind::kTombstone, {}};
    if (payload.get_object().get(object) != simdjson::SUCCESS) return Undecodable();
  }
  for (size_t i = 0; i < field.size(); ++i) {
    simdjson::dom::element member;
    if (object[field[i]].get(member) != simdjson::SUCCESS) {
      return Unrouted("the record has no field " + JoinPath(field, i + 1));
    }
    if (member.is_null()) return Unrouted("its field " + JoinPath(field, i + 1) + " is null");
    if (i + 1 == field.size()) {
      std::string_view text;
      if (member.get_string().get(text) != simdjson::SUCCESS) {
        return Unrouted("its field " + JoinPath(field, field.size()) + " is " + simdjson::minify(member) +
                        ", not a string");
      }
      return {RouteField::Kind::kValue, std::string(text)};
    }
    if (member.get_object().get(object) != simdjson::SUCCESS) {
      return Unrouted("its field " + JoinPath(field, i + 1) + " is not an object");
    }
  }
  return Undecodable();  // an empty path: refused by the config
}

Result<RouteField> AvroRouteField(std::string_view value, const std::vector<std::string>& field,
                                  const RegisteredSchemaLookup& lookup) {
  auto frame = connect::ParseConfluentFrame(value);
  if (!frame.ok()) return Undecodable();
  auto registered = lookup(frame->schema_id);
  if (!registered.ok()) {
    const ErrorKind kind = registered.status().kind();
    if (kind == ErrorKind::kNotFound || kind == ErrorKind::kNotSupported) return Undecodable();
    return registered.status();  // the registry, not the record: the batch is redone
  }
  if (!(*registered)->avro) return Undecodable();
  const avro::AvroNode* node = &(*registered)->avro->root();
  avro::AvroValue datum;
  const auto* bytes = reinterpret_cast<const uint8_t*>(frame->datum.data());
  avro::AvroDecoder decoder(std::span<const uint8_t>(bytes, frame->datum.size()));
  if (!decoder.Decode(*node, &datum).ok()) return Undecodable();
  const avro::AvroValue* at = &datum;
  auto unwrap = [&] {
    while (node->type == avro::AvroType::kUnion && at->kind() == avro::AvroType::kUnion &&
           at->union_branch() >= 0 && static_cast<size_t>(at->union_branch()) < node->branches.size() &&
           !at->children().empty()) {
      node = node->branches[static_cast<size_t>(at->union_branch())];
      at = &at->children()[0];
    }
  };
  for (size_t i = 0; i < field.size(); ++i) {
    unwrap();
    if (node->type != avro::AvroType::kRecord) {
      return Unrouted("its field " + JoinPath(field, i) + " is not a record");
    }
    auto member = std::find_if(node->fields.begin(), node->fields.end(),
                               [&](const avro::AvroField& f) { return f.name == field[i]; });
    if (member == node->fields.end()) return Unrouted("the record has no field " + JoinPath(field, i + 1));
    const size_t index = static_cast<size_t>(member - node->fields.begin());
    if (index >= at->children().size()) return Undecodable();
    node = member->type;
    at = &at->field(index);
  }
  unwrap();
  if (at->is_null()) return Unrouted("its field " + JoinPath(field, field.size()) + " is null");
  if (at->kind() != avro::AvroType::kString && at->kind() != avro::AvroType::kEnum) {
    return Unrouted("its field " + JoinPath(field, field.size()) + " is an Avro " +
                    avro::AvroTypeName(at->kind()) + ", not a string");
  }
  if (at->kind() == avro::AvroType::kEnum) {
    const auto symbol = static_cast<size_t>(at->enum_index());
    if (symbol >= node->symbols.size()) return Undecodable();
    return RouteField{RouteField::Kind::kValue, node->symbols[symbol]};
  }
  return RouteField{RouteField::Kind::kValue, at->string()};
}

Status RouteRecords(const RecordRoute& route, const RecordOrigin& origin, const RouteFieldReader& read,
                    std::vector<StreamRecord>* records) {
  const bool keeps_unrouted = !route.tables.empty() && route.tables.front() == route.table;
  const std::string path = JoinPath(route.field, route.field.size());
  std::vector<StreamRecord> kept;
  kept.reserve(records->size());
  for (StreamRecord& record : *records) {
    if (!record.value) continue;  // a tombstone (see the contract)
    if (!record.error.empty()) {
      if (keeps_unrouted) kept.push_back(std::move(record));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(RouteField found, read(record));
    if (found.kind == RouteField::Kind::kTombstone) continue;
    if (found.kind == RouteField::Kind::kUndecodable) {
      if (keeps_unrouted) kept.push_back(std::move(record));
      continue;
    }
    if (found.kind == RouteField::Kind::kValue) {
      if (found.text == route.table) {
        kept.push_back(std::move(record));
        continue;
      }
      if (std::find(route.tables.begin(), route.tables.end(), found.text) != route.tables.end()) continue;
    }
    if (!keeps_unrouted) continue;
    std::string tables;
    for (const std::string& table : route.tables) tables += (tables.empty() ? "" : ", ") + table;
    const std::string why =
        "[source] topic_routes: " + (found.kind == RouteField::Kind::kValue
                                         ? "its field " + path + " = \"" + found.text + "\"" +
                                               " names none of the route's tables (" + tables + ")"
                                         : found.text + ", which names the record's table");
    switch (route.on_unrouted) {
      case UnroutedRecordPolicy::kSkip: continue;
      case UnroutedRecordPolicy::kFail:
        return Status::IOError(origin.Describe(record) + ": " + why +
                                   "; on_unrouted = \"fail\" stops here (\"dead_letter\" keeps such records "
                                   "in <table>__dead_letter and goes on)",
                               /*retryable=*/true);
      case UnroutedRecordPolicy::kDeadLetter:
        record.error = why;
        kept.push_back(std::move(record));
        break;
    }
  }
  *records = std::move(kept);
  return Status::OK();
}

}  // namespace floe::ingest
