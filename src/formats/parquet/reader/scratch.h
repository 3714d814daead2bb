// Scratch buffers a Parquet reader reuses across pages, column chunks and row
// groups: the compressed chunk bytes, one decompressed page, one page's
// definition levels and dictionary indices, and dense values awaiting their
// null slots.
//
// Contract: ScratchVector<T> is a std::vector whose resize() leaves new
// elements uninitialised (default-initialised) instead of zero-filling them;
// a caller must write every element it later reads. Buffers keep their
// capacity, so after the first chunks decoding allocates (and page-faults)
// nothing for them. Not thread-safe: one ChunkScratch per reader.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "columnar/column.h"

namespace floe::parquet {

template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  // Value-less construction default-initialises: trivial types keep whatever
  // bytes the allocation held.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using ScratchVector = std::vector<T, DefaultInitAllocator<T>>;

struct ChunkScratch {
  ScratchVector<uint8_t> chunk;         // the column chunk's bytes as read from the file
  ScratchVector<uint8_t> page;          // one decompressed page (or its values section)
  std::vector<uint8_t> page_fallback;   // the same for codecs without a size bound (codec.h)
  ScratchVector<uint8_t> slot_valid;    // one page's slots, 1 when the slot has a value
  ScratchVector<uint32_t> indices;      // one page's dictionary indices
  std::vector<uint8_t> selected_valid;  // one page's selected slots, 1 when the slot has a value
  Column dense;                         // one page's dense values before they meet their slots

  // Frees every buffer holding more than `max_bytes`, so a reader kept open
  // (the pipeline holds many) does not pin the memory of its largest chunk.
  void ReleaseLargerThan(size_t max_bytes) {
    if (chunk.capacity() > max_bytes) ScratchVector<uint8_t>().swap(chunk);
    if (page.capacity() > max_bytes) ScratchVector<uint8_t>().swap(page);
    if (page_fallback.capacity() > max_bytes) std::vector<uint8_t>().swap(page_fallback);
    if (slot_valid.capacity() > max_bytes) ScratchVector<uint8_t>().swap(slot_valid);
    if (indices.capacity() * sizeof(uint32_t) > max_bytes) ScratchVector<uint32_t>().swap(indices);
    if (selected_valid.capacity() > max_bytes) std::vector<uint8_t>().swap(selected_valid);
    if (dense.values.capacity() + dense.data.capacity() + dense.offsets.capacity() * 8 > max_bytes) {
      dense = Column();
    }
  }
};

}  // namespace floe::parquet
