// DnsNameCache: a bounded table of address -> name learned from DNS answers, per client. Flows that start later
// to an address carry the name the client resolved (as Zeek's and ntopng's DNS caches do). Capture thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "app/bounded_text.h"

namespace vigil {

struct DnsCacheStats {
  uint64_t inserts = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;  // entries dropped for room before their TTL ran out
};

class DnsNameCache {
 public:
  // capacity: entries kept (bounded memory: capacity * sizeof(entry), allocated up front lazily). 0 = off.
  explicit DnsNameCache(uint32_t capacity);
  ~DnsNameCache();
  // Remembers that `client` (16-byte, IPv4-mapped) resolved `name` to `addr` at ts_ns with the given TTL (s).
  void Insert(const uint8_t client[16], const uint8_t addr[16], const NameText& name, uint32_t ttl_s, int64_t ts_ns);
  // The name `client` resolved `addr` to, if known and not expired at ts_ns (a small grace past the TTL is
  // allowed, as clients keep using addresses); falls back to any client's answer for addr. nullptr when unknown.
  const NameText* Lookup(const uint8_t client[16], const uint8_t addr[16], int64_t ts_ns);
  const DnsCacheStats& stats() const { return stats_; }

 private:
  struct Entry;
  std::unique_ptr<Entry[]> entries_;
  uint32_t capacity_;
  DnsCacheStats stats_;
};

}  // namespace vigil
