#include "expr/expression.h"

#include <algorithm>

#include "expr/binder.h"
#include "expr/evaluator.h"
#include "expr/parser.h"

namespace floe::expr {
namespace {

void CollectInputs(const BoundExpr& e, std::vector<int>* out) {
  if (e.kind == BoundKind::kColumn) out->push_back(e.column_path[0]);
  for (const BoundExpr& child : e.children) CollectInputs(child, out);
}

std::string Quoted(const std::string& text) {
  std::string shown = text.size() > 200 ? text.substr(0, 200) + "..." : text;
  return "expression \"" + shown + "\"";
}

}  // namespace

Result<Expression> Expression::Bind(std::string_view text, const Schema& schema) {
  Expression expression;
  expression.text_ = std::string(text);
  Result<std::unique_ptr<ParsedExpr>> parsed = ParseExpression(text);
  if (!parsed.ok()) return parsed.status().WithContext(Quoted(expression.text_));
  Result<BoundExpr> bound = expr::Bind(**parsed, schema);
  if (!bound.ok()) return bound.status().WithContext(Quoted(expression.text_));
  expression.bound_ = std::make_shared<const BoundExpr>(std::move(*bound));
  CollectInputs(*expression.bound_, &expression.inputs_);
  std::sort(expression.inputs_.begin(), expression.inputs_.end());
  expression.inputs_.erase(std::unique(expression.inputs_.begin(), expression.inputs_.end()),
                           expression.inputs_.end());
  for (int i : expression.inputs_) expression.input_types_.push_back(schema[static_cast<size_t>(i)].type);
  return expression;
}

Status Expression::CheckSyntax(std::string_view text) {
  Result<std::unique_ptr<ParsedExpr>> parsed = ParseExpression(text);
  if (!parsed.ok()) return parsed.status().WithContext(Quoted(std::string(text)));
  return Status::OK();
}

bool Expression::can_error() const {
  return bound_->can_error;
}

const DataType& Expression::type() const {
  return bound_->type;
}

Status Expression::CheckBatch(const RecordBatch& batch) const {
  for (size_t k = 0; k < inputs_.size(); ++k) {
    const size_t i = static_cast<size_t>(inputs_[k]);
    if (i >= batch.columns.size() || i >= batch.schema.size()) {
      return Status::InvalidArgument(Quoted(text_) + ": the batch has no column " + std::to_string(i));
    }
    if (!(batch.schema[i].type == input_types_[k]) || batch.columns[i].length != batch.num_rows) {
      return Status::InvalidArgument(Quoted(text_) + ": batch column '" + batch.schema[i].name + "' is " +
                                     batch.schema[i].type.ToString() + ", bound as " +
                                     input_types_[k].ToString());
    }
  }
  return Status::OK();
}

Result<Column> Expression::Evaluate(const RecordBatch& batch, const EvalContext& context) const {
  FLOE_RETURN_IF_ERROR(CheckBatch(batch));
  if (batch.num_rows > INT32_MAX) return Status::InvalidArgument(Quoted(text_) + ": batch too large");
  Frame frame{&batch, nullptr, batch.num_rows};
  Result<Vector> v = EvaluateBound(*bound_, frame, context);
  if (!v.ok()) return v.status().WithContext(Quoted(text_));
  Column out = Materialize(*v, batch.num_rows);
  out.type = bound_->type;
  ZeroNullSlots(&out);
  return out;
}

Result<std::vector<int32_t>> Expression::TrueRows(const RecordBatch& batch,
                                                  const EvalContext& context) const {
  if (bound_->type.id != TypeId::kBool) {
    return Status::InvalidArgument(Quoted(text_) + " is " + bound_->type.ToString() +
                                   ", not a boolean predicate");
  }
  FLOE_RETURN_IF_ERROR(CheckBatch(batch));
  Frame frame{&batch, nullptr, batch.num_rows};
  Result<Vector> v = EvaluateBound(*bound_, frame, context);
  if (!v.ok()) return v.status().WithContext(Quoted(text_));
  std::vector<int32_t> rows;
  const Column& c = v->col();
  if (v->constant) {
    if (c.IsValid(0) && c.values[0]) {
      rows.resize(static_cast<size_t>(batch.num_rows));
      for (int64_t i = 0; i < batch.num_rows; ++i) rows[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    }
    return rows;
  }
  int64_t count = 0;
  for (int64_t i = 0; i < batch.num_rows; ++i) count += c.values[static_cast<size_t>(i)] != 0;
  rows.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    if (c.values[static_cast<size_t>(i)] && c.IsValid(i)) rows.push_back(static_cast<int32_t>(i));
  }
  return rows;
}

}  // namespace floe::expr
