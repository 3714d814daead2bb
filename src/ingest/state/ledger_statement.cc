// LedgerStatement: one statement of the ledger's SQL on SQLite or PostgreSQL.
#include <algorithm>
#include <cstdlib>

#include "ingest/state/ledger_database.h"

namespace floe::ingest {

LedgerStatement::LedgerStatement(const SqliteDatabase* database, SqliteStatement statement)
    : sqlite_database_(database), sqlite_(std::move(statement)) {}

LedgerStatement::LedgerStatement(sql::SqlConnection* connection, std::string sql)
    : connection_(connection), sql_(std::move(sql)) {
  // As on SQLite, a placeholder left unbound is NULL: PostgreSQL needs every one of them sent.
  size_t count = 0;
  for (size_t i = 0; i < sql_.size(); ++i) {
    if (sql_[i] != '?') continue;
    size_t number = 0;
    while (i + 1 < sql_.size() && sql_[i + 1] >= '0' && sql_[i + 1] <= '9') {
      number = number * 10 + static_cast<size_t>(sql_[++i] - '0');
    }
    count = std::max(count, number);
  }
  params_.resize(count);
}

LedgerStatement& LedgerStatement::Bind(int index, int64_t value) {
  if (sqlite_) {
    sqlite_->Bind(index, value);
    return *this;
  }
  return Bind(index, std::to_string(value));
}

LedgerStatement& LedgerStatement::Bind(int index, const std::string& value) {
  if (sqlite_) {
    sqlite_->Bind(index, value);
    return *this;
  }
  if (params_.size() < static_cast<size_t>(index)) params_.resize(static_cast<size_t>(index));
  params_[static_cast<size_t>(index) - 1] = value;
  return *this;
}

Result<bool> LedgerStatement::Step() {
  if (sqlite_) return sqlite_->Step();
  if (!result_) {
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult result, connection_->Execute(sql_, params_));
    changes_ = result.rows_affected;
    result_ = std::move(result);
    next_row_ = 0;
  }
  if (next_row_ >= result_->rows.size()) return false;
  ++next_row_;
  return true;
}

Status LedgerStatement::Run() {
  if (sqlite_) {
    FLOE_RETURN_IF_ERROR(sqlite_->Run());
    changes_ = sqlite_database_->Changes();
    return Status::OK();
  }
  result_.reset();
  FLOE_RETURN_IF_ERROR(Step().status());
  result_.reset();
  return Status::OK();
}

void LedgerStatement::Reset() {
  if (sqlite_) {
    sqlite_->Reset();
    return;
  }
  result_.reset();
}

const sql::SqlValue& LedgerStatement::Cell(int column) const {
  static const sql::SqlValue kNull;
  if (!result_ || next_row_ == 0) return kNull;
  const sql::SqlRow& row = result_->rows[next_row_ - 1];
  return static_cast<size_t>(column) < row.size() ? row[static_cast<size_t>(column)] : kNull;
}

int64_t LedgerStatement::Int(int column) const {
  if (sqlite_) return sqlite_->Int(column);
  const sql::SqlValue& cell = Cell(column);
  // PostgreSQL sends integers (and sum()'s numeric) as decimal text.
  return cell ? std::strtoll(cell->c_str(), nullptr, 10) : 0;
}

std::optional<int64_t> LedgerStatement::OptionalInt(int column) const {
  if (sqlite_) return sqlite_->OptionalInt(column);
  if (!Cell(column)) return std::nullopt;
  return Int(column);
}

std::string LedgerStatement::Text(int column) const {
  if (sqlite_) return sqlite_->Text(column);
  return Cell(column).value_or("");
}

std::optional<std::string> LedgerStatement::OptionalText(int column) const {
  if (sqlite_) return sqlite_->OptionalText(column);
  return Cell(column);
}

}  // namespace floe::ingest
