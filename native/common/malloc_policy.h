// The process's malloc policy (glibc): fixed mmap and trim thresholds and a periodic trim of the arenas, so memory a
// thread frees goes back to the system instead of staying in that thread's arena.
#pragma once

#include <cstddef>
#include <cstdint>

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
// The mmap threshold stays at 128 KiB, below most large flow batches (up to ~1.5 MiB at 1,024 flows: copied into a
// fresh ArrayBuffer on the JS thread unless the consumer detaches batches, see binding/capture_wrap.cpp), which are
// therefore each a new mapping (prefaulted in one call by PrefaultForWrite() rather than page by page). At 2 MiB the
// batches came from the arenas, saving about 0.1 CPU-s per detection pipeline run on the bench input, but the sensor's
// RSS in the 10-minute soak rose from 187-201 MB to 221-226 MB, over its 200 MB target (bench/README.md, Detection and
// Soak). Free memory inside the arenas (not only at their top, which the trim threshold covers) goes back by
// TrimMallocArenas().
constexpr size_t kMallocMmapThresholdBytes = size_t{128} << 10;
constexpr size_t kMallocTrimThresholdBytes = size_t{128} << 10;
// TrimMallocArenas() does its work at most this often. Each trim gives back pages that later batches fault in again:
// at 1 s, as often as capture sessions publish stats, that cost 40,000-60,000 more faults per 4 pipeline runs with the
// mmap threshold at 2 MiB (bench/README.md, Detection).
constexpr int64_t kMallocTrimIntervalNs = int64_t{10} * 1000000000;

// Sets the thresholds above with mallopt(), once per process, unless the environment sets glibc's malloc tunables
// (MALLOC_*_ variables or glibc.malloc.* in GLIBC_TUNABLES): the operator's choice wins. Returns what it did.
MallocPolicy ApplyMallocPolicy();

// What the first ApplyMallocPolicy() call did (default-constructed before any call).
MallocPolicy CurrentMallocPolicy();

// When the policy is applied and kMallocTrimIntervalNs has passed since the last trim (steady clock): returns the free
// whole pages inside every arena to the system (glibc's malloc_trim(0), which also releases holes below an arena's
// top). Freed batches otherwise leave the JS thread's arena holding tens of MB in holes the trim threshold cannot
// reach. Any thread; a call inside the interval costs one atomic load. Returns whether it trimmed.
bool TrimMallocArenas();

// Maps in, writable, the whole pages of [data, data + bytes) when the block is at least the mmap threshold (a fresh
// mapping, whose pages would otherwise fault in one by one as a copy writes them): one madvise(MADV_POPULATE_WRITE)
// instead of a page fault per 4 KiB, which costs most in a virtual machine. A no-op for smaller blocks, on kernels
// before 5.14 (the call fails and the pages fault in as before) and off Linux.
void PrefaultForWrite(void* data, size_t bytes);

}  // namespace vigil
