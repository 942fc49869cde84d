// DnsNameCache: a set-associative table of (client, address) -> name with an address-only index for the any-client
// fallback. Capture thread only; no allocation after the first Insert.
#include "app/dns_cache.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace vigil {

// Zero bytes are an empty entry, so the table comes from calloc and the OS maps its pages only as they are written.
// A bucket's ways are filled in order and an entry is never emptied, so `filled_` (ways written, per bucket) says
// which entries hold anything, and nothing reads an entry before it was written. That matters for the pages: a page
// of the fresh mapping first read is mapped to the shared zero page, and writing it later is a second fault that
// flushes the TLB of every core running the process (an interrupt to the JS thread's core). Under perf, those faults
// were most of the capture thread's kernel time in the detection bench's pipeline (~18 ms per run).
struct DnsNameCache::Entry {
  uint8_t client[16];
  uint8_t addr[16];
  int64_t expires_ns;  // usable up to and including this time (TTL plus grace)
  int64_t used_ns;     // last insert or hit: the least recent one in a full bucket is replaced
  bool live;
  NameText name;
};

namespace {

constexpr int64_t kNsPerS = 1000000000;

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t Word(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

uint32_t FloorPow2(uint32_t v) {
  uint32_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

}  // namespace

DnsNameCache::DnsNameCache(uint32_t capacity)
    : capacity_(capacity),
      seed_(Mix(static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                reinterpret_cast<uintptr_t>(this))) {}

DnsNameCache::~DnsNameCache() {
  std::free(entries_);
  std::free(by_addr_);
  std::free(filled_);
}

uint32_t DnsNameCache::Bucket(const uint8_t* a, const uint8_t* b) const {
  uint64_t h = seed_ ^ (b ? 0x9e3779b97f4a7c15ULL : 0);
  h = Mix(h ^ Word(a));
  h = Mix(h ^ Word(a + 8));
  if (b) {
    h = Mix(h ^ Word(b));
    h = Mix(h ^ Word(b + 8));
  }
  return static_cast<uint32_t>(h) & (buckets_ - 1);
}

uint32_t DnsNameCache::SeenBit(const uint8_t* addr) const {
  return static_cast<uint32_t>(Mix(seed_ ^ Word(addr) ^ Mix(Word(addr + 8)))) & (kSeenBits - 1);
}

DnsNameCache::Entry* DnsNameCache::Find(const uint8_t client[16], const uint8_t addr[16]) {
  const uint32_t b = Bucket(client, addr);
  Entry* bucket = &entries_[b * ways_];
  const uint32_t filled = filled_[b];
  for (uint32_t w = 0; w < filled; ++w) {
    Entry& e = bucket[w];
    if (e.live && std::memcmp(e.addr, addr, 16) == 0 && std::memcmp(e.client, client, 16) == 0) return &e;
  }
  return nullptr;
}

DnsNameCache::Entry* DnsNameCache::FindAnyClient(const uint8_t addr[16], int64_t ts_ns) {
  const uint32_t* slots = &by_addr_[Bucket(addr, nullptr) * ways_];
  Entry* best = nullptr;
  for (uint32_t w = 0; w < ways_; ++w) {
    if (slots[w] == 0) continue;
    Entry& e = entries_[slots[w] - 1];
    if (!e.live || ts_ns > e.expires_ns || std::memcmp(e.addr, addr, 16) != 0) continue;
    if (!best || e.used_ns > best->used_ns) best = &e;
  }
  return best;
}

// Points the address index at entry `n` (just written): the slot already kept for the same address (the latest answer
// wins), else a free or stale one (its entry expired, or now holds another address), else the least recently used.
// The index is a hint: FindAnyClient checks the entry it points to.
void DnsNameCache::IndexAddress(uint32_t n) {
  const Entry& fresh = entries_[n];
  uint32_t* slots = &by_addr_[Bucket(fresh.addr, nullptr) * ways_];
  for (uint32_t w = 0; w < ways_; ++w) {
    if (slots[w] == 0) continue;
    const Entry& e = entries_[slots[w] - 1];
    if (e.live && std::memcmp(e.addr, fresh.addr, 16) == 0) {
      slots[w] = n + 1;
      return;
    }
  }
  const uint32_t bucket = static_cast<uint32_t>(slots - by_addr_) / ways_;
  uint32_t victim = 0;
  for (uint32_t w = 0; w < ways_; ++w) {
    if (slots[w] == 0) {
      victim = w;
      break;
    }
    const Entry& e = entries_[slots[w] - 1];
    if (!e.live || e.expires_ns < fresh.used_ns || Bucket(e.addr, nullptr) != bucket) {
      victim = w;
      break;
    }
    if (e.used_ns < entries_[slots[victim] - 1].used_ns) victim = w;
  }
  slots[victim] = n + 1;
}

void DnsNameCache::Insert(const uint8_t client[16], const uint8_t addr[16], const NameText& name, uint32_t ttl_s,
                          int64_t ts_ns) {
  if (capacity_ == 0 || failed_) return;
  if (!entries_) {
    ways_ = capacity_ < kWays ? capacity_ : kWays;
    buckets_ = FloorPow2(capacity_ / ways_);
    const size_t n = static_cast<size_t>(buckets_) * ways_;
    entries_ = static_cast<Entry*>(std::calloc(n, sizeof(Entry)));
    by_addr_ = static_cast<uint32_t*>(std::calloc(n, sizeof(uint32_t)));
    filled_ = static_cast<uint8_t*>(std::calloc(buckets_, 1));
    if (!entries_ || !by_addr_ || !filled_) {
      failed_ = true;
      std::free(entries_);
      std::free(by_addr_);
      std::free(filled_);
      entries_ = nullptr;
      by_addr_ = nullptr;
      filled_ = nullptr;
      return;
    }
  }
  ++stats_.inserts;

  if (ttl_s & 0x80000000u) ttl_s = 0;
  const int64_t ttl = ttl_s;
  const int64_t life_ns = (ttl + (ttl > kGraceS ? ttl : kGraceS)) * kNsPerS;
  const int64_t expires =
      ts_ns > std::numeric_limits<int64_t>::max() - life_ns ? std::numeric_limits<int64_t>::max() : ts_ns + life_ns;

  Entry* e = Find(client, addr);
  if (!e) {
    // A free way (the first never written), else an expired one, else the least recently used (an eviction).
    const uint32_t b = Bucket(client, addr);
    Entry* bucket = &entries_[b * ways_];
    if (filled_[b] < ways_) e = &bucket[filled_[b]++];
    for (uint32_t w = 0; w < ways_ && !e; ++w) {
      if (ts_ns > bucket[w].expires_ns) e = &bucket[w];
    }
    if (!e) {
      e = &bucket[0];
      for (uint32_t w = 1; w < ways_; ++w) {
        if (bucket[w].used_ns < e->used_ns) e = &bucket[w];
      }
      ++stats_.evictions;
    }
    std::memcpy(e->client, client, 16);
    std::memcpy(e->addr, addr, 16);
    e->live = true;
  }
  e->name = name;
  e->expires_ns = expires;
  e->used_ns = ts_ns;
  IndexAddress(static_cast<uint32_t>(e - entries_));
  const uint32_t bit = SeenBit(addr);
  seen_[bit / 64] |= uint64_t{1} << (bit % 64);
}

const NameText* DnsNameCache::Lookup(const uint8_t client[16], const uint8_t addr[16], int64_t ts_ns) {
  Entry* e = nullptr;
  const uint32_t bit = SeenBit(addr);
  if (entries_ && (seen_[bit / 64] >> (bit % 64)) & 1) {
    e = Find(client, addr);
    if (e && ts_ns > e->expires_ns) e = nullptr;
    if (!e) e = FindAnyClient(addr, ts_ns);
  }
  if (!e) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  e->used_ns = ts_ns;
  return &e->name;
}

}  // namespace vigil
