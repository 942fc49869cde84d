// Memory for large arrays that are touched all over (the flow table's entries, the batch encoder's column staging):
// aligned to 2 MiB and advised for transparent huge pages on Linux (THP "madvise" or "always"; the advice is ignored
// where THP is off, and elsewhere the memory is ordinary). A lookup in a 4 KiB-paged table of tens of megabytes misses
// the TLB as well as the cache; in 2 MiB pages the translations of the whole table stay cached.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace vigil {

// `bytes` of uninitialised memory (never nullptr: throws std::bad_alloc); release with FreeHugeAdvised. Aligned to
// 2 MiB; `whole_pages` rounds the size up to whole huge pages (one allocation that must be all huge: up to 2 MiB more),
// otherwise only the 2 MiB pages the size covers can be huge (memory that grows with the traffic, like the flow table's
// chunks, pays nothing for the rounding).
void* AllocateHugeAdvised(size_t bytes, bool whole_pages);
void FreeHugeAdvised(void* p);

// Destroys the array's elements, then frees it.
template <typename T>
struct HugeArrayDeleter {
  size_t n = 0;
  void operator()(T* p) const {
    for (size_t i = 0; i < n; ++i) p[i].~T();
    FreeHugeAdvised(p);
  }
};

template <typename T>
using HugeArray = std::unique_ptr<T[], HugeArrayDeleter<T>>;

// n value-initialised elements.
template <typename T>
HugeArray<T> MakeHugeArray(size_t n) {
  T* a = static_cast<T*>(AllocateHugeAdvised(n * sizeof(T), false));
  size_t built = 0;
  try {
    for (; built < n; ++built) new (a + built) T();
  } catch (...) {
    while (built > 0) a[--built].~T();
    FreeHugeAdvised(a);
    throw;
  }
  return HugeArray<T>(a, HugeArrayDeleter<T>{n});
}

}  // namespace vigil
