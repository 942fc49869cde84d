// AllocateHugeAdvised: see huge_pages.h.
#include "common/huge_pages.h"

#include <cstdlib>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace vigil {

void* AllocateHugeAdvised(size_t bytes, bool whole_pages) {
  if (bytes == 0) bytes = 1;
#ifdef __linux__
  constexpr size_t kHugePage = size_t{2} << 20;
  constexpr size_t kPage = 4096;
  if (whole_pages ? bytes >= kHugePage / 2 : bytes >= kHugePage) {
    const size_t unit = whole_pages ? kHugePage : kPage;
    const size_t size = (bytes + unit - 1) / unit * unit;
    // posix_memalign, not aligned_alloc: C11 wants the size a multiple of the alignment, and chunks are not rounded.
    void* p = nullptr;
    if (posix_memalign(&p, kHugePage, size) != 0) throw std::bad_alloc();
    madvise(p, size, MADV_HUGEPAGE);  // advice only: the memory is usable either way
    return p;
  }
#endif
  void* p = std::malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void FreeHugeAdvised(void* p) { std::free(p); }

}  // namespace vigil
