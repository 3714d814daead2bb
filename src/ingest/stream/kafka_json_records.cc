#include "ingest/stream/kafka_json_records.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "columnar/column_rows.h"
#include "common/base64.h"
#include "formats/connect/connect_columns.h"
#include "formats/json/json_document_decoder.h"
#include "ingest/schema/column_cast.h"

namespace floe::ingest {

namespace {

// What the JSON decoder reads a Connect value into before
// connect::ConvertConnectBatch makes it exact: integers as long, floats as
// double, bytes as their base64 text, structure as it is.
DataType RawTypeOf(const connect::ConnectSchema& schema) {
  using connect::ConnectType;
  switch (schema.type) {
    case ConnectType::kInt8:
    case ConnectType::kInt16:
    case ConnectType::kInt32:
    case ConnectType::kInt64: return Int64();
    case ConnectType::kFloat32:
    case ConnectType::kFloat64: return Float64();
    case ConnectType::kBoolean: return Bool();
    case ConnectType::kString:
    case ConnectType::kBytes: return String();
    case ConnectType::kArray:
      return List(MakeField("element", schema.children.empty() ? String() : RawTypeOf(schema.children[0])));
    case ConnectType::kMap:
      return Map(MakeField("key", String(), false),
                 MakeField("value", schema.children.size() < 2 ? String() : RawTypeOf(schema.children[1])));
    case ConnectType::kStruct: {
      std::vector<Field> members;
      for (const connect::ConnectField& field : schema.fields) {
        members.push_back(MakeField(field.name, RawTypeOf(field.schema)));
      }
      return Struct(std::move(members));
    }
  }
  return String();
}

Schema RawSchemaOf(const connect::ConnectSchema& struct_schema) {
  Schema schema;
  for (const connect::ConnectField& field : struct_schema.fields) {
    schema.push_back(MakeField(field.name, RawTypeOf(field.schema)));
  }
  return schema;
}

bool IsInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

int IntegerWidth(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32: return 4;
    default: return 8;
  }
}

// The type both `older` and `newer` values fit, or nullopt: structs by
// member name (older members first, new ones after), integers and floats
// widened, anything else only when equal.
std::optional<DataType> UnionType(const DataType& older, const DataType& newer) {
  if (older == newer) return older;
  if (IsInteger(older.id) && IsInteger(newer.id)) {
    return IntegerWidth(older.id) >= IntegerWidth(newer.id) ? older : newer;
  }
  if ((older.id == TypeId::kFloat32 || older.id == TypeId::kFloat64) &&
      (newer.id == TypeId::kFloat32 || newer.id == TypeId::kFloat64)) {
    return Float64();
  }
  if (older.id == TypeId::kStruct && newer.id == TypeId::kStruct) {
    std::vector<Field> members = older.children;
    for (const Field& field : newer.children) {
      auto it =
          std::find_if(members.begin(), members.end(), [&](const Field& f) { return f.name == field.name; });
      if (it == members.end()) {
        Field added = field;
        added.nullable = true;
        members.push_back(std::move(added));
        continue;
      }
      auto joined = UnionType(it->type, field.type);
      if (!joined) return std::nullopt;
      it->type = *joined;
      it->nullable = it->nullable || field.nullable;
    }
    for (Field& member : members) {
      const bool in_newer = std::any_of(newer.children.begin(), newer.children.end(),
                                        [&](const Field& f) { return f.name == member.name; });
      if (!in_newer) member.nullable = true;
    }
    return Struct(std::move(members));
  }
  if (older.id == TypeId::kList && newer.id == TypeId::kList) {
    auto element = UnionType(older.children[0].type, newer.children[0].type);
    if (!element) return std::nullopt;
    Field field = older.children[0];
    field.type = *element;
    field.nullable = true;
    return List(std::move(field));
  }
  return std::nullopt;
}

int ColumnIndex(const Schema& schema, std::string_view name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Column NullColumn(const DataType& type, int64_t rows) {
  Column column = MakeEmptyColumn(type);
  for (int64_t row = 0; row < rows; ++row) {
    if (type.id == TypeId::kStruct) {
      for (size_t i = 0; i < type.children.size(); ++i) {
        column.children[i] = NullColumn(type.children[i].type, rows);
      }
      column.validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
      column.length = rows;
      column.null_count = rows;
      return column;
    }
    column.AppendNull();
  }
  return column;
}

// `column` as `type` (which UnionType built from the column's own type).
Result<Column> ConformColumn(Column column, const DataType& type, const std::string& path) {
  if (column.type == type) return column;
  if (type.id == TypeId::kStruct && column.type.id == TypeId::kStruct) {
    Column out = std::move(column);
    std::vector<Column> children;
    for (const Field& member : type.children) {
      int found = -1;
      for (size_t i = 0; i < out.type.children.size(); ++i) {
        if (out.type.children[i].name == member.name) found = static_cast<int>(i);
      }
      if (found < 0) {
        children.push_back(NullColumn(member.type, out.length));
      } else {
        FLOE_ASSIGN_OR_RETURN(Column child, ConformColumn(std::move(out.children[static_cast<size_t>(found)]),
                                                          member.type, path + "." + member.name));
        children.push_back(std::move(child));
      }
    }
    out.children = std::move(children);
    out.type = type;
    return out;
  }
  return internal::CastColumn(column, type, path);
}

Schema KafkaMetadataMembers() {
  return {MakeField("topic", String(), false), MakeField("partition", Int32(), false),
          MakeField("offset", Int64(), false), MakeField("timestamp", Timestamp(TimeUnit::kMilli, true)),
          MakeField("key", Binary())};
}

// A group of records decoded with one decoder: one Connect schema, or none.
struct Group {
  std::shared_ptr<const connect::ConnectSchema> schema;  // null: schemaless
  std::unique_ptr<json::JsonDocumentDecoder> decoder;
  std::vector<size_t> records;  // indexes into the input, one per row added
};

struct DeadLetter {
  size_t record = 0;
  std::string error;
};

// The envelope's parts, or an error saying why the value is not one.
struct Envelope {
  bool wrapped = false;
  std::string schema_text;
  std::string payload_text;
  bool payload_null = false;
};

// Whether `value` starts like the JSON converter's envelope, {"schema": ...
// (the converter writes schema first): only those are parsed here; any other
// value goes to the decoder as it is, without a parse of its own.
bool LooksLikeEnvelope(std::string_view value) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < value.size() && (value[i] == ' ' || value[i] == '\n' || value[i] == '\r' || value[i] == '\t'))
      ++i;
  };
  skip_space();
  if (i >= value.size() || value[i] != '{') return false;
  ++i;
  skip_space();
  return value.substr(i, 8) == "\"schema\"" || value.substr(i, 9) == "\"payload\"";
}

