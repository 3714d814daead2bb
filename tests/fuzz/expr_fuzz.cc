// Fuzzes the expression language: any text must parse and bind to an
// expression or give a positioned error, and a bound expression must
// evaluate over a small batch with nulls to a valid column or an error —
// never a crash, a sanitizer report, an exception or unbounded work.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "expr/expression.h"

namespace {

floe::RecordBatch MakeBatch() {
  using namespace floe;
  RecordBatch b;
  b.schema = {MakeField("i", Int32()),
              MakeField("b", Int64()),
              MakeField("t", Int8()),
              MakeField("d", Decimal(18, 2)),
              MakeField("w", Decimal(38, 10)),
              MakeField("x", Float64()),
              MakeField("f", Float32()),
              MakeField("s", String()),
              MakeField("ok", Bool()),
              MakeField("dt", Date()),
              MakeField("ts", Timestamp(TimeUnit::kMicro, false)),
              MakeField("tz", Timestamp(TimeUnit::kNano, true)),
              MakeField("u", Uuid()),
              MakeField("bin", Binary()),
              MakeField("st", Struct({MakeField("a", Int32()), MakeField("s", String())})),
              MakeField("l", List(MakeField("element", Int32())))};
  for (const Field& f : b.schema) b.columns.push_back(MakeEmptyColumn(f.type));
  const int32_t ints[] = {0, -1, 2147483647, -2147483647 - 1};
  const int64_t longs[] = {0, -1, INT64_MAX, INT64_MIN};
  const char* strings[] = {"", "héllo", "12", "2024-02-29 10:00:00+02"};
  const double doubles[] = {0.0, -0.0, 1e308, __builtin_nan("")};
  for (int r = 0; r < 5; ++r) {
    auto& c = b.columns;
    if (r == 4) {
      for (Column& column : c) column.AppendNull();
      continue;
    }
    c[0].AppendValue(ints[r]);
    c[1].AppendValue(longs[r]);
    c[2].AppendValue<int8_t>(static_cast<int8_t>(r * 60 - 100));
    c[3].AppendValue<__int128>(static_cast<__int128>(longs[r] % 1000000000000000000LL));
    c[4].AppendValue<__int128>(r == 2 ? (static_cast<__int128>(INT64_MAX) * INT64_MAX) : r);
    c[5].AppendValue(doubles[r]);
    c[6].AppendValue(static_cast<float>(doubles[r]));
    c[7].AppendBytes(strings[r]);
    c[8].AppendValue<uint8_t>(r & 1);
    c[9].AppendValue<int32_t>(r == 2 ? INT32_MAX : r * 1000);
    c[10].AppendValue<int64_t>(longs[r]);
    c[11].AppendValue<int64_t>(longs[r]);
    uint8_t uuid[16] = {static_cast<uint8_t>(r)};
    c[12].AppendFixed(uuid);
    c[13].AppendBytes(strings[r]);
    c[14].children[0].AppendValue(ints[r]);
    c[14].children[1].AppendBytes(strings[r]);
    c[14].AppendStructSlot();
    c[15].children[0].AppendValue(ints[r]);
    c[15].AppendListEnd();
  }
  b.num_rows = 5;
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const floe::RecordBatch batch = MakeBatch();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto bound = floe::expr::Expression::Bind(text, batch.schema);
  if (!bound.ok()) return 0;
  floe::expr::EvalContext context;
  context.source_file = "fuzz.parquet";
  auto column = bound->Evaluate(batch, context);
  if (column.ok() && (column->length != batch.num_rows || !column->Validate().empty())) __builtin_trap();
  return 0;
}
