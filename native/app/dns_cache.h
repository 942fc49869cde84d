// DnsNameCache: a bounded table of address -> name learned from DNS answers, per client. Flows that start later
// to an address carry the name the client resolved (as Zeek's and ntopng's DNS caches do). Capture thread only.
#pragma once

#include <cstdint>

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
  // The table is set-associative: capacity is rounded down to a power-of-two number of 8-way buckets (one bucket of
  // `capacity` ways below 8). About 300 bytes per entry (the name is stored inline), plus 4 for the address index.
  explicit DnsNameCache(uint32_t capacity);
  ~DnsNameCache();
  DnsNameCache(const DnsNameCache&) = delete;
  DnsNameCache& operator=(const DnsNameCache&) = delete;

  // Remembers that `client` (16-byte, IPv4-mapped) resolved `name` to `addr` at ts_ns with the given TTL (s).
  // A TTL with the top bit set counts as 0 (RFC 2181 §8). The entry lives for the TTL plus a grace of
  // max(TTL, kGraceS). When the bucket is full, the least recently used entry is replaced (an eviction when it had
  // not yet expired). Allocates the table on the first call; when that fails the cache stays off.
  void Insert(const uint8_t client[16], const uint8_t addr[16], const NameText& name, uint32_t ttl_s, int64_t ts_ns);
  // The name `client` resolved `addr` to, if known and not expired at ts_ns (a small grace past the TTL is
  // allowed, as clients keep using addresses); falls back to any client's answer for addr. nullptr when unknown.
  // The pointer is valid until the next Insert.
  const NameText* Lookup(const uint8_t client[16], const uint8_t addr[16], int64_t ts_ns);
  const DnsCacheStats& stats() const { return stats_; }
  uint32_t capacity() const { return buckets_ * ways_; }  // entries the table holds once allocated

  static constexpr uint32_t kWays = 8;
  static constexpr uint32_t kSeenBits = 1u << 16;
  static constexpr int64_t kGraceS = 300;

 private:
  struct Entry;
  Entry* Find(const uint8_t client[16], const uint8_t addr[16]);
  Entry* FindAnyClient(const uint8_t addr[16], int64_t ts_ns);
  void IndexAddress(uint32_t entry);
  uint32_t Bucket(const uint8_t* a, const uint8_t* b) const;
  uint32_t SeenBit(const uint8_t* addr) const;

  Entry* entries_ = nullptr;     // buckets_ * ways_, bucket-major; calloc'ed on the first Insert, freed by the dtor
  uint32_t* by_addr_ = nullptr;  // address-only index: entry number + 1 (0 empty), same geometry
  uint8_t* filled_ = nullptr;    // per bucket: ways written (always the first ones), so never-written ways go unread
  // Addresses ever inserted, as bits of a hash (never cleared): most flows go to addresses no answer named, and a
  // miss in the table itself touches up to 16 entries' cache lines, the bit one.
  uint64_t seen_[kSeenBits / 64] = {};
  uint32_t capacity_;
  uint32_t buckets_ = 0;  // a power of two
  uint32_t ways_ = 0;
  uint64_t seed_;        // per-process hash seed, so answers cannot be chosen to collide
  bool failed_ = false;  // allocation failed: the cache is off
  DnsCacheStats stats_;
};

}  // namespace vigil
