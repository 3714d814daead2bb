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

namespace floe {

void TuneMallocForColumnBuffers();

// Gives memory that malloc holds free back to the system (glibc malloc_trim);
// returns false where that is not available. A long-running process calls it
// when it goes idle after work.
bool ReleaseFreeHeapMemory();

}  // namespace floe
