// ARP (RFC 826) parsing for Ethernet/IPv4 and the bounded table of (sender IP, sender MAC) bindings.
#include "app/arp.h"

#include <cstring>
#include <random>

#include "common/reader.h"

namespace vigil {
namespace {

// The fixed part of an ARP packet (RFC 826), all fields big-endian.
struct ArpFixedHeader {
  uint8_t htype[2];  // hardware type: 1 Ethernet
  uint8_t ptype[2];  // protocol type: 0x0800 IPv4
  uint8_t hlen;      // hardware address bytes: 6
  uint8_t plen;      // protocol address bytes: 4
  uint8_t op[2];     // 1 request, 2 reply
};
static_assert(sizeof(ArpFixedHeader) == 8, "ARP fixed header is 8 bytes");

// The Ethernet/IPv4 addresses that follow it.
struct ArpEthIpv4Body {
  uint8_t sender_mac[6];
  uint8_t sender_ip[4];
  uint8_t target_mac[6];
  uint8_t target_ip[4];
};
static_assert(sizeof(ArpEthIpv4Body) == 20, "Ethernet/IPv4 ARP addresses are 20 bytes");

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace

const char* ArpStatusName(ArpStatus s) {
  switch (s) {
    case ArpStatus::kOk:
      return "arp_ok";
    case ArpStatus::kTruncated:
      return "arp_truncated";
    case ArpStatus::kUnsupported:
      return "arp_unsupported";
    case ArpStatus::kBadOp:
      return "arp_bad_op";
    case ArpStatus::kCount:
      break;
  }
  return "arp_unknown";
}

ArpStatus ParseArp(const uint8_t* data, uint32_t len, ArpMessage* out) {
  *out = ArpMessage{};
  if (data == nullptr) return ArpStatus::kTruncated;
  Reader r(data, len);
  ArpFixedHeader h;
  if (!r.Read(h)) return ArpStatus::kTruncated;
  if (be16(h.htype) != 1 || be16(h.ptype) != 0x0800 || h.hlen != 6 || h.plen != 4) return ArpStatus::kUnsupported;
  const uint16_t op = be16(h.op);
  if (op != 1 && op != 2) return ArpStatus::kBadOp;
  ArpEthIpv4Body b;
  if (!r.Read(b)) return ArpStatus::kTruncated;  // anything after the body is Ethernet padding
  out->op = op;
  std::memcpy(out->sender_mac, b.sender_mac, 6);
  std::memcpy(out->sender_ip, b.sender_ip, 4);
  std::memcpy(out->target_mac, b.target_mac, 6);
  std::memcpy(out->target_ip, b.target_ip, 4);
  return ArpStatus::kOk;
}

// Slots are preallocated at construction. Each slot is on three intrusive lists: its hash bucket's chain (singly
// linked), the recency list (least recently seen at the head, evicted first when the table is full) and, while it has
// changes not yet drained, the changed list (in order of first change).
struct ArpTable::Impl {
  struct Slot {
    ArpBinding b;
    // The binding's most recently asked distinct targets (a ring of kRecentTargets; `recent_count` of them valid).
    uint32_t recent[kRecentTargets] = {};
    uint32_t recent_count = 0;
    uint32_t recent_next = 0;
    // Times of the new targets since the last drain: a ring of kArpNewTargetTimesKept, `pending_times` written.
    int64_t pending[kArpNewTargetTimesKept] = {};
    uint32_t pending_times = 0;
    uint32_t bucket = 0;
    uint32_t chain_next = kNone;
    uint32_t lru_prev = kNone, lru_next = kNone;
    uint32_t dirty_prev = kNone, dirty_next = kNone;
    bool dirty = false;
  };

  // Slots are reserved, not built: each is ~1.4 KB (the recent targets and their times), so building all 4,096 at start
  // zeroed ~5.7 MB, ~4.5 ms of every capture's start (perf of `vigil replay`). They are built as bindings arrive.
  explicit Impl(uint32_t capacity) : capacity(capacity) {
    slots.reserve(capacity);
    uint32_t n = 16;
    while (n < (1u << 30) && n < uint64_t{capacity} * 2) n <<= 1;  // load factor at most 1/2
    buckets.assign(n, kNone);
    mask = n - 1;
    std::random_device rd;  // per-table seed: crafted ARP floods cannot aim at one bucket
    seed = (static_cast<uint64_t>(rd()) << 32) | rd();
  }

  uint32_t Hash(const uint8_t ip[4], const uint8_t mac[6]) const {
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ULL;
    auto mix = [&h](uint8_t byte) {
      h ^= byte;
      h *= 0x100000001b3ULL;
    };
    for (int i = 0; i < 4; ++i) mix(ip[i]);
    for (int i = 0; i < 6; ++i) mix(mac[i]);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return static_cast<uint32_t>(h) & mask;
  }

  uint32_t Find(uint32_t bucket, const uint8_t ip[4], const uint8_t mac[6]) const {
    for (uint32_t i = buckets[bucket]; i != kNone; i = slots[i].chain_next) {
      const ArpBinding& b = slots[i].b;
      if (std::memcmp(b.sender_ip, ip, 4) == 0 && std::memcmp(b.sender_mac, mac, 6) == 0) return i;
    }
    return kNone;
  }

