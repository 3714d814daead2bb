#include "iceberg/spec/sort_order.h"

namespace floe::iceberg {

Status SortOrder::Validate(const Schema& schema) const {
  const std::string where = "sort order " + std::to_string(order_id);
  if (order_id == 0 && !fields.empty())
    return Status::InvalidArgument(where + ": order id 0 must be unsorted");
  if (order_id != 0 && fields.empty())
    return Status::InvalidArgument(where + ": an unsorted order must have id 0");
  for (const auto& f : fields) {
    const NestedField* source = schema.FindFieldById(f.source_id);
    if (source == nullptr) {
      return Status::InvalidArgument(where + ": source column id " + std::to_string(f.source_id) +
                                     " is not in the schema");
    }
    if (!f.transform.CanApply(source->type)) {
      return Status::InvalidArgument(where + ": transform " + f.transform.ToString() +
                                     " cannot sort column '" + source->name + "'");
    }
  }
  return Status::OK();
}

OrderedJson SortOrderToJson(const SortOrder& order) {
  OrderedJson out = OrderedJson::object();
  out["order-id"] = order.order_id;
  OrderedJson fields = OrderedJson::array();
  for (const auto& f : order.fields) {
    OrderedJson field = OrderedJson::object();
    field["transform"] = f.transform.ToString();
    field["source-id"] = f.source_id;
    field["direction"] = f.direction == SortDirection::kAsc ? "asc" : "desc";
    field["null-order"] = f.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
    fields.push_back(std::move(field));
  }
  out["fields"] = std::move(fields);
  return out;
}

Result<SortOrder> SortOrderFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "sort order"));
  SortOrder order;
  FLOE_ASSIGN_OR_RETURN(order.order_id, GetInt32(json, "order-id"));
  const std::string where = "sort order " + std::to_string(order.order_id);
  auto fields = GetArray(json, "fields");
  if (!fields.ok()) return fields.status().WithContext(where);
  for (const Json& item : **fields) {
    SortField field;
    auto parse = [&]() -> Status {
      FLOE_RETURN_IF_ERROR(RequireObject(item, "sort field"));
      FLOE_ASSIGN_OR_RETURN(std::string transform, GetString(item, "transform"));
      FLOE_ASSIGN_OR_RETURN(field.transform, Transform::Parse(transform));
      FLOE_ASSIGN_OR_RETURN(auto source_id, GetOptionalInt32(item, "source-id"));
      if (source_id) {
        field.source_id = *source_id;
      } else {
        FLOE_ASSIGN_OR_RETURN(const Json* source_ids, GetArray(item, "source-ids"));
        FLOE_ASSIGN_OR_RETURN(auto ids, Int32ListFromJson(*source_ids, "field 'source-ids'"));
        if (ids.size() != 1) {
          return Status::NotSupported("multi-argument transform '" + transform + "' is not supported");
        }
        field.source_id = ids[0];
      }
      FLOE_ASSIGN_OR_RETURN(std::string direction, GetString(item, "direction"));
      if (direction == "asc") {
        field.direction = SortDirection::kAsc;
      } else if (direction == "desc") {
        field.direction = SortDirection::kDesc;
      } else {
        return Status::Corruption("field 'direction' must be \"asc\" or \"desc\", got \"" + direction + "\"");
      }
      FLOE_ASSIGN_OR_RETURN(std::string null_order, GetString(item, "null-order"));
      if (null_order == "nulls-first") {
        field.null_order = NullOrder::kNullsFirst;
      } else if (null_order == "nulls-last") {
        field.null_order = NullOrder::kNullsLast;
      } else {
        return Status::Corruption("field 'null-order' must be \"nulls-first\" or \"nulls-last\", got \"" +
                                  null_order + "\"");
      }
      return Status::OK();
    };
    Status status = parse();
    if (!status.ok()) return status.WithContext(where);
    order.fields.push_back(std::move(field));
  }
  return order;
}

}  // namespace floe::iceberg