Result<Envelope> ClassifyValue(simdjson::ondemand::parser& parser, const std::string& value) {
  Envelope envelope;
  if (!LooksLikeEnvelope(value)) return envelope;
  simdjson::padded_string padded(value);
  simdjson::ondemand::document document;
  if (parser.iterate(padded).get(document)) return Status::Corruption("not valid JSON");
  simdjson::ondemand::object object;
  if (document.get_object().get(object)) return Status::Corruption("not a JSON object");
  int members = 0;
  bool has_schema = false, has_payload = false;
  std::string_view schema_raw, payload_raw;
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (std::move(field_result).get(field)) return Status::Corruption("not valid JSON");
    std::string_view key;
    if (field.unescaped_key().get(key)) return Status::Corruption("not valid JSON (a member name)");
    ++members;
    if (key == "schema" && !has_schema) {
      has_schema = true;
      simdjson::ondemand::object schema;
      if (field.value().get_object().get(schema) || schema.raw_json().get(schema_raw)) {
        return envelope;  // not the converter's envelope: the decoder reads the whole value
      }
    } else if (key == "payload" && !has_payload) {
      has_payload = true;
      simdjson::ondemand::value value = field.value();
      bool is_null = false;
      if (!value.is_null().get(is_null) && is_null) {
        payload_raw = "null";
      } else {
        simdjson::ondemand::object payload;
        if (value.get_object().get(payload) || payload.raw_json().get(payload_raw)) {
          return Status::Corruption("a schema/payload envelope whose payload is not a JSON object");
        }
      }
    } else {
      // Any other member: not the converter's envelope; the decoder parses the whole value.
      return envelope;
    }
  }
  if (!(has_schema && has_payload && members == 2)) return envelope;
  // raw_json of a scalar (payload null) runs on over the white space after it.
  auto trim = [](std::string_view text) {
    while (!text.empty() &&
           (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t')) {
      text.remove_suffix(1);
    }
    return text;
  };
  envelope.wrapped = true;
  envelope.schema_text = std::string(trim(schema_raw));
  envelope.payload_text = std::string(trim(payload_raw));
  envelope.payload_null = envelope.payload_text == "null";
  return envelope;
}

}  // namespace

