// Kafka records of one offset range as rows: what every record format of a
// Kafka source shares (kafka_json_records.h, kafka_avro_records.h).
//
// Contract of AssembleDecodedRecords: a format decodes a range's records
// into parts, each a batch of rows of one schema with the record (index
// into the range) of every row, and dead letters (a record and what was
// wrong). The result has
// - rows: the union of the parts' schemas — members by name, the older
//   rows null in members they lack, integers and floats widened, the
//   newest part (by its last record) deciding the order — in offset order;
//   a part whose schema cannot join the union (a member changed to an
//   unrelated type) becomes dead letters;
// - with `metadata_column`, the struct column `kafka` (topic, partition,
//   offset, timestamp, key) on every row;
// - dead_letters: every dead letter in offset order, with its raw key and
//   value (base64) and its error prefixed by topic, partition and offset.
// Pure: thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"

namespace floe::ingest {

// One record as fetched, its bytes copied out of the client.
struct StreamRecord {
  int64_t offset = 0;
  int64_t timestamp_ms = -1;  // -1: none
  std::optional<std::string> key;
  std::optional<std::string> value;
};

struct DecodedRecords {
  RecordBatch rows;
  // Rows for <table>__dead_letter (DeadLetterSchema), in offset order.
  RecordBatch dead_letters;
  int64_t tombstones = 0;
  int64_t payload_bytes = 0;  // keys plus values of every record
};

// topic, partition, offset, timestamp, key and value (base64, null when the
// record had none) and error.
Schema DeadLetterSchema();

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

// Counts `record`'s key and value bytes into `out`; a record without a value
// (a tombstone) is counted as one and true returned.
bool CountRecord(const StreamRecord& record, DecodedRecords* out);

// The rows of `batch` (one per entry of `records`) whose entry of `errors` is
// empty become a part; the others become dead letters with their error.
Status AddRecordPart(RecordBatch batch, const std::vector<size_t>& records, std::vector<std::string> errors,
                     std::vector<RecordPart>* parts, std::vector<RecordDeadLetter>* dead);

// See the contract. `out` brings the format's tombstones and payload_bytes.
Result<DecodedRecords> AssembleDecodedRecords(const std::string& topic, int32_t partition,
                                              const std::vector<StreamRecord>& records,
                                              std::vector<RecordPart> parts,
                                              std::vector<RecordDeadLetter> dead, bool metadata_column,
                                              DecodedRecords out);

// The index of the top-level field `name`, or -1.
int ColumnIndex(const Schema& schema, std::string_view name);

}  // namespace floe::ingest
