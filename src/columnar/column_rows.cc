#include "columnar/column_rows.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace floe {

namespace {

void SetValidity(const Column& source, const std::vector<int64_t>& indices, Column* out) {
  out->length = static_cast<int64_t>(indices.size());
  out->null_count = 0;
  out->validity.clear();
  if (source.validity.empty() || source.null_count == 0) return;
  out->validity.assign((indices.size() + 7) / 8, 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (source.IsValid(indices[i])) {
      out->validity[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    } else {
      ++out->null_count;
    }
  }
  if (out->null_count == 0) out->validity.clear();
}

}  // namespace

Result<Column> TakeRows(const Column& column, const std::vector<int64_t>& indices) {
  for (int64_t index : indices) {
    if (index < 0 || index >= column.length) {
      return Status::InvalidArgument("row " + std::to_string(index) + " is outside a column of " +
                                     std::to_string(column.length) + " rows");
    }
  }
  Column out(column.type);
  SetValidity(column, indices, &out);
  const DataType& type = column.type;
  const int32_t width = type.fixed_width();
  if (width > 0) {
    out.values.resize(indices.size() * static_cast<size_t>(width));
    for (size_t i = 0; i < indices.size(); ++i) {
      std::copy_n(column.values.data() + static_cast<size_t>(indices[i]) * static_cast<size_t>(width), width,
                  out.values.data() + i * static_cast<size_t>(width));
    }
    return out;
  }
  switch (type.id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      out.offsets.assign(1, 0);
      out.offsets.reserve(indices.size() + 1);
      for (int64_t index : indices) {
        const int64_t begin = column.offsets[static_cast<size_t>(index)];
        const int64_t end = column.offsets[static_cast<size_t>(index) + 1];
        out.data.insert(out.data.end(), column.data.begin() + begin, column.data.begin() + end);
        out.offsets.push_back(static_cast<int64_t>(out.data.size()));
      }
      return out;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      std::vector<int64_t> child_rows;
      out.offsets.assign(1, 0);
      out.offsets.reserve(indices.size() + 1);
      for (int64_t index : indices) {
        for (int64_t r = column.offsets[static_cast<size_t>(index)];
             r < column.offsets[static_cast<size_t>(index) + 1]; ++r) {
          child_rows.push_back(r);
        }
        out.offsets.push_back(static_cast<int64_t>(child_rows.size()));
      }
      out.children.clear();
      for (const Column& child : column.children) {
        FLOE_ASSIGN_OR_RETURN(Column taken, TakeRows(child, child_rows));
        out.children.push_back(std::move(taken));
      }
      return out;
    }
    case TypeId::kStruct: {
      out.children.clear();
      for (const Column& child : column.children) {
        FLOE_ASSIGN_OR_RETURN(Column taken, TakeRows(child, indices));
        out.children.push_back(std::move(taken));
      }
      return out;
    }
    default: break;
  }
  return Status::NotSupported("row selection on " + type.ToString() + " columns");
}

Result<RecordBatch> TakeBatchRows(const RecordBatch& batch, const std::vector<int64_t>& indices) {
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = static_cast<int64_t>(indices.size());
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    auto column = TakeRows(batch.columns[i], indices);
    if (!column.ok()) return column.status().WithContext("column " + batch.schema[i].name);
    out.columns.push_back(std::move(column).value());
  }
  return out;
}

Result<RecordBatch> SliceBatch(const RecordBatch& batch, int64_t begin, int64_t end) {
  if (begin < 0 || end < begin || end > batch.num_rows) {
    return Status::InvalidArgument("slice [" + std::to_string(begin) + ", " + std::to_string(end) +
                                   ") of a batch of " + std::to_string(batch.num_rows) + " rows");
  }
  std::vector<int64_t> indices(static_cast<size_t>(end - begin));
  std::iota(indices.begin(), indices.end(), begin);
  return TakeBatchRows(batch, indices);
}

Status AppendColumn(const Column& source, Column* target) {
  if (!(source.type == target->type)) {
    return Status::InvalidArgument("cannot append a " + source.type.ToString() + " column to a " +
                                   target->type.ToString() + " column");
  }
  const int64_t old_length = target->length;
  const int64_t new_length = old_length + source.length;
  if (!source.validity.empty() || !target->validity.empty()) {
    std::vector<uint8_t> validity(static_cast<size_t>((new_length + 7) / 8), 0);
    for (int64_t i = 0; i < new_length; ++i) {
      const bool valid = i < old_length ? target->IsValid(i) : source.IsValid(i - old_length);
      if (valid) validity[static_cast<size_t>(i >> 3)] |= static_cast<uint8_t>(1u << (i & 7));
    }
    target->validity = std::move(validity);
  }
  target->null_count += source.null_count;
  target->length = new_length;
  target->values.insert(target->values.end(), source.values.begin(), source.values.end());
  if (!source.offsets.empty() && !target->offsets.empty()) {
    const int64_t base = target->offsets.back();
    const int64_t source_base = source.offsets.front();
    for (size_t i = 1; i < source.offsets.size(); ++i)
      target->offsets.push_back(base + source.offsets[i] - source_base);
  }
  target->data.insert(target->data.end(), source.data.begin(), source.data.end());
  if (source.children.size() != target->children.size())
    return Status::InvalidArgument("child count mismatch");
  for (size_t c = 0; c < source.children.size(); ++c) {
    FLOE_RETURN_IF_ERROR(AppendColumn(source.children[c], &target->children[c]));
  }
  return Status::OK();
}

Result<RecordBatch> ConcatBatches(const std::vector<RecordBatch>& batches) {
  RecordBatch out;
  if (batches.empty()) return out;
  out.schema = batches[0].schema;
  for (const Field& field : out.schema) out.columns.push_back(MakeEmptyColumn(field.type));
  for (const RecordBatch& batch : batches) {
    if (batch.columns.size() != out.columns.size())
      return Status::InvalidArgument("batches differ in columns");
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      FLOE_RETURN_IF_ERROR(AppendColumn(batch.columns[c], &out.columns[c]));
    }
    out.num_rows += batch.num_rows;
  }
  return out;
}

}  // namespace floe
