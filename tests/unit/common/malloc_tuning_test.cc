#include "common/malloc_tuning.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

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

}  // namespace
}  // namespace floe