Schema DeadLetterSchema() {
  return {MakeField("topic", String(), false), MakeField("partition", Int32(), false),
          MakeField("offset", Int64(), false), MakeField("timestamp", Timestamp(TimeUnit::kMicro, true)),
          MakeField("key", String()),          MakeField("value", String()),
          MakeField("error", String(), false)};
}

Result<DecodedRecords> DecodeKafkaJsonRecords(const std::string& topic, int32_t partition,
                                              const std::vector<StreamRecord>& records,
                                              const Schema& table_columns, const KafkaJsonOptions& options,
                                              connect::ConnectSchemaCache& schemas) {
  DecodedRecords out;
  const std::string where = topic + "[" + std::to_string(partition) + "]";
  std::vector<DeadLetter> dead;
  std::vector<Group> groups;
  std::map<const connect::ConnectSchema*, size_t> group_of;
  std::optional<size_t> schemaless_group;
  simdjson::ondemand::parser parser;

  auto decoder_for = [&](std::shared_ptr<const connect::ConnectSchema> schema) -> Result<Group*> {
    if (!schema && schemaless_group) return &groups[*schemaless_group];
    if (schema) {
      auto it = group_of.find(schema.get());
      if (it != group_of.end()) return &groups[it->second];
    }
    json::JsonDecodeOptions decode;
    decode.location.unit = where;
    decode.location.position_key = "_offset";
    decode.on_broken = formats::BadDataPolicy::kRescue;
    if (schema) {
      decode.known = RawSchemaOf(*schema);
      decode.infer_new_fields = false;
      decode.on_mismatch = formats::BadDataPolicy::kRescue;
    } else {
      decode.inference = options.text.inference;
      decode.schema_hints = WithTableColumns(options.text.schema_hints, table_columns);
      decode.on_mismatch = options.text.bad_records;
    }
    FLOE_ASSIGN_OR_RETURN(auto decoder, json::JsonDocumentDecoder::Make(std::move(decode)));
    Group group;
    group.schema = schema;
    group.decoder = std::move(decoder);
    groups.push_back(std::move(group));
    if (schema) {
      group_of[schema.get()] = groups.size() - 1;
    } else {
      schemaless_group = groups.size() - 1;
    }
    return &groups.back();
  };

  for (size_t i = 0; i < records.size(); ++i) {
    const StreamRecord& record = records[i];
    out.payload_bytes += static_cast<int64_t>((record.key ? record.key->size() : 0) +
                                              (record.value ? record.value->size() : 0));
    if (!record.value) {
      ++out.tombstones;
      continue;
    }
    auto envelope = ClassifyValue(parser, *record.value);
    if (!envelope.ok()) {
      dead.push_back({i, "the value is " + envelope.status().message()});
      continue;
    }
    std::shared_ptr<const connect::ConnectSchema> schema;
    std::string_view document = *record.value;
    if (envelope->wrapped) {
      if (envelope->payload_null) {
        ++out.tombstones;
        continue;
      }
      auto parsed = schemas.Get(envelope->schema_text);
      if (!parsed.ok()) {
        dead.push_back({i, "its Kafka Connect schema: " + parsed.status().message()});
        continue;
      }
      if ((*parsed)->type != connect::ConnectType::kStruct) {
        dead.push_back({i, std::string("its Kafka Connect schema is a ") +
                               connect::ConnectTypeName((*parsed)->type) + ", not a struct"});
        continue;
      }
      schema = *parsed;
      document = envelope->payload_text;
    }
    FLOE_ASSIGN_OR_RETURN(Group * group, decoder_for(schema));
    Status added = group->decoder->Add(document, record.offset);
    if (!added.ok()) {
      // kFail policies ([source] infer settings): the record alone is bad.
      dead.push_back({i, added.message()});
      continue;
    }
    group->records.push_back(i);
  }

  // Each group's rows, exact; rows that did not decode become dead letters.
  struct Part {
    RecordBatch batch;
    std::vector<size_t> records;
  };
  std::vector<Part> parts;
  for (Group& group : groups) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch raw, group.decoder->Finish());
    std::vector<std::string> errors(group.records.size());
    const int rescued = ColumnIndex(raw.schema, formats::kRescuedDataColumn);
    RecordBatch batch;
    if (group.schema) {
      if (rescued >= 0) {
        const Column& column = raw.columns[static_cast<size_t>(rescued)];
        for (int64_t row = 0; row < raw.num_rows; ++row) {
          if (column.IsValid(row)) {
            errors[static_cast<size_t>(row)] =
                "the payload does not fit its Kafka Connect schema: " + std::string(column.StringAt(row));
          }
        }
        raw.schema.erase(raw.schema.begin() + rescued);
        raw.columns.erase(raw.columns.begin() + rescued);
      }
      auto converted = connect::ConvertConnectBatch(*group.schema, std::move(raw), "");
      if (!converted.ok()) {
        for (size_t k = 0; k < group.records.size(); ++k) {
          dead.push_back({group.records[k], "its payload: " + converted.status().message()});
        }
        continue;
      }
      for (const connect::ValueError& error : converted->errors) {
        std::string& slot = errors[static_cast<size_t>(error.row)];
        if (slot.empty()) slot = error.message;
      }
      batch = std::move(converted->batch);
    } else {
      // Schemaless: a broken document is a dead letter; a value that did not
      // fit its column stays rescued in its row, as in a JSON lines file.
      if (rescued >= 0) {
        const Column& column = raw.columns[static_cast<size_t>(rescued)];
        for (int64_t row = 0; row < raw.num_rows; ++row) {
          if (!column.IsValid(row)) continue;
          const std::string_view text = column.StringAt(row);
          if (text.find("\"_raw\"") != std::string_view::npos &&
              text.find("\"_error\"") != std::string_view::npos) {
            errors[static_cast<size_t>(row)] = "the value is not a JSON object: " + std::string(text);
          }
        }
      }
      batch = std::move(raw);
    }
    std::vector<int64_t> keep;
    Part part;
    for (size_t k = 0; k < group.records.size(); ++k) {
      if (errors[k].empty()) {
        keep.push_back(static_cast<int64_t>(k));
        part.records.push_back(group.records[k]);
      } else {
        dead.push_back({group.records[k], std::move(errors[k])});
      }
    }
    if (keep.size() != static_cast<size_t>(batch.num_rows)) {
      FLOE_ASSIGN_OR_RETURN(batch, TakeBatchRows(batch, keep));
    }
    part.batch = std::move(batch);
    if (!part.records.empty()) parts.push_back(std::move(part));
  }

  // The union of the parts' schemas, the newest (last record) decides the order of conflicts.
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.records.back() < b.records.back(); });
  if (!parts.empty()) {
    DataType joined = Struct(parts.back().batch.schema);
    std::vector<bool> fits(parts.size(), true);
    for (size_t p = parts.size() - 1; p-- > 0;) {
      auto with = UnionType(Struct(parts[p].batch.schema), joined);
      if (!with) {
        fits[p] = false;
        continue;
      }
      joined = *with;
    }
    // Every part conformed to the union, rows back in offset order.
    std::vector<std::pair<size_t, std::pair<size_t, int64_t>>> order;  // record -> (part, row)
    std::vector<RecordBatch> conformed;
    std::vector<size_t> part_slot(parts.size(), SIZE_MAX);
    for (size_t p = 0; p < parts.size(); ++p) {
      if (!fits[p]) {
        for (size_t record : parts[p].records) {
          dead.push_back({record,
                          "its schema cannot join the newer records' schema of this range (a member changed "
                          "to an unrelated type)"});
        }
        continue;
      }
      Column as_struct(Struct(parts[p].batch.schema));
      as_struct.children = std::move(parts[p].batch.columns);
      as_struct.length = parts[p].batch.num_rows;
      FLOE_ASSIGN_OR_RETURN(Column column, ConformColumn(std::move(as_struct), joined, where));
      RecordBatch batch;
      batch.schema = joined.children;
      batch.columns = std::move(column.children);
      batch.num_rows = column.length;
      part_slot[p] = conformed.size();
      for (size_t k = 0; k < parts[p].records.size(); ++k) {
        order.push_back({parts[p].records[k], {conformed.size(), static_cast<int64_t>(k)}});
      }
      conformed.push_back(std::move(batch));
    }
    std::sort(order.begin(), order.end());
    RecordBatch rows;
    if (conformed.size() == 1) {
      rows = std::move(conformed.front());
    } else if (!conformed.empty()) {
      FLOE_ASSIGN_OR_RETURN(rows, ConcatBatches(conformed));
      // ConcatBatches keeps part order; put the rows back in offset order.
      std::vector<int64_t> base(conformed.size(), 0);
      for (size_t c = 1; c < conformed.size(); ++c) base[c] = base[c - 1] + conformed[c - 1].num_rows;
      std::vector<int64_t> take;
      take.reserve(order.size());
      for (const auto& [record, at] : order) take.push_back(base[at.first] + at.second);
      FLOE_ASSIGN_OR_RETURN(rows, TakeBatchRows(rows, take));
    }
    if (options.metadata_column && !conformed.empty()) {
      Column kafka = MakeEmptyColumn(Struct(KafkaMetadataMembers()));
      for (const auto& [record_index, at] : order) {
        const StreamRecord& record = records[record_index];
        kafka.children[0].AppendBytes(topic);
        kafka.children[1].AppendValue<int32_t>(partition);
        kafka.children[2].AppendValue<int64_t>(record.offset);
        if (record.timestamp_ms >= 0) {
          kafka.children[3].AppendValue<int64_t>(record.timestamp_ms);
        } else {
          kafka.children[3].AppendNull();
        }
        if (record.key) {
          kafka.children[4].AppendBytes(*record.key);
        } else {
          kafka.children[4].AppendNull();
        }
        kafka.AppendStructSlot();
      }
      if (ColumnIndex(rows.schema, "kafka") >= 0) {
        return Status::InvalidArgument(where +
                                       ": the records have their own member kafka, where [source] "
                                       "kafka_metadata (or the default ordering of changes = \"debezium\") "
                                       "puts the record's topic, partition and offset");
      }
      rows.schema.push_back(MakeField("kafka", kafka.type, false));
      rows.columns.push_back(std::move(kafka));
    }
    out.rows = std::move(rows);
  }

  // Dead letters in offset order.
  std::sort(dead.begin(), dead.end(),
            [](const DeadLetter& a, const DeadLetter& b) { return a.record < b.record; });
  out.dead_letters.schema = DeadLetterSchema();
  for (const Field& field : out.dead_letters.schema)
    out.dead_letters.columns.push_back(MakeEmptyColumn(field.type));
  for (const DeadLetter& letter : dead) {
    const StreamRecord& record = records[letter.record];
    auto& c = out.dead_letters.columns;
    c[0].AppendBytes(topic);
    c[1].AppendValue<int32_t>(partition);
    c[2].AppendValue<int64_t>(record.offset);
    if (record.timestamp_ms >= 0) {
      c[3].AppendValue<int64_t>(record.timestamp_ms * 1000);
    } else {
      c[3].AppendNull();
    }
    if (record.key) {
      c[4].AppendBytes(Base64Encode(*record.key));
    } else {
      c[4].AppendNull();
    }
    if (record.value) {
      c[5].AppendBytes(Base64Encode(*record.value));
    } else {
      c[5].AppendNull();
    }
    c[6].AppendBytes(where + " offset " + std::to_string(record.offset) + ": " + letter.error);
  }
  out.dead_letters.num_rows = static_cast<int64_t>(dead.size());
  return out;
}

}  // namespace floe::ingest
