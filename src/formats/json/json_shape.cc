#include "formats/json/json_shape.h"

#include "formats/json/json_text.h"

namespace floe::json {
namespace {

using simdjson::ondemand::json_type;

void FoldScalar(const formats::InferredType& type, const JsonShapeContext& context, JsonShape* shape) {
  if (shape->kind == JsonShape::kNull) {
    shape->kind = JsonShape::kScalar;
    shape->scalar = type;
  } else if (shape->kind == JsonShape::kScalar) {
    context.inference->Widen(&shape->scalar, type);
  } else {
    shape->kind = JsonShape::kJsonText;
    shape->members.clear();
    shape->element.reset();
  }
}

// Makes *shape a `kind` container shape; false when it already is another kind
// (it then becomes JSON text).
bool BecomeContainer(JsonShape::Kind kind, JsonShape* shape) {
  if (shape->kind == JsonShape::kNull) shape->kind = kind;
  if (shape->kind == kind) return true;
  shape->kind = JsonShape::kJsonText;
  shape->members.clear();
  shape->element.reset();
  return false;
}

}  // namespace

bool ObserveJsonValue(simdjson::ondemand::value& value, const JsonShapeContext& context, int depth,
                      JsonShape* shape) {
  if (depth > context.max_depth) return false;
  json_type type;
  if (value.type().get(type)) return false;
  if (type == json_type::null) {
    bool is_null = false;
    return !value.is_null().get(is_null) && is_null;
  }
  if (!context.inference->options().infer_column_types) {
    // Every value is a string: the shape only needs to say "not null".
    shape->kind = JsonShape::kJsonText;
    return true;
  }
  switch (type) {
    case json_type::object: {
      if (!BecomeContainer(JsonShape::kObject, shape)) return true;
      simdjson::ondemand::object object;
      if (value.get_object().get(object)) return false;
      for (auto field_result : object) {
        simdjson::ondemand::field field;
        if (std::move(field_result).get(field)) return false;
        std::string_view key;
        if (field.unescaped_key().get(key)) return false;
        JsonShape* member = nullptr;
        for (auto& [name, member_shape] : shape->members) {
          if (name == key) member = &member_shape;
        }
        if (!member) {
          shape->members.emplace_back(std::string(key), JsonShape());
          member = &shape->members.back().second;
        }
        if (!ObserveJsonValue(field.value(), context, depth + 1, member)) return false;
        if (shape->kind != JsonShape::kObject) return true;
      }
      return true;
    }
    case json_type::array: {
      if (!BecomeContainer(JsonShape::kArray, shape)) return true;
      if (!shape->element) shape->element = std::make_unique<JsonShape>();
      simdjson::ondemand::array array;
      if (value.get_array().get(array)) return false;
      for (auto element_result : array) {
        simdjson::ondemand::value element;
        if (std::move(element_result).get(element)) return false;
        if (!ObserveJsonValue(element, context, depth + 1, shape->element.get())) return false;
      }
      return true;
    }
    case json_type::string: {
      if (shape->kind == JsonShape::kJsonText) return true;
      std::string_view text;
      if (value.get_string().get(text)) return false;
      FoldScalar(context.inference->ClassifyTemporal(text), context, shape);
      return true;
    }
    case json_type::number: {
      const std::string_view token = TrimJsonToken(value.raw_json_token());
      if (!IsJsonNumber(token)) return false;
      FoldScalar(formats::TextInference::ClassifyJsonNumber(formats::ClassifyNumberText(token)), context,
                 shape);
      return true;
    }
    case json_type::boolean: {
      bool ignored;
      if (value.get_bool().get(ignored)) return false;
      formats::InferredType boolean;
      boolean.kind = formats::InferredType::kBoolean;
      FoldScalar(boolean, context, shape);
      return true;
    }
    default: return false;
  }
}

DataType JsonShapeType(const JsonShape& shape, const JsonShapeContext& context,
                       std::vector<std::string>* path) {
  if (const DataType* hinted = context.hints ? context.hints->Find(*path) : nullptr) return *hinted;
  switch (shape.kind) {
    case JsonShape::kScalar: return context.inference->ToDataType(shape.scalar);
    case JsonShape::kObject: {
      if (context.nested_as_json) return String();
      std::vector<Field> members;
      for (const auto& [name, member] : shape.members) {
        path->push_back(name);
        members.push_back(MakeField(name, JsonShapeType(member, context, path)));
        path->pop_back();
      }
      return Struct(std::move(members));
    }
    case JsonShape::kArray: {
      if (context.nested_as_json) return String();
      // Hints name struct members, not list elements: a path part no name can equal.
      path->push_back(std::string(1, '\0'));
      DataType element = shape.element ? JsonShapeType(*shape.element, context, path) : String();
      path->pop_back();
      return List(MakeField("element", std::move(element)));
    }
    case JsonShape::kNull:
    case JsonShape::kJsonText: break;
  }
  return String();
}

}  // namespace floe::json
