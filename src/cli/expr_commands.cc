// `floe expr check|eval`: try expressions of the transform and expectation
// language (docs/expressions.md) before putting them in a config. The
// handlers parse options and call src/expr; rows print as JSON lines in the
// `floe parquet cat` value format.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "columnar/json_format.h"
#include "expr/expr_types.h"
#include "expr/expression.h"
#include "expr/value_text.h"
#include "formats/parquet/file_reader.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

int Fail(const Status& status) {
  std::cerr << "floe: " << status.message() << "\n";
  return 1;
}

Result<std::unique_ptr<parquet::ParquetFileReader>> OpenParquetFile(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(path));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> file, io->OpenRead(path));
  return parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(file)));
}

struct CheckOptions {
  std::string expression;
  std::string schema_from;
};

int RunCheck(const CheckOptions& options) {
  Schema schema;
  if (!options.schema_from.empty()) {
    auto reader = OpenParquetFile(options.schema_from);
    if (!reader.ok()) return Fail(reader.status());
    schema = (*reader)->schema();
  }
  auto bound = expr::Expression::Bind(options.expression, schema);
  if (!bound.ok()) return Fail(bound.status());
  std::cout << expr::TypeName(bound->type()) << "\n";
  return 0;
}

struct EvalOptions {
  std::string path;
  std::vector<std::string> selects;
  std::string where;
  int64_t limit = -1;
  std::string ingestion_time;
};

// "name=EXPR" when the text before the first '=' is a plain identifier,
// else the whole text is the expression and names its column.
std::pair<std::string, std::string> SplitSelect(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq != std::string::npos && eq > 0) {
    bool identifier = true;
    for (size_t i = 0; i < eq; ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (!(std::isalnum(c) || c == '_') || (i == 0 && std::isdigit(c))) identifier = false;
    }
    const bool comparison = eq + 1 < text.size() && text[eq + 1] == '=';
    if (identifier && !comparison) return {text.substr(0, eq), text.substr(eq + 1)};
  }
  return {text, text};
}

int RunEval(const EvalOptions& options) {
  auto reader = OpenParquetFile(options.path);
  if (!reader.ok()) return Fail(reader.status());
  const Schema& file_schema = (*reader)->schema();

  expr::EvalContext context;
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  if (!options.ingestion_time.empty()) {
    auto parsed = expr::ParseTimestamp(options.ingestion_time);
    if (!parsed) {
      return Fail(
          Status::InvalidArgument("--ingestion-time '" + options.ingestion_time + "' is not a timestamp"));
    }
    now = *parsed;
  }
  context.ingestion_time_us = now;
  context.current_timestamp_us = now;
  context.source_file = options.path;

  // Bind against the file's schema to learn which columns are read, then
  // against just those columns, which are all the reader decodes.
  std::vector<std::pair<std::string, std::string>> selects;
  for (const std::string& s : options.selects) selects.push_back(SplitSelect(s));
  std::vector<int> needed;
  auto collect = [&](const std::string& text) -> Status {
    FLOE_ASSIGN_OR_RETURN(expr::Expression e, expr::Expression::Bind(text, file_schema));
    needed.insert(needed.end(), e.input_columns().begin(), e.input_columns().end());
    return Status::OK();
  };
  for (const auto& [name, text] : selects) {
    if (Status s = collect(text); !s.ok()) return Fail(s);
  }
  if (!options.where.empty()) {
    if (Status s = collect(options.where); !s.ok()) return Fail(s);
  }
  if (selects.empty()) {
    for (size_t i = 0; i < file_schema.size(); ++i) needed.push_back(static_cast<int>(i));
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  Schema projected;
  for (int i : needed) projected.push_back(file_schema[static_cast<size_t>(i)]);

  std::vector<expr::Expression> expressions;
  Schema output_schema;
  for (const auto& [name, text] : selects) {
    auto e = expr::Expression::Bind(text, projected);
    if (!e.ok()) return Fail(e.status());
    output_schema.push_back(MakeField(name, e->type()));
    expressions.push_back(std::move(*e));
  }
  std::optional<expr::Expression> where;
  if (!options.where.empty()) {
    auto e = expr::Expression::Bind(options.where, projected);
    if (!e.ok()) return Fail(e.status());
    if (e->type().id != TypeId::kBool) {
      return Fail(Status::InvalidArgument("--where expression \"" + options.where + "\" is " +
                                          expr::TypeName(e->type()) + ", not boolean"));
    }
    where = std::move(*e);
  }

  std::string out;
  int64_t remaining = options.limit;
  int64_t first_row = 0;
  for (int g = 0; g < (*reader)->num_row_groups() && remaining != 0; ++g) {
    RecordBatch batch;
    if (needed.empty()) {
      batch.num_rows = (*reader)->metadata().row_groups[static_cast<size_t>(g)].num_rows;
    } else {
      auto read = (*reader)->ReadRowGroup(g, needed);
      if (!read.ok()) {
        std::cout << out;
        return Fail(read.status());
      }
      batch = std::move(*read);
    }
    context.first_source_row = first_row;
    first_row += batch.num_rows;
    std::vector<int32_t> rows;
    if (where) {
      auto selected = where->TrueRows(batch, context);
      if (!selected.ok()) {
        std::cout << out;
        return Fail(selected.status());
      }
      rows = std::move(*selected);
    } else {
      rows.resize(static_cast<size_t>(batch.num_rows));
      for (int64_t i = 0; i < batch.num_rows; ++i) rows[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    }
    RecordBatch result;
    if (selects.empty()) {
      result = std::move(batch);
    } else {
      result.schema = output_schema;
      result.num_rows = batch.num_rows;
      for (const expr::Expression& e : expressions) {
        auto column = e.Evaluate(batch, context);
        if (!column.ok()) {
          std::cout << out;
          return Fail(column.status());
        }
        result.columns.push_back(std::move(*column));
      }
    }
    for (int32_t row : rows) {
      if (remaining == 0) break;
      AppendJsonRow(result, row, &out);
      out.push_back('\n');
      if (remaining > 0) --remaining;
      if (out.size() > (1 << 20)) {
        std::cout << out;
        out.clear();
      }
    }
  }
  std::cout << out;
  std::cout.flush();
  return 0;
}

}  // namespace

void RegisterExprCommands(CLI::App& app, ExitCode& exit_code) {
  auto* group = app.add_subcommand("expr", "Try expressions of the transform and expectation language");
  group->require_subcommand(1);

  auto* check = group->add_subcommand("check", "Parse and type-check an expression; print its result type");
  auto check_options = std::make_shared<CheckOptions>();
  check->add_option("expression", check_options->expression, "The expression")->required();
  check->add_option("--schema-from", check_options->schema_from,
                    "Parquet file whose columns the expression reads");
  check->callback([check_options, &exit_code] { exit_code.value = RunCheck(*check_options); });

  auto* eval = group->add_subcommand("eval", "Evaluate expressions over a Parquet file's rows (JSON lines)");
  auto eval_options = std::make_shared<EvalOptions>();
  eval->add_option("file", eval_options->path, "Parquet file")->required();
  eval->add_option("--select", eval_options->selects,
                   "name=EXPR: an output column (repeatable; default: all columns)");
  eval->add_option("--where", eval_options->where,
                   "Print only the rows where this boolean expression is true");
  eval->add_option("--limit", eval_options->limit, "Print at most N rows");
  eval->add_option("--ingestion-time", eval_options->ingestion_time,
                   "Timestamp for ingestion_time() and current_timestamp (default: now)");
  eval->callback([eval_options, &exit_code] { exit_code.value = RunEval(*eval_options); });
}

}  // namespace floe::cli
