#include "common/malloc_tuning.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>
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

}  // namespace floe
