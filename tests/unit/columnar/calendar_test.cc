// The shared calendar helpers: floor division and modulo at the int64
// edges (a fuzz-found overflow of FloorMod), and days <-> civil dates.
#include "columnar/calendar.h"

#include <cstdint>
#include <vector>

#include "test_util.h"

namespace floe {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

TEST(CalendarTest, FloorDivAndModRoundTowardNegativeInfinity) {
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(FloorMod(6, 3), 0);
}

TEST(CalendarTest, FloorModAtTheInt64EdgesDoesNotOverflow) {
  // INT64_MIN = -106751992 days * kMicrosPerDay + 71945224192 (floor).
  EXPECT_EQ(FloorMod(INT64_MIN, kMicrosPerDay),
            INT64_MIN - (-106751992LL + 1) * kMicrosPerDay + kMicrosPerDay);
  EXPECT_EQ(FloorDiv(INT64_MIN, kMicrosPerDay), -106751992);
  EXPECT_EQ(FloorMod(INT64_MAX, kMicrosPerDay), INT64_MAX - 106751991LL * kMicrosPerDay);
  EXPECT_EQ(FloorMod(INT64_MIN, INT64_MAX), INT64_MAX - 1);
}

TEST(CalendarTest, CivilDatesRoundTrip) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  const CivilDate d = CivilFromDays(-1);
  EXPECT_EQ(d.year, 1969);
  EXPECT_EQ(d.month, 12);
  EXPECT_EQ(d.day, 31);
  for (int64_t days : std::vector<int64_t>{-719528, -1, 0, 11016, 2932896, INT32_MAX, INT32_MIN}) {
    const CivilDate c = CivilFromDays(days);
    EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), days);
  }
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);
  EXPECT_EQ(DaysInMonth(2000, 2), 29);
}

}  // namespace
}  // namespace floe
