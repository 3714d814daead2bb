// The inferred shape of a JSON field seen in many documents, and the column
// type it becomes: how JsonDocumentDecoder types new fields.
//
// Contract: Observe folds one JSON value into a shape: null leaves it unchanged; objects become struct shapes
// with members in first-appearance order; arrays list shapes with one element shape joining every element;
// scalars an InferredType (numbers by their literal, strings as dates/timestamps when they parse, booleans);
// any other mix of kinds (an object here, a number there) a JSON-text shape, i.e. a string column of each
// value's JSON text. With infer_column_types = false every shape is a JSON-text shape (a string column), as
// Auto Loader types JSON by default. TypeOf applies schema hints by path and nested_as_json. Not thread-safe
// (Observe mutates); TypeOf and FormatsOf are const.
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "formats/schema_hints.h"
#include "formats/text_inference.h"

namespace floe::json {

struct JsonShape {
  enum Kind : uint8_t { kNull, kScalar, kObject, kArray, kJsonText };
  Kind kind = kNull;
  formats::InferredType scalar;
  std::vector<std::pair<std::string, JsonShape>> members;  // kObject
  std::unique_ptr<JsonShape> element;                      // kArray

  JsonShape() = default;
  JsonShape(JsonShape&&) = default;
  JsonShape& operator=(JsonShape&&) = default;
};

struct JsonShapeContext {
  const formats::TextInference* inference = nullptr;
  const formats::SchemaHints* hints = nullptr;
  bool nested_as_json = false;
  int max_depth = 64;
};

// Folds `value` into *shape; false when the value is not valid JSON (the
// caller validated it first, so this is a defect or a depth overrun).
bool ObserveJsonValue(simdjson::ondemand::value& value, const JsonShapeContext& context, int depth,
                      JsonShape* shape);

// The column type of a shape found at `path`.
DataType JsonShapeType(const JsonShape& shape, const JsonShapeContext& context,
                       std::vector<std::string>* path);

}  // namespace floe::json
