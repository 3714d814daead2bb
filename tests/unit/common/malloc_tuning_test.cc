#include "common/malloc_tuning.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define FLOE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLOE_UNDER_ASAN 1
#endif
#endif

namespace floe {
namespace {

// A 20 MiB column buffer comes from the heap, not from its own mmap, once
// tuned (glibc's default threshold starts at 128 KiB).
TEST(MallocTuning, ColumnSizedBuffersComeFromTheHeap) {
#if !defined(__GLIBC__) || defined(FLOE_UNDER_ASAN)
  GTEST_SKIP() << "glibc malloc is not in use (no glibc, or a sanitizer's allocator)";
#else
  TuneMallocForColumnBuffers();
  const int before = mallinfo2().hblks;
  void* buffer = std::malloc(20 << 20);
  ASSERT_NE(buffer, nullptr);
  std::memset(buffer, 1, 4096);
  EXPECT_EQ(mallinfo2().hblks, before) << "the 20 MiB block was mmapped on its own";
  std::free(buffer);
#endif
}

// Memory freed inside the heap goes back to the system: 64 MiB of small
// blocks, touched then freed, leave the resident size until the trim.
TEST(MallocTuning, ReleaseFreeHeapMemoryShrinksTheResidentSize) {
#if !defined(__GLIBC__) || defined(FLOE_UNDER_ASAN)
  GTEST_SKIP() << "glibc malloc is not in use (no glibc, or a sanitizer's allocator)";
#else
  TuneMallocForColumnBuffers();
  auto resident_bytes = [] {
    long long pages = 0, resident = 0;
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) return int64_t{-1};
    const int read = std::fscanf(statm, "%lld %lld", &pages, &resident);
    std::fclose(statm);
    return read == 2 ? static_cast<int64_t>(resident) * 4096 : int64_t{-1};
  };
  std::vector<void*> blocks;
  for (int i = 0; i < 64 * 1024; ++i) {
    blocks.push_back(std::malloc(1024));
    std::memset(blocks.back(), 1, 1024);
  }
  const int64_t free_before = FreeHeapBytes();
  for (void* block : blocks) std::free(block);
  // What malloc now holds free is what decides a trim after a batch.
  EXPECT_GE(FreeHeapBytes(), free_before + (32 << 20));
  const int64_t before = resident_bytes();
  ASSERT_GT(before, 0);
  EXPECT_TRUE(ReleaseFreeHeapMemory());
  EXPECT_LT(resident_bytes(), before - (32 << 20)) << "the trim returned less than half of the freed 64 MiB";
#endif
}

// The free heap a batch may leave: half the budget (the next batch reuses
// it), never under 64 MiB (a trim is not worth less).
TEST(MallocTuning, FreeHeapAllowanceIsHalfTheBudgetAndAtLeast64MiB) {
  EXPECT_EQ(FreeHeapAllowance(int64_t{512} << 20), int64_t{256} << 20);
  EXPECT_EQ(FreeHeapAllowance(int64_t{4} << 30), int64_t{2} << 30);
  EXPECT_EQ(FreeHeapAllowance(int64_t{64} << 20), int64_t{64} << 20);
  EXPECT_EQ(FreeHeapAllowance(0), int64_t{64} << 20);
}

// The restart with a huge-page heap: only where the kernel wants madvise,
// and never over a setting the user (or the restart itself) made.
TEST(MallocTuning, RestartsWithAHugePageHeapOnlyInMadviseModeAndOnlyOnce) {
#if !defined(__GLIBC__) || defined(FLOE_UNDER_ASAN)
  EXPECT_FALSE(ShouldRestartWithHugePageHeap(nullptr, "always [madvise] never"));
#else
  EXPECT_TRUE(ShouldRestartWithHugePageHeap(nullptr, "always [madvise] never"));
  EXPECT_TRUE(ShouldRestartWithHugePageHeap("glibc.malloc.arena_max=2", "always [madvise] never"));
  EXPECT_FALSE(ShouldRestartWithHugePageHeap(nullptr, "[always] madvise never"));
  EXPECT_FALSE(ShouldRestartWithHugePageHeap(nullptr, "always madvise [never]"));
  EXPECT_FALSE(ShouldRestartWithHugePageHeap(nullptr, ""));
  EXPECT_FALSE(ShouldRestartWithHugePageHeap("glibc.malloc.hugetlb=0", "always [madvise] never"));
  EXPECT_FALSE(ShouldRestartWithHugePageHeap("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
                                             "always [madvise] never"));
#endif
  EXPECT_EQ(TunablesWithHugePageHeap(nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePageHeap(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePageHeap("glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

}  // namespace
}  // namespace floe
