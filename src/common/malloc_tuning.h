// Process-wide tuning of glibc malloc for floe's allocation pattern.
//
// Contract: TuneMallocForColumnBuffers() is called once, at start-up, before
// other threads exist (the CLI's Main and the benchmark tools do). Column
// buffers of 1-32 MiB are allocated and freed once per row group; by default
// glibc serves each from a fresh mmap and unmaps it on free, so every row
// group faults its pages in again and the kernel zero-fills each page (10-15%
// of a Parquet decode). With a fixed mmap threshold of 32 MiB and a trim
// threshold of 256 MiB the next row group reuses the same heap memory instead.
// Memory freed beyond the trim threshold still goes back to the system, and a
// long-running process returns the rest when it goes idle (the pipeline
// trims after a poll that did work). Without glibc (or under a sanitizer,
// which replaces malloc) it does nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace floe {

// Transparent huge pages for the heap. A batch's change map, key index delta
// and decoded columns are hundreds of MB touched at random places: with 4 KiB
// pages, page faults and TLB misses took a third of a 10M-key load's time
// (its wall time fell from 14-16 s to 9 s with 2 MiB pages). Debian's kernels
// give huge pages only to memory marked with madvise (THP mode "madvise"),
// and glibc marks its heap so only when the process starts with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1, a setting it reads at start-up.
//
// RestartWithHugePageHeap replaces the process with itself (the same pid,
// arguments, descriptors and environment) started with that setting added,
// when ShouldRestartWithHugePageHeap says so; otherwise, or if the exec
// fails, it returns and the process goes on as it is. Call it first thing
// in main, before any thread starts. To opt out, set
// GLIBC_TUNABLES=glibc.malloc.hugetlb=0 (any value of the setting is
// respected, and it is what keeps the restarted process from restarting).
void RestartWithHugePageHeap(char** argv);

// The decision, from the environment's GLIBC_TUNABLES (nullptr: unset) and
// the kernel's THP mode line (/sys/kernel/mm/transparent_hugepage/enabled,
// e.g. "always [madvise] never"): only in madvise mode, and only when the
// tunables do not set glibc.malloc.hugetlb already. Always false without
// glibc or under a sanitizer (its allocator replaces glibc's).
bool ShouldRestartWithHugePageHeap(const char* glibc_tunables, std::string_view thp_mode);

// GLIBC_TUNABLES with glibc.malloc.hugetlb=1 added to `glibc_tunables`
// (nullptr or empty: unset).
std::string TunablesWithHugePageHeap(const char* glibc_tunables);

void TuneMallocForColumnBuffers();

// Gives memory that malloc holds free back to the system (glibc malloc_trim);
// returns false where that is not available. A long-running process calls it
// when it goes idle after work.
bool ReleaseFreeHeapMemory();

// Bytes malloc holds free in its arenas (glibc mallinfo2's fordblks, over
// all arenas; memory of freed mmap'd blocks is not held), or -1 where that
// is not available. Walks the arenas' free lists under their locks: cheap
// next to a batch, not for a hot loop.
int64_t FreeHeapBytes();

// How much free heap a batch may leave behind before the process gives it
// back (ReleaseFreeHeapMemory), for a process working within
// `memory_budget_bytes`: half the budget, at least 64 MiB. Below it the next
// batch reuses those pages without faulting them in again (a trim after
// every batch of a 12-table load at threads = 1, each leaving ~150 MiB free,
// cost 13% of its time); above it what malloc keeps would stack on the next
// batch's peak (a 100M-key load's batches left 500 MiB free and peaked at
// 648 MiB against a 512 MiB budget).
int64_t FreeHeapAllowance(int64_t memory_budget_bytes);

}  // namespace floe
