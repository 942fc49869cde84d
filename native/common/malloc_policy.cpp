// The process's malloc policy: see malloc_policy.h.
#include "common/malloc_policy.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

extern char** environ;

namespace vigil {
namespace {

std::once_flag g_once;
MallocPolicy g_policy;
std::atomic<bool> g_applied{false};      // g_policy.applied, readable from any thread
std::atomic<int64_t> g_last_trim_ns{0};  // steady clock of the last TrimMallocArenas() that trimmed

// True when the environment configures glibc's malloc: any MALLOC_*_ variable glibc reads (MALLOC_ARENA_MAX,
// MALLOC_TRIM_THRESHOLD_, ...) or a glibc.malloc.* tunable.
bool EnvironmentSetsMalloc() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "MALLOC_", 7) == 0) return true;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr;
}

}  // namespace

MallocPolicy ApplyMallocPolicy() {
  std::call_once(g_once, [] {
#if defined(__GLIBC__)
    if (EnvironmentSetsMalloc()) {
      g_policy.skipped = "environment";
      return;
    }
    // Setting either threshold turns off glibc's raising of both.
    const bool ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMallocMmapThresholdBytes)) == 1 &&
                    mallopt(M_TRIM_THRESHOLD, static_cast<int>(kMallocTrimThresholdBytes)) == 1;
    g_policy.applied = ok;
    g_applied.store(ok, std::memory_order_release);
    if (!ok) g_policy.skipped = "mallopt_failed";
    if (ok) {
      g_policy.mmap_threshold_bytes = kMallocMmapThresholdBytes;
      g_policy.trim_threshold_bytes = kMallocTrimThresholdBytes;
    }
#else
    g_policy.skipped = "not_glibc";
#endif
  });
  return g_policy;
}

MallocPolicy CurrentMallocPolicy() { return g_policy; }

bool TrimMallocArenas() {
  if (!g_applied.load(std::memory_order_acquire)) return false;
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  int64_t last = g_last_trim_ns.load(std::memory_order_relaxed);
  if (last != 0 && now_ns - last < kMallocTrimIntervalNs) return false;
  // One caller per interval: the others see the new time and return.
  if (!g_last_trim_ns.compare_exchange_strong(last, now_ns, std::memory_order_relaxed)) return false;
#if defined(__GLIBC__)
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

void PrefaultForWrite(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (data == nullptr || bytes < kMallocMmapThresholdBytes) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace vigil
