// The records of one stream range as rows: what every record format
// (stream_json_records.h, stream_avro_records.h) of every stream source
// (Kafka, Kinesis) shares. A source describes where its records came from
// by a RecordOrigin (kafka_record_origin.h, kinesis_record_origin.h): the
// metadata column its rows may carry and the columns of its dead letters.
//
// Contract of AssembleDecodedRecords: a format decodes a range's records
// into parts, each a batch of rows of one schema with the record (index
// into the range) of every row, and dead letters (a record and what was
// wrong). The result has
// - rows: the union of the parts' schemas — members by name, the older
//   rows null in members they lack, integers and floats widened, the
//   newest part (by its last record) deciding the order — in record order;
//   a part whose schema cannot join the union (a member changed to an
//   unrelated type) becomes dead letters;
// - with `metadata_column`, the origin's struct column (`kafka`: topic,
//   partition, offset, timestamp, key; `kinesis`: stream, shard, sequence
//   number, subsequence number, arrival, partition key) on every row;
// - dead_letters: every dead letter in record order: the origin's columns
//   naming the record, its raw value (base64) and its error prefixed by the
//   record's place (RecordOrigin::Describe);
// - row_records / dead_letter_records: the record of each row and dead letter.
// Pure: thread-safe (a RecordOrigin is immutable).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/rescued_data.h"

namespace floe::ingest {

// One record as fetched, its bytes copied out of the client.
struct StreamRecord {
  // Its position in its partition, a decimal string: the Kafka offset, or
  // the Kinesis sequence number (of the Kinesis record a KPL user record
  // came out of).
  std::string position;
  int64_t subsequence = 0;           // Kinesis: the user record's index within its KPL aggregate
  int64_t timestamp_ms = -1;         // the record's timestamp (Kinesis: approximate arrival); -1: none
  std::optional<std::string> key;    // Kafka: the record key; Kinesis: the partition key
  std::optional<std::string> value;  // null: a tombstone
  // Non-empty: the source could not take the record apart (a malformed KPL
  // aggregate); it is a dead letter with this error and `value` its raw bytes.
  std::string error;
};

// Where the records of one range came from, and how rows and dead letters
// say it. Immutable: thread-safe.
class RecordOrigin {
 public:
  virtual ~RecordOrigin() = default;
  // The range's partition for messages: "db.t[2]", "stream orders, shard shardId-000000000001".
  virtual std::string Where() const = 0;
  // One record for messages: "db.t[2] offset 17".
  virtual std::string Describe(const StreamRecord& record) const = 0;
  // The metadata column ("kafka", "kinesis") and the config key asking for it.
  virtual std::string_view metadata_column() const = 0;
  virtual std::string_view metadata_key() const = 0;
  // The metadata column's members, and one record's values for them.
  virtual Schema MetadataMembers() const = 0;
  virtual void AppendMetadata(const StreamRecord& record, std::vector<Column>* members) const = 0;
  // The dead-letter columns that name a record (before `value` and `error`),
  // and one record's values for them.
  virtual Schema DeadLetterPlace() const = 0;
  virtual void AppendDeadLetterPlace(const StreamRecord& record, std::vector<Column>* columns) const = 0;
  // Where a text decoder's rescued values say they came from, and the
  // position it records for record `index` of the range.
  virtual formats::RescueLocation Rescue() const = 0;
  virtual int64_t RescuePosition(const StreamRecord& record, size_t index) const = 0;
};

struct DecodedRecords {
  RecordBatch rows;
  // The record (index into the range) of each row, ascending.
  std::vector<size_t> row_records;
  // Rows for <table>__dead_letter (DeadLetterSchema), in record order.
  RecordBatch dead_letters;
  // Per dead letter: its record and its error without the record's place.
  std::vector<size_t> dead_letter_records;
  std::vector<std::string> dead_letter_errors;
  int64_t tombstones = 0;
  int64_t payload_bytes = 0;  // keys plus values of every record
};

// The origin's place columns, then value (base64, null when the record had
// none) and error.
Schema DeadLetterSchema(const RecordOrigin& origin);

// Rows of one schema, and the record each came from (indexes into the
// range's records, ascending).
struct RecordPart {
  RecordBatch batch;
  std::vector<size_t> records;
};

struct RecordDeadLetter {
  size_t record = 0;
  std::string error;
};

// Counts record `index`'s key and value bytes into `out` and tells whether a
// format should skip it: a record without a value (a tombstone) is counted
// as one, a record the source could not take apart (StreamRecord::error)
// becomes a dead letter.
bool SkipRecord(const std::vector<StreamRecord>& records, size_t index, DecodedRecords* out,
                std::vector<RecordDeadLetter>* dead);

// The rows of `batch` (one per entry of `records`) whose entry of `errors` is
// empty become a part; the others become dead letters with their error.
Status AddRecordPart(RecordBatch batch, const std::vector<size_t>& records, std::vector<std::string> errors,
                     std::vector<RecordPart>* parts, std::vector<RecordDeadLetter>* dead);

// See the contract. `out` brings the format's tombstones and payload_bytes.
Result<DecodedRecords> AssembleDecodedRecords(const RecordOrigin& origin,
                                              const std::vector<StreamRecord>& records,
                                              std::vector<RecordPart> parts,
                                              std::vector<RecordDeadLetter> dead, bool metadata_column,
                                              DecodedRecords out);

// `decoded`'s dead letters rebuilt from `dead` (any order), as
// AssembleDecodedRecords builds them.
void BuildDeadLetters(const RecordOrigin& origin, const std::vector<StreamRecord>& records,
                      std::vector<RecordDeadLetter> dead, DecodedRecords* decoded);

// Rows found bad after decoding (Debezium's record key against its value,
// stream_unit_opener.h), by row of `decoded->rows` with their error: they
// leave the rows and join the dead letters in record order.
Status DeadLetterRows(const RecordOrigin& origin, const std::vector<StreamRecord>& records,
                      const std::vector<std::pair<int64_t, std::string>>& row_errors,
                      DecodedRecords* decoded);

// The index of the top-level field `name`, or -1.
int ColumnIndex(const Schema& schema, std::string_view name);

}  // namespace floe::ingest
