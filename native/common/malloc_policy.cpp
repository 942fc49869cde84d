// The process's malloc policy: see malloc_policy.h.
#include "common/malloc_policy.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern char** environ;

namespace vigil {
namespace {

std::once_flag g_once;
MallocPolicy g_policy;

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

}  // namespace vigil
