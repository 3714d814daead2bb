#include "ingest/stream/stream_json_records.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "formats/connect/connect_columns.h"
#include "formats/json/json_document_decoder.h"
#include "formats/rescued_data.h"

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

// A group of records decoded with one decoder: one Connect schema, or none.
struct Group {
  std::shared_ptr<const connect::ConnectSchema> schema;  // null: schemaless
  std::unique_ptr<json::JsonDocumentDecoder> decoder;
  std::vector<size_t> records;  // indexes into the input, one per row added
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

Result<DecodedRecords> DecodeStreamJsonRecords(const RecordOrigin& origin,
                                               const std::vector<StreamRecord>& records,
                                               const Schema& table_columns, const StreamJsonOptions& options,
                                               connect::ConnectSchemaCache& schemas) {
  DecodedRecords out;
  std::vector<RecordDeadLetter> dead;
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
    decode.location = origin.Rescue();
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
    if (SkipRecord(records, i, &out, &dead)) continue;
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
    Status added = group->decoder->Add(document, origin.RescuePosition(record, i));
    if (!added.ok()) {
      // kFail policies ([source] infer settings): the record alone is bad.
      dead.push_back({i, added.message()});
      continue;
    }
    group->records.push_back(i);
  }

  // Each group's rows, exact; rows that did not decode become dead letters.
  std::vector<RecordPart> parts;
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
          if (formats::BrokenRecordError(text)) {
            errors[static_cast<size_t>(row)] = "the value is not a JSON object: " + std::string(text);
          }
        }
      }
      batch = std::move(raw);
    }
    FLOE_RETURN_IF_ERROR(AddRecordPart(std::move(batch), group.records, std::move(errors), &parts, &dead));
  }

  return AssembleDecodedRecords(origin, records, std::move(parts), std::move(dead), options.metadata_column,
                                std::move(out));
}

}  // namespace floe::ingest
