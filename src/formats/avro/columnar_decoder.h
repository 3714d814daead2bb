// Avro -> floe columns: the schema mapping, and AvroColumnarDecoder, which
// appends Avro datums (binary, writer schema) straight to column builders.
// Container files (avro_file_reader.h) and Confluent-framed stream records
// use the same decoder.
//
// Contract (schema mapping):
// - A record is the batch's columns (nested records are structs); a writer
//   schema that is not a record is one column named "value".
// - null-unions: [null, X] (either order) is X, nullable. Any other union
//   (["int", "string"], ["null", "int", "string"]) becomes, as Iceberg's
//   Avro reader reads it, struct<tag: int32, field0: T0, field1: T1, ...>:
//   tag is the index of the branch among the non-null branches, fieldN holds
//   the value of branch N (the others null); a null value is a null struct.
// - boolean, int, long, float, double, string, bytes map to their types;
//   enum -> string (the symbol); fixed(n) -> fixed[n]; array -> list; map ->
//   map<string, V>. Logical types: decimal(p,s) on bytes or fixed ->
//   decimal(p,s) (p <= 38); uuid on string or fixed(16) -> uuid; date ->
//   date; time-millis / time-micros -> time[ms] / time[us]; timestamp-millis /
//   -micros / -nanos -> timestamp[ms|us|ns, utc] (local-timestamp-* and an
//   Iceberg "adjust-to-utc": false attribute -> without zone); duration ->
//   fixed[12]. A logical type on the wrong base type is ignored, as the
//   Avro spec says.
// - A field is nullable exactly when its type is a union with null. An
//   Iceberg "field-id" (and "element-id", "key-id", "value-id") becomes the
//   field's id.
// - Recursive records have no columnar form: NotSupported naming the type.
// - Field aliases are reported, not applied: aliases() lists every field
//   (by path) that declares aliases, so a caller whose table has a column
//   named after an alias can read this field as that column (Avro's rule:
//   aliases are a field's earlier names).
// Contract (decoding): Append reads exactly one datum; on any error the
// batch is as before the call (the datum's partial values are undone) and
// the error names the field path and byte offset. Values are checked as
// Avro's decoder checks them (lengths, union and enum indexes, item
// allowance), and a decimal must fit 16 bytes, a uuid string must parse.
// Columns not selected are decoded and checked but not built.
// Not thread-safe; one decoder per thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/avro/decoder.h"
#include "formats/avro/schema.h"

namespace floe::avro {

struct AvroFieldAliases {
  std::vector<std::string> path;  // {"address", "zip"}
  std::vector<std::string> aliases;
};

struct AvroColumnarSchema {
  Schema schema;
  std::vector<AvroFieldAliases> aliases;
  bool wrapped = false;  // the writer schema is not a record: one column "value"
};

Result<AvroColumnarSchema> AvroToColumnarSchema(const AvroSchema& schema);

class AvroColumnarDecoder {
 public:
  // `columns`: indexes into the columnar schema to build, in that order
  // (empty = all).
  static Result<std::unique_ptr<AvroColumnarDecoder>> Make(const AvroSchema& writer,
                                                           const std::vector<int>& columns = {});
  ~AvroColumnarDecoder();

  const AvroColumnarSchema& columnar() const;
  int64_t num_rows() const;
  // Decodes one datum from `decoder` (advancing it) as the next row.
  Status Append(AvroDecoder* decoder);
  // The rows so far (selected columns); the decoder starts a new batch.
  RecordBatch Finish();

  struct Plan;

 private:
  AvroColumnarDecoder() = default;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace floe::avro
