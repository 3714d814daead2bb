#include "ingest/stream/stream_unit_opener.h"

#include <algorithm>
#include <optional>

#include "columnar/column_rows.h"
#include "columnar/json_format.h"
#include "common/strings.h"
#include "formats/rescued_data.h"

namespace floe::ingest {

namespace {

// The decoded rows of a range as one chunk.
class DecodedRangeReader final : public formats::ChunkedReader {
 public:
  explicit DecodedRangeReader(std::shared_ptr<const DecodedRecords> decoded) : decoded_(std::move(decoded)) {}
  const Schema& schema() const override { return decoded_->rows.schema; }
  int num_chunks() const override { return decoded_->rows.num_rows > 0 ? 1 : 0; }
  int64_t chunk_rows(int) const override { return decoded_->rows.num_rows; }
  int64_t chunk_bytes(int) const override { return decoded_->payload_bytes; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    if (chunk != 0 || decoded_->rows.num_rows == 0) return Status::InvalidArgument("no such chunk");
    return formats::SelectChunkColumns(decoded_->rows, columns);
  }

 private:
  std::shared_ptr<const DecodedRecords> decoded_;
};

int64_t ApproximateBytes(const DecodedRecords& decoded) {
  // Decoded columns take about twice the JSON they came from.
  return decoded.payload_bytes * 2 + 1024;
}

// Why a record's key matters, for its dead letter's error.
constexpr const char* kRecordKeyWhy =
    " (changes = \"debezium\" without [merge] keys takes the key columns from the record key, Debezium's "
    "key struct)";

// Adds kRecordKeyColumn to `rows`: per row, the key row of its record.
Status AttachRecordKeys(const RecordOrigin& origin, const DecodedRecords& keys,
                        const std::vector<int64_t>& key_row_of, RecordBatch* rows,
                        const std::vector<size_t>& row_records) {
  if (ColumnIndex(rows->schema, kRecordKeyColumn) >= 0) {
    return Status::InvalidArgument(origin.Where() + ": the records have their own member " +
                                   std::string(kRecordKeyColumn) +
                                   ", where changes = \"debezium\" without [merge] keys puts the record key");
  }
  // A record without a key (Debezium's truncate events have none) gets a
  // null key: RecordKeyMismatches makes it a dead letter when it changes a row.
  std::vector<int64_t> take;
  std::vector<int64_t> keyless;
  take.reserve(row_records.size());
  for (size_t row = 0; row < row_records.size(); ++row) {
    const size_t record = row_records[row];
    const int64_t key_row = record < key_row_of.size() ? key_row_of[record] : -1;
    if (key_row < 0) keyless.push_back(static_cast<int64_t>(row));
    take.push_back(std::max<int64_t>(key_row, 0));
  }
  Column key(Struct({}));
  if (keys.rows.num_rows > 0) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch taken, TakeBatchRows(keys.rows, take));
    key = Column(Struct(taken.schema));
    key.children = std::move(taken.columns);
  }
  key.length = rows->num_rows;
  if (!keyless.empty()) {
    key.validity.assign(static_cast<size_t>((key.length + 7) / 8), 0xFF);
    for (int64_t row : keyless) {
      key.validity[static_cast<size_t>(row >> 3)] &= static_cast<uint8_t>(~(1u << (row & 7)));
    }
    key.null_count = static_cast<int64_t>(keyless.size());
  }
  rows->schema.push_back(MakeField(std::string(kRecordKeyColumn), key.type, false));
  rows->columns.push_back(std::move(key));
  return Status::OK();
}

