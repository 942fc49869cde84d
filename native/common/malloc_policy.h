// The process's malloc policy (glibc): keeps malloc's mmap and trim thresholds where glibc starts them, so memory a
// thread frees goes back to the system instead of staying in that thread's arena.
#pragma once

#include <cstddef>

namespace vigil {

// What ApplyMallocPolicy() did.
struct MallocPolicy {
  bool applied = false;
  // Why it was not applied: "not_glibc", "environment" (the environment sets glibc's malloc tunables itself) or
  // "mallopt_failed".
  const char* skipped = nullptr;
  size_t mmap_threshold_bytes = 0;
  size_t trim_threshold_bytes = 0;
};

// glibc starts both thresholds at 128 KiB and raises them whenever a block larger than the mmap threshold (up to
// 32 MiB) is freed: the mmap threshold to that block's size, the trim threshold to twice it. After that, blocks up to
// that size come from the arenas, and each arena keeps up to twice it of free memory at its top. A capture session's
// threads (a new pair per loop of a looping replay) and V8's and libuv's helper threads each use their own arena, so a
// server kept 60 MB of free-but-resident memory in its thread arenas. Setting the thresholds turns the raise off.
constexpr size_t kMallocMmapThresholdBytes = size_t{128} << 10;
constexpr size_t kMallocTrimThresholdBytes = size_t{128} << 10;

// Sets the thresholds above with mallopt(), once per process, unless the environment sets glibc's malloc tunables
// (MALLOC_*_ variables or glibc.malloc.* in GLIBC_TUNABLES): the operator's choice wins. Returns what it did.
MallocPolicy ApplyMallocPolicy();

// What the first ApplyMallocPolicy() call did (default-constructed before any call).
MallocPolicy CurrentMallocPolicy();

}  // namespace vigil
