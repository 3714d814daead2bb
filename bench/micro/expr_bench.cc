// The expression language over a CDA-shaped batch (100,000 rows of a
// Guidewire export part: seqval, operation, ids, a decimal amount and its
// currency, statuses, timestamps, a long description; 5-10% nulls): five
// expectation predicates and three derived columns, each alone and all
// eight together, as a pipeline batch would run them. items/s are rows per
// second; the "all" figure is what issue 18's "five expectations and three
// derived columns cost <= 10% of M full-load time" compares once wired.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "expr/expression.h"

namespace {

using floe::Column;
using floe::RecordBatch;
using floe::expr::EvalContext;
using floe::expr::Expression;

constexpr int64_t kRows = 100'000;

const RecordBatch& Batch() {
  static const RecordBatch batch = [] {
    using namespace floe;
    RecordBatch b;
    b.schema = {MakeField("gwcbi___seqval_hex", String()),
                MakeField("gwcbi___operation", Int32()),
                MakeField("id", Int64()),
                MakeField("publicid", String()),
                MakeField("amount", Decimal(18, 2)),
                MakeField("currency", String()),
                MakeField("status", String()),
                MakeField("createtime", Timestamp(TimeUnit::kMicro, true)),
                MakeField("updatetime", Timestamp(TimeUnit::kMicro, true)),
                MakeField("retired", Int64()),
                MakeField("description", String())};
    for (const Field& f : b.schema) b.columns.push_back(MakeEmptyColumn(f.type));
    std::mt19937_64 random(7);
    const char* currencies[] = {"EUR", "USD", "GBP", "CHF"};
    const char* statuses[] = {"open", "closed", "pending", "draft", "  open "};
    char hex[17];
    for (int64_t r = 0; r < kRows; ++r) {
      auto& c = b.columns;
      const uint64_t x = random();
      std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(x));
      c[0].AppendBytes(hex);
      c[1].AppendValue<int32_t>(x % 10 == 0 ? 1 : x % 3 == 0 ? 2 : 4);
      if (x % 97 == 0)
        c[2].AppendNull();
      else
        c[2].AppendValue<int64_t>(r);
      c[3].AppendBytes("pc:" + std::to_string(r * 7));
      if (x % 13 == 0)
        c[4].AppendNull();
      else
        c[4].AppendValue<__int128>(static_cast<__int128>(x % 2000000) - 100000);
      c[5].AppendBytes(currencies[(x >> 8) % 4]);
      if (x % 17 == 0)
        c[6].AppendNull();
      else
        c[6].AppendBytes(statuses[(x >> 12) % 5]);
      const int64_t created = 1700000000000000LL + static_cast<int64_t>((x >> 16) % 100000000000000ULL);
      c[7].AppendValue<int64_t>(created);
      if (x % 11 == 0)
        c[8].AppendNull();
      else
        c[8].AppendValue<int64_t>(created + static_cast<int64_t>(x % 1000000000));
      c[9].AppendValue<int64_t>(x % 50 == 0 ? 1 : 0);
      c[10].AppendBytes(std::string(40 + x % 200, static_cast<char>('a' + x % 26)));
    }
    b.num_rows = kRows;
    return b;
  }();
  return batch;
}

const std::vector<std::string> kExpectations = {
    "id IS NOT NULL",
    "amount > 0",
    "status IN ('open', 'closed', 'pending')",
    "publicid LIKE 'pc:%'",
    "updatetime >= createtime AND retired = 0",
};
const std::vector<std::string> kDerived = {
    "CASE WHEN currency = 'EUR' THEN amount * 1.09 WHEN currency = 'GBP' THEN amount * 1.27 ELSE amount END",
    "to_date(createtime)",
    "upper(trim(status))",
};

Expression Bound(const std::string& text) {
  auto e = Expression::Bind(text, Batch().schema);
  if (!e.ok()) std::abort();
  return std::move(*e);
}

void BM_Expectation(benchmark::State& state) {
  const Expression e = Bound(kExpectations[static_cast<size_t>(state.range(0))]);
  state.SetLabel(e.text());
  EvalContext context;
  for (auto _ : state) {
    auto rows = e.TrueRows(Batch(), context);
    benchmark::DoNotOptimize(rows);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_Expectation)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_Derived(benchmark::State& state) {
  const Expression e = Bound(kDerived[static_cast<size_t>(state.range(0))]);
  state.SetLabel(e.text());
  EvalContext context;
  for (auto _ : state) {
    auto column = e.Evaluate(Batch(), context);
    benchmark::DoNotOptimize(column);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_Derived)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Five expectations and three derived columns over one batch.
void BM_AllEight(benchmark::State& state) {
  std::vector<Expression> expectations, derived;
  for (const auto& t : kExpectations) expectations.push_back(Bound(t));
  for (const auto& t : kDerived) derived.push_back(Bound(t));
  EvalContext context;
  for (auto _ : state) {
    for (const Expression& e : expectations) {
      auto rows = e.TrueRows(Batch(), context);
      benchmark::DoNotOptimize(rows);
    }
    for (const Expression& e : derived) {
      auto column = e.Evaluate(Batch(), context);
      benchmark::DoNotOptimize(column);
    }
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_AllEight)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