// The member of struct `image` named `name` (exactly, else ignoring ASCII case), or -1.
int MemberIndex(const DataType& image, const std::string& name) {
  for (size_t i = 0; i < image.children.size(); ++i) {
    if (image.children[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < image.children.size(); ++i) {
    if (EqualsIgnoreAsciiCase(image.children[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

// Rows whose record key disagrees with their change event: a key field the
// row image (after, or before for a delete) lacks or holds another value
// in. Key fields a record's key lacks (null in the range's union of keys)
// are not compared; rows without an image are the convention's bad rows.
std::vector<std::pair<int64_t, std::string>> RecordKeyMismatches(const RecordBatch& rows) {
  std::vector<std::pair<int64_t, std::string>> mismatches;
  const int key_index = ColumnIndex(rows.schema, kRecordKeyColumn);
  if (key_index < 0) return mismatches;
  const Column& key = rows.columns[static_cast<size_t>(key_index)];
  const Column* images[2] = {nullptr, nullptr};  // after, before
  const char* names[2] = {"after", "before"};
  for (int i = 0; i < 2; ++i) {
    const int index = ColumnIndex(rows.schema, names[i]);
    if (index >= 0 && rows.columns[static_cast<size_t>(index)].type.id == TypeId::kStruct) {
      images[i] = &rows.columns[static_cast<size_t>(index)];
    }
  }
  if (images[0] == nullptr && images[1] == nullptr) return mismatches;  // not Debezium: Bind says so
  std::string key_text, image_text;
  for (int64_t row = 0; row < rows.num_rows; ++row) {
    int which = -1;
    for (int i = 0; i < 2 && which < 0; ++i) {
      if (images[i] != nullptr && images[i]->IsValid(row)) which = i;
    }
    if (which < 0) continue;
    if (key.IsNull(row)) {
      mismatches.push_back({row, std::string("the record has no key") + kRecordKeyWhy});
      continue;
    }
    const Column& image = *images[which];
    for (size_t m = 0; m < key.type.children.size(); ++m) {
      const Column& member = key.children[m];
      if (member.IsNull(row)) continue;
      const std::string& name = key.type.children[m].name;
      const int in_image = MemberIndex(image.type, name);
      if (in_image < 0) {
        mismatches.push_back(
            {row, "its key's field " + name + " is not in the " + names[which] + " image" + kRecordKeyWhy});
        break;
      }
      key_text.clear();
      image_text.clear();
      AppendJsonValue(member, row, &key_text);
      AppendJsonValue(image.children[static_cast<size_t>(in_image)], row, &image_text);
      if (key_text != image_text) {
        mismatches.push_back({row, "its key's " + name + " = " + key_text + " does not match the " +
                                       names[which] + " image's " + name + " = " + image_text});
        break;
      }
    }
  }
  return mismatches;
}

}  // namespace

int64_t RecordBytes(const std::vector<StreamRecord>& records) {
  int64_t bytes = 0;
  for (const StreamRecord& record : records) {
    bytes += static_cast<int64_t>((record.key ? record.key->size() : 0) +
                                  (record.value ? record.value->size() : 0));
  }
  return bytes;
}

Result<StreamDecoding> MakeStreamDecoding(const SourceConfig& config, int64_t memory_budget_bytes) {
  StreamDecoding decoding;
  FLOE_ASSIGN_OR_RETURN(decoding.json.text, MakeTextFormatOptions(config));
  // Debezium's default ordering reads the metadata column; append tables keep it on request.
  decoding.json.metadata_column = config.changes == ChangeKind::kDebezium || config.stream.metadata_column;
  decoding.policy = config.stream.on_bad_record;
  decoding.cache_bytes = std::max<int64_t>(memory_budget_bytes / 4, 0);
  decoding.record_key_column = config.stream.record_key_column;
  if (config.format == SourceFormat::kAvro) {
    schema_registry::SchemaRegistryOptions registry;
    registry.url = config.stream.schema_registry_url;
    registry.basic_auth_user_info = config.stream.schema_registry_auth;
    registry.bearer_token = config.stream.schema_registry_token;
    FLOE_ASSIGN_OR_RETURN(decoding.registry, schema_registry::SchemaRegistryClient::Open(registry));
  }
  return decoding;
}

Result<std::shared_ptr<const schema_registry::RegisteredSchema>> StreamUnitOpener::LookupSchema(int32_t id) {
  // How long a retryable registry failure fails other lookups at once: about
  // the client's own retry time, so the next batch attempt asks again.
  constexpr std::chrono::seconds kRegistryFailureHold{30};
  {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    if (!registry_failure_.ok() && std::chrono::steady_clock::now() < registry_failure_until_) {
      return registry_failure_;
    }
  }
  auto schema = decoding_.registry->GetSchema(id);
  if (!schema.ok() && schema.status().retryable()) {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    registry_failure_ = schema.status();
    registry_failure_until_ = std::chrono::steady_clock::now() + kRegistryFailureHold;
  }
  return schema;
}

Result<std::shared_ptr<const DecodedRecords>> StreamUnitOpener::Decoded(const SourceUnit& unit,
                                                                        const Schema& table_columns) {
  const std::string cache_key = unit.uri + "\n" + SchemaToString(table_columns);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->first == cache_key) return it->second;
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<RecordOrigin> origin, OriginOf(unit));
  FLOE_ASSIGN_OR_RETURN(std::vector<StreamRecord> records, Records(unit));
  if (std::optional<RecordRoute> route = RouteOf(unit)) {
    RouteFieldReader read = [&](const StreamRecord& record) -> Result<RouteField> {
      if (decoding_.registry) {
        return AvroRouteField(*record.value, route->field, [this](int32_t id) { return LookupSchema(id); });
      }
      return JsonRouteField(*record.value, route->field);
    };
    FLOE_RETURN_IF_ERROR(RouteRecords(*route, *origin, read, &records));
  }
  std::optional<DecodedRecords> keys;
  std::vector<int64_t> key_row_of;
  if (decoding_.record_key_column) {
    FLOE_ASSIGN_OR_RETURN(keys, DecodeRecordKeys(*origin, &records, &key_row_of));
  }
  auto decoded = DecodeRecords(*origin, records, table_columns, decoding_.json.metadata_column);
  // The batch names the unit in what it does with the error (retry or quarantine).
  if (!decoded.ok()) return decoded.status();
  if (keys && decoded->rows.num_rows > 0) {
    FLOE_RETURN_IF_ERROR(AttachRecordKeys(*origin, *keys, key_row_of, &decoded->rows, decoded->row_records));
    FLOE_RETURN_IF_ERROR(DeadLetterRows(*origin, records, RecordKeyMismatches(decoded->rows), &*decoded));
  }
  if (decoded->dead_letters.num_rows > 0 && decoding_.policy == StreamBadRecordPolicy::kFail) {
    const Column& errors = decoded->dead_letters.columns.back();
    return Status::IOError(
        std::string(errors.StringAt(0)) +
            (decoded->dead_letters.num_rows > 1
                 ? " (and " + std::to_string(decoded->dead_letters.num_rows - 1) + " more)"
                 : "") +
            "; [source] on_bad_record = \"fail\" stops here (\"dead_letter\" keeps such records "
            "in <table>__dead_letter and goes on)",
        /*retryable=*/true);
  }
  auto shared = std::make_shared<const DecodedRecords>(std::move(decoded).value());
  const int64_t bytes = ApproximateBytes(*shared);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == cache_key) return it->second;  // another worker decoded it meanwhile
  }
  if (bytes <= decoding_.cache_bytes) {
    cache_.emplace_back(cache_key, shared);
    cached_bytes_ += bytes;
    while (cached_bytes_ > decoding_.cache_bytes && !cache_.empty()) {
      cached_bytes_ -= ApproximateBytes(*cache_.front().second);
      cache_.pop_front();
    }
  }
  return shared;
}

Result<DecodedRecords> StreamUnitOpener::DecodeRecords(const RecordOrigin& origin,
                                                       const std::vector<StreamRecord>& records,
                                                       const Schema& table_columns, bool metadata_column) {
  if (decoding_.registry) {
    return DecodeStreamAvroRecords(
        origin, records, [this](int32_t id) { return LookupSchema(id); }, metadata_column);
  }
  StreamJsonOptions json = decoding_.json;
  json.metadata_column = metadata_column;
  return DecodeStreamJsonRecords(origin, records, table_columns, json, schemas_);
}

Result<DecodedRecords> StreamUnitOpener::DecodeRecordKeys(const RecordOrigin& origin,
                                                          std::vector<StreamRecord>* records,
                                                          std::vector<int64_t>* key_row_of) {
  // The keys as records of their own, decoded by the values' format.
  std::vector<StreamRecord> as_values;
  as_values.reserve(records->size());
  for (const StreamRecord& record : *records) {
    StreamRecord key;
    key.position = record.position;
    key.subsequence = record.subsequence;
    key.timestamp_ms = record.timestamp_ms;
    // A record already set aside (an unrouted record of another table) has
    // no say in the range's key columns.
    if (record.error.empty()) key.value = record.key;
    as_values.push_back(std::move(key));
  }
  FLOE_ASSIGN_OR_RETURN(DecodedRecords keys, DecodeRecords(origin, as_values, {}, false));
  key_row_of->assign(records->size(), -1);
  for (size_t row = 0; row < keys.row_records.size(); ++row) {
    (*key_row_of)[keys.row_records[row]] = static_cast<int64_t>(row);
  }
  std::vector<const std::string*> key_error(records->size(), nullptr);
  for (size_t k = 0; k < keys.dead_letter_records.size(); ++k) {
    key_error[keys.dead_letter_records[k]] = &keys.dead_letter_errors[k];
  }
  const std::string why = kRecordKeyWhy;
  for (size_t i = 0; i < records->size(); ++i) {
    StreamRecord& record = (*records)[i];
    // Tombstones pass; records without a key are judged by their change
    // (RecordKeyMismatches: a truncate has no key and changes no row).
    if (!record.value || !record.key || !record.error.empty() || (*key_row_of)[i] >= 0) continue;
    if (key_error[i] != nullptr) {
      // The format's words are about a value; this is the key.
      const std::string& error = *key_error[i];
      const std::string_view value_is = "the value is ";
      record.error = (error.rfind(value_is, 0) == 0 ? "its key is " + error.substr(value_is.size())
                                                    : "its key: " + error) +
                     why;
    } else {
      record.error = "its key has a null payload" + why;
    }
  }
  // A key that does not fit its inferred column is rescued, not a key.
  if (int rescued = ColumnIndex(keys.rows.schema, formats::kRescuedDataColumn); rescued >= 0) {
    keys.rows.schema.erase(keys.rows.schema.begin() + rescued);
    keys.rows.columns.erase(keys.rows.columns.begin() + rescued);
  }
  return keys;
}

Result<std::unique_ptr<formats::ChunkedReader>> StreamUnitOpener::Open(const SourceUnit& unit,
                                                                       const Schema& table_columns) {
  FLOE_ASSIGN_OR_RETURN(auto decoded, Decoded(unit, table_columns));
  return std::unique_ptr<formats::ChunkedReader>(new DecodedRangeReader(std::move(decoded)));
}

Result<UnitOpener::DeadLetters> StreamUnitOpener::DeadLettersOf(const SourceUnit& unit,
                                                                const Schema& table_columns) {
  FLOE_ASSIGN_OR_RETURN(auto decoded, Decoded(unit, table_columns));
  DeadLetters letters;
  if (decoded->dead_letters.num_rows == 0) return letters;
  if (decoding_.policy == StreamBadRecordPolicy::kSkip) {
    letters.skipped = decoded->dead_letters.num_rows;
  } else {
    letters.rows = decoded->dead_letters;
  }
  return letters;
}

}  // namespace floe::ingest
