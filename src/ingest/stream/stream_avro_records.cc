#include "ingest/stream/stream_avro_records.h"

#include <map>
#include <span>
#include <utility>

#include "formats/avro/columnar_decoder.h"
#include "formats/avro/decoder.h"
#include "formats/connect/confluent_framing.h"
#include "formats/connect/connect_avro_schema.h"
#include "formats/connect/connect_columns.h"

namespace floe::ingest {

namespace {

// The records of one writer schema: its decoder and Connect schema, or why
// the schema cannot be read (then each of its records is a dead letter).
struct SchemaGroup {
  std::string unusable;  // non-empty: the reason
  std::unique_ptr<avro::AvroColumnarDecoder> decoder;
  connect::ConnectSchema connect;
  std::vector<size_t> records;             // indexes into the range, one per row appended
  std::map<size_t, std::string> bad_rows;  // row -> why it is a dead letter after all
};

// A group for the registered schema `registered` of id `id`.
SchemaGroup GroupFor(int32_t id, const schema_registry::RegisteredSchema& registered) {
  SchemaGroup group;
  const std::string which = "its writer schema (registry id " + std::to_string(id) + ")";
  if (registered.schema_type != "AVRO" || !registered.avro) {
    group.unusable = which + " is " + registered.schema_type + ", not AVRO";
    return group;
  }
  if (registered.avro->root().type != avro::AvroType::kRecord) {
    group.unusable =
        which + " is an Avro " + avro::AvroTypeName(registered.avro->root().type) + ", not a record";
    return group;
  }
  auto connect_schema = connect::ConnectSchemaFromAvro(registered.avro->root());
  if (!connect_schema.ok()) {
    group.unusable = which + ": " + connect_schema.status().message();
    return group;
  }
  auto decoder = avro::AvroColumnarDecoder::Make(*registered.avro);
  if (!decoder.ok()) {
    group.unusable = which + ": " + decoder.status().message();
    return group;
  }
  group.connect = std::move(connect_schema).value();
  group.decoder = std::move(decoder).value();
  return group;
}

}  // namespace

Result<DecodedRecords> DecodeStreamAvroRecords(const RecordOrigin& origin,
                                               const std::vector<StreamRecord>& records,
                                               const RegisteredSchemaLookup& lookup, bool metadata_column) {
  DecodedRecords out;
  std::vector<RecordDeadLetter> dead;
  std::map<int32_t, SchemaGroup> groups;
  for (size_t i = 0; i < records.size(); ++i) {
    const StreamRecord& record = records[i];
    if (SkipRecord(records, i, &out, &dead)) continue;
    auto frame = connect::ParseConfluentFrame(*record.value);
    if (!frame.ok()) {
      dead.push_back({i, "the value is " + frame.status().message()});
      continue;
    }
    auto found = groups.find(frame->schema_id);
    if (found == groups.end()) {
      auto registered = lookup(frame->schema_id);
      if (!registered.ok()) {
        const ErrorKind kind = registered.status().kind();
        if (kind != ErrorKind::kNotFound && kind != ErrorKind::kNotSupported) {
          // The registry, not the record: the batch is redone later.
          return registered.status().WithContext(origin.Describe(record));
        }
        SchemaGroup unknown;
        unknown.unusable = "its writer schema: " + registered.status().message();
        found = groups.emplace(frame->schema_id, std::move(unknown)).first;
      } else {
        found = groups.emplace(frame->schema_id, GroupFor(frame->schema_id, **registered)).first;
      }
    }
    SchemaGroup& group = found->second;
    if (!group.unusable.empty()) {
      dead.push_back({i, group.unusable});
      continue;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(frame->datum.data());
    avro::AvroDecoder decoder(std::span<const uint8_t>(bytes, frame->datum.size()));
    Status appended = group.decoder->Append(&decoder);
    if (!appended.ok()) {
      dead.push_back({i, "its Avro datum: " + appended.message()});
      continue;
    }
    if (decoder.remaining() != 0) {
      // It decoded without using every byte: written with another schema
      // than its id names. The row is dropped when the group is converted.
      group.bad_rows[group.records.size()] =
          "its Avro datum leaves " + std::to_string(decoder.remaining()) +
          " bytes after the value (written with another schema than registry id " +
          std::to_string(frame->schema_id) + "?)";
    }
    group.records.push_back(i);
  }

  std::vector<RecordPart> parts;
  for (auto& [id, group] : groups) {
    if (!group.decoder || group.records.empty()) continue;
    RecordBatch raw = group.decoder->Finish();
    auto converted = connect::ConvertConnectBatch(group.connect, std::move(raw), "");
    if (!converted.ok()) {
      for (size_t record : group.records)
        dead.push_back({record, "its value: " + converted.status().message()});
      continue;
    }
    std::vector<std::string> errors(group.records.size());
    for (const auto& [row, why] : group.bad_rows) errors[row] = why;
    for (const connect::ValueError& error : converted->errors) {
      std::string& slot = errors[static_cast<size_t>(error.row)];
      if (slot.empty()) slot = error.message;
    }
    FLOE_RETURN_IF_ERROR(
        AddRecordPart(std::move(converted->batch), group.records, std::move(errors), &parts, &dead));
  }
  return AssembleDecodedRecords(origin, records, std::move(parts), std::move(dead), metadata_column,
                                std::move(out));
}

}  // namespace floe::ingest