  void LruUnlink(uint32_t i) {
    Slot& s = slots[i];
    (s.lru_prev != kNone ? slots[s.lru_prev].lru_next : lru_head) = s.lru_next;
    (s.lru_next != kNone ? slots[s.lru_next].lru_prev : lru_tail) = s.lru_prev;
    s.lru_prev = s.lru_next = kNone;
  }
  void LruAppend(uint32_t i) {
    Slot& s = slots[i];
    s.lru_prev = lru_tail;
    s.lru_next = kNone;
    (lru_tail != kNone ? slots[lru_tail].lru_next : lru_head) = i;
    lru_tail = i;
  }
  void DirtyUnlink(uint32_t i) {
    Slot& s = slots[i];
    if (!s.dirty) return;
    (s.dirty_prev != kNone ? slots[s.dirty_prev].dirty_next : dirty_head) = s.dirty_next;
    (s.dirty_next != kNone ? slots[s.dirty_next].dirty_prev : dirty_tail) = s.dirty_prev;
    s.dirty_prev = s.dirty_next = kNone;
    s.dirty = false;
  }
  void MarkDirty(uint32_t i) {
    Slot& s = slots[i];
    if (s.dirty) return;
    s.dirty = true;
    s.dirty_prev = dirty_tail;
    s.dirty_next = kNone;
    (dirty_tail != kNone ? slots[dirty_tail].dirty_next : dirty_head) = i;
    dirty_tail = i;
  }
  void ChainUnlink(uint32_t i) {
    uint32_t* link = &buckets[slots[i].bucket];
    while (*link != i) link = &slots[*link].chain_next;
    *link = slots[i].chain_next;
    slots[i].chain_next = kNone;
  }

  uint32_t capacity;
  std::vector<Slot> slots;  // built up to `used`, never past `capacity` (reserved)
  std::vector<uint32_t> buckets;
  uint32_t mask = 0;
  uint64_t seed = 0;
  uint32_t used = 0;  // slots[0..used) have been handed out at least once
  uint32_t size = 0;
  uint32_t lru_head = kNone, lru_tail = kNone;
  uint32_t dirty_head = kNone, dirty_tail = kNone;
};

ArpTable::ArpTable(uint32_t capacity) : impl_(new Impl(capacity > 0 ? capacity : 1)) {}

ArpTable::~ArpTable() = default;

size_t ArpTable::size() const { return impl_->size; }

void ArpTable::Add(const ArpMessage& m, int64_t ts_ns) {
  Impl& t = *impl_;
  const uint32_t bucket = t.Hash(m.sender_ip, m.sender_mac);
  uint32_t i = t.Find(bucket, m.sender_ip, m.sender_mac);
  if (i == kNone) {
    if (t.used < t.capacity) {
      t.slots.emplace_back();  // within the reservation: earlier slots stay where they are
      i = t.used++;
    } else {
      // Full: reuse the least recently seen binding. Changes it had not handed out yet are lost with it.
      i = t.lru_head;
      t.LruUnlink(i);
      t.DirtyUnlink(i);
      t.ChainUnlink(i);
      --t.size;
      ++evictions_;
    }
    Impl::Slot& s = t.slots[i];
    s.b = ArpBinding{};
    s.recent_count = 0;
    s.recent_next = 0;
    s.pending_times = 0;
    std::memcpy(s.b.sender_ip, m.sender_ip, 4);
    std::memcpy(s.b.sender_mac, m.sender_mac, 6);
    s.b.first_ns = ts_ns;
    s.b.last_ns = ts_ns;
    s.bucket = bucket;
    s.chain_next = t.buckets[bucket];
    t.buckets[bucket] = i;
    t.LruAppend(i);
    ++t.size;
  } else {
    t.LruUnlink(i);
    t.LruAppend(i);
  }
  ArpBinding& b = t.slots[i].b;
  const bool gratuitous = std::memcmp(m.sender_ip, m.target_ip, 4) == 0;
  if (gratuitous) ++b.gratuitous;
  if (m.op == 1 && !gratuitous && (b.target_runs == 0 || std::memcmp(b.run_target_ip, m.target_ip, 4) != 0)) {
    ++b.target_runs;
    std::memcpy(b.run_target_ip, m.target_ip, 4);
    Impl::Slot& s = t.slots[i];
    uint32_t target;
    std::memcpy(&target, m.target_ip, 4);
    bool known = false;
    for (uint32_t k = 0; k < s.recent_count && !known; ++k) known = s.recent[k] == target;
    if (!known) {
      ++b.new_targets;
      s.pending[s.pending_times % kArpNewTargetTimesKept] = ts_ns;
      if (s.pending_times < UINT32_MAX) ++s.pending_times;
      s.recent[s.recent_next] = target;
      s.recent_next = (s.recent_next + 1) % kRecentTargets;
      if (s.recent_count < kRecentTargets) ++s.recent_count;
    }
  }
  std::memcpy(b.target_ip, m.target_ip, 4);
  if (m.op == 1) ++b.requests;
  if (m.op == 2) ++b.replies;
  if (ts_ns < b.first_ns) b.first_ns = ts_ns;
  if (ts_ns > b.last_ns) b.last_ns = ts_ns;
  t.MarkDirty(i);
}

size_t ArpTable::Drain(std::vector<ArpBinding>* out, size_t max) {
  Impl& t = *impl_;
  size_t n = 0;
  while (n < max && t.dirty_head != kNone) {
    const uint32_t i = t.dirty_head;
    Impl::Slot& s = t.slots[i];
    out->push_back(s.b);
    // The new targets' times since the last drain, oldest first.
    ArpBinding& o = out->back();
    const uint32_t kept = s.pending_times < kArpNewTargetTimesKept ? s.pending_times : kArpNewTargetTimesKept;
    const uint32_t from = s.pending_times - kept;
    for (uint32_t k = 0; k < kept; ++k) o.new_target_times_ns[k] = s.pending[(from + k) % kArpNewTargetTimesKept];
    o.new_target_times = kept;
    s.pending_times = 0;
    t.DirtyUnlink(i);
    ++n;
  }
  return n;
}

}  // namespace vigil
