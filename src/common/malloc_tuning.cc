#include "common/malloc_tuning.h"

#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <cstdlib>  // defines __GLIBC__ on glibc systems
#include <fstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLOE_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define FLOE_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace floe {

void TuneMallocForColumnBuffers() {
#if defined(__GLIBC__)
  // 32 MiB is glibc's largest allowed mmap threshold on 64-bit systems.
  // Return values are ignored on purpose: a malloc that refuses the hint
  // (a sanitizer's) works as before, only with more page faults.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

bool ReleaseFreeHeapMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

int64_t FreeHeapBytes() {
#if defined(__GLIBC__) && !defined(FLOE_SANITIZER_ALLOCATOR)
  return static_cast<int64_t>(mallinfo2().fordblks);
#else
  return -1;
#endif
}

int64_t FreeHeapAllowance(int64_t memory_budget_bytes) {
  return std::max<int64_t>(int64_t{64} << 20, memory_budget_bytes / 2);
}

bool ShouldRestartWithHugePageHeap(const char* glibc_tunables, std::string_view thp_mode) {
#if !defined(__GLIBC__) || defined(FLOE_SANITIZER_ALLOCATOR)
  (void)glibc_tunables;
  (void)thp_mode;
  return false;
#else
  if (thp_mode.find("[madvise]") == std::string_view::npos) return false;
  return glibc_tunables == nullptr ||
         std::string_view(glibc_tunables).find("glibc.malloc.hugetlb") == std::string_view::npos;
#endif
}

std::string TunablesWithHugePageHeap(const char* glibc_tunables) {
  std::string tunables = glibc_tunables == nullptr ? "" : glibc_tunables;
  if (!tunables.empty()) tunables += ':';
  return tunables + "glibc.malloc.hugetlb=1";
}

namespace {
// Set for the restarted process only: the name the process had. An exec of
// /proc/self/exe names a process "exe" (what ps, top and pkill -x see).
constexpr const char* kRestartedAs = "FLOE_RESTARTED_AS";
}  // namespace

void RestartWithHugePageHeap(char** argv) {
#if !defined(__linux__)
  (void)argv;
  return;
#else
  if (const char* name = std::getenv(kRestartedAs)) {
    ::prctl(PR_SET_NAME, name, 0, 0, 0);
    ::unsetenv(kRestartedAs);  // not for the processes this one starts
    return;
  }
  std::string thp_mode;
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!mode_file || !std::getline(mode_file, thp_mode)) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!ShouldRestartWithHugePageHeap(tunables, thp_mode)) return;
  const bool had_tunables = tunables != nullptr;
  const std::string previous = had_tunables ? tunables : "";  // setenv may free the old value
  const std::string with_huge_pages = TunablesWithHugePageHeap(tunables);
  std::string name;
  std::ifstream comm_file("/proc/self/comm");
  if (!comm_file || !std::getline(comm_file, name) || name.empty()) return;
  if (::setenv(kRestartedAs, name.c_str(), 1) != 0) return;
  if (::setenv("GLIBC_TUNABLES", with_huge_pages.c_str(), 1) == 0) ::execv("/proc/self/exe", argv);
  // The exec failed (no /proc, say): go on with the heap as it is, and leave
  // the environment as it was for the processes this one starts.
  ::unsetenv(kRestartedAs);
  if (had_tunables) {
    ::setenv("GLIBC_TUNABLES", previous.c_str(), 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
#endif
}

}  // namespace floe
