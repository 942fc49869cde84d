// FlowTable: bounded bidirectional flow table with LRU idle expiry, TCP close handling and fragment attribution.
#include "flow/flow_table.h"

#include <cstdlib>
#include <cstring>
#include <random>

namespace vigil {

namespace {
uint64_t RandomSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ 0x2545F4914F6CDD1DULL;
}
uint64_t NextPow2(uint64_t x) {
  uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}
}  // namespace

int FlowTable::ProtoIndex(uint8_t protocol) {
  switch (protocol) {
    case 6:
      return 0;
    case 17:
      return 1;
    case 1:
      return 2;
    case 58:
      return 3;
    default:
      return 4;
  }
}

FlowTable::FlowTable(const FlowTableConfig& config, FlowSink* sink) : config_(config), sink_(sink) {
  if (config_.max_flows == 0) config_.max_flows = 1;
  if (config_.hash_seed == 0) config_.hash_seed = RandomSeed();
  if (config_.expiry_budget == 0) config_.expiry_budget = 1;
  // Start small (fits the caches) and double with the flows in use, up to 2 x max_flows buckets.
  max_buckets_ = NextPow2(static_cast<uint64_t>(config_.max_flows) * 2);
  if (max_buckets_ > kMaxBuckets) max_buckets_ = kMaxBuckets;
  const uint64_t nbuckets = max_buckets_ < kInitialBuckets ? max_buckets_ : kInitialBuckets;
  buckets_ = static_cast<uint32_t*>(std::calloc(nbuckets, sizeof(uint32_t)));
  if (buckets_ == nullptr) throw std::bad_alloc();
  bucket_mask_ = static_cast<uint32_t>(nbuckets - 1);
  frags_.reset(new FragSlot[kFragSlots]());
  chunks_.reserve((config_.max_flows >> kChunkShift) + 1);
  link_chunks_.reserve((config_.max_flows >> kChunkShift) + 1);
}

FlowTable::~FlowTable() { std::free(buckets_); }

uint32_t FlowTable::Lookup(const FlowKey& key, uint32_t hash) {
  uint32_t i = Bucket(hash);
  while (i != 0) {
    const FlowLinks& l = Links(i - 1);
    if (l.hash == hash && FlowKeyEqual(At(i - 1).key, key)) return i - 1;
    i = l.bucket_next == kNoFlow ? 0 : l.bucket_next + 1;
  }
  return kNoFlow;
}

void FlowTable::BucketUnlink(uint32_t idx) {
  uint32_t& head = Bucket(Links(idx).hash);
  uint32_t prev = kNoFlow;
  uint32_t cur = head == 0 ? kNoFlow : head - 1;
  while (cur != kNoFlow) {
    const uint32_t next = Links(cur).bucket_next;
    if (cur == idx) {
      if (prev == kNoFlow)
        head = next == kNoFlow ? 0 : next + 1;
      else
        Links(prev).bucket_next = next;
      return;
    }
    prev = cur;
    cur = next;
  }
}

void FlowTable::LruUnlink(uint32_t idx) {
  FlowLinks& e = Links(idx);
  if (e.lru_prev != kNoFlow)
    Links(e.lru_prev).lru_next = e.lru_next;
  else
    lru_head_ = e.lru_next;
  if (e.lru_next != kNoFlow)
    Links(e.lru_next).lru_prev = e.lru_prev;
  else
    lru_tail_ = e.lru_prev;
  e.lru_prev = e.lru_next = kNoFlow;
}

void FlowTable::LruAppend(uint32_t idx) {
  FlowLinks& e = Links(idx);
  e.lru_prev = lru_tail_;
  e.lru_next = kNoFlow;
  if (lru_tail_ != kNoFlow)
    Links(lru_tail_).lru_next = idx;
  else
    lru_head_ = idx;
  lru_tail_ = idx;
}

uint32_t FlowTable::Allocate() {
  if (free_head_ == kNoFlow) {
    if (pool_size_ < config_.max_flows) {
      if ((pool_size_ & kChunkMask) == 0) {
        // 3.4 MiB of entries, looked up at random: advised for huge pages (common/huge_pages.h).
        chunks_.push_back(MakeHugeArray<FlowEntry>(size_t{1} << kChunkShift));
        link_chunks_.emplace_back(new FlowLinks[size_t{1} << kChunkShift]);
      }
      return pool_size_++;
    }
    // Full: evict the least recently seen flow (LRU head).
    stats_.flows_evicted++;
    Finish(lru_head_, EndReason::kEvicted);
  }
  const uint32_t idx = free_head_;
  free_head_ = Links(idx).bucket_next;
  return idx;
}

void FlowTable::Finish(uint32_t idx, EndReason reason) {
  FlowEntry& e = At(idx);
  e.f.Finish(reason != EndReason::kFin && reason != EndReason::kRst);
  sink_->OnFinished(e, reason);
  if (observer_ != nullptr) observer_->OnFlowEnd(e);
  e.process.reset();
  stats_.flows_finished++;
  BucketUnlink(idx);
  LruUnlink(idx);
  e.in_use = false;
  e.closing = false;
  e.generation++;
  Links(idx).bucket_next = free_head_;
  free_head_ = idx;
  active_--;
}

void FlowTable::GrowBuckets() {
  const uint64_t nbuckets = (uint64_t{bucket_mask_} + 1) * 2;
  auto* bigger = static_cast<uint32_t*>(std::calloc(nbuckets, sizeof(uint32_t)));
  if (bigger == nullptr) return;  // keep the current array: longer chains, still correct
  std::free(buckets_);
  buckets_ = bigger;
  bucket_mask_ = static_cast<uint32_t>(nbuckets - 1);
  // Every flow in use is on the LRU list (from CreateFlow to Finish): rehash along it, links only.
  for (uint32_t i = lru_head_; i != kNoFlow; i = Links(i).lru_next) {
    FlowLinks& l = Links(i);
    uint32_t& head = Bucket(l.hash);
    l.bucket_next = head == 0 ? kNoFlow : head - 1;
    head = i + 1;
  }
}

uint32_t FlowTable::CreateFlow(const FlowKey& key, uint32_t hash, bool src_is_lo, const PacketView& v, int64_t ts_ns) {
  const uint64_t nbuckets = uint64_t{bucket_mask_} + 1;
  if (active_ + 1 > nbuckets / 2 && nbuckets < max_buckets_) GrowBuckets();
  const uint32_t idx = Allocate();
  FlowEntry& e = At(idx);
  e.key = key;
  e.id = next_id_++;
  e.in_use = true;
  e.initiator_is_lo = src_is_lo;
  e.closing = false;
  e.fin_seen = 0;
  e.ip_version = v.ip_version;
  e.close_ns = 0;
  e.last_snapshot_ns = ts_ns;
  e.app_proto = 0;
  e.app_by = 0;
  e.app_done = false;
  e.app_tries = 0;
  e.app = nullptr;
  FlowLinks& l = Links(idx);
  l.hash = hash;
  uint32_t& head = Bucket(hash);
  l.bucket_next = head == 0 ? kNoFlow : head - 1;
  head = idx + 1;
  LruAppend(idx);
  active_++;
  stats_.flows_created++;
  stats_.flows_by_proto[ProtoIndex(v.protocol)]++;
  e.f.Start(v, ts_ns, config_.activity_timeout_ns);
  e.process.reset();
  if (start_listener_ != nullptr) start_listener_->OnFlowStart(e, v);
  if (observer_ != nullptr) observer_->OnFlowStart(e, v, ts_ns);
  AfterPacket(idx, v, kFwd, ts_ns);
  return idx;
}

// TCP close tracking and snapshots after a packet was added to flow idx.
void FlowTable::AfterPacket(uint32_t idx, const PacketView& v, Direction dir, int64_t ts_ns) {
  FlowEntry& e = At(idx);
  if (v.protocol == 6 && v.has_ports && !e.closing) {
    if (v.tcp_flags & kTcpFin) e.fin_seen |= static_cast<uint8_t>(1u << dir);
    if (v.tcp_flags & kTcpRst) {
      StartClosing(idx, EndReason::kRst, ts_ns);
    } else if (e.fin_seen == 3) {
      StartClosing(idx, EndReason::kFin, ts_ns);
    }
  }
  if (config_.snapshot_interval_ns > 0 && ts_ns - e.last_snapshot_ns >= config_.snapshot_interval_ns) {
    e.last_snapshot_ns = ts_ns;
    scratch_ = e;
    scratch_.f.Finish(true);
    sink_->OnFlow(scratch_, EndReason::kSnapshot);
    stats_.snapshots++;
  }
}

void FlowTable::StartClosing(uint32_t idx, EndReason reason, int64_t ts_ns) {
  FlowEntry& e = At(idx);
  e.closing = true;
  e.close_reason = reason;
  e.close_ns = ts_ns;
  if (closing_count_ == closing_.size()) {
    if (closing_.size() < config_.max_flows) {
      // Grow the ring (amortised; bounded by max_flows), unrolling it into order.
      std::vector<ClosingItem> bigger;
      bigger.reserve(closing_.empty() ? 64 : closing_.size() * 2);
      for (size_t i = 0; i < closing_count_; ++i) bigger.push_back(closing_[(closing_head_ + i) % closing_.size()]);
      bigger.resize(bigger.capacity());
      closing_.swap(bigger);
      closing_head_ = 0;
    } else {
      // Ring full: end the oldest closing flow now.
      const ClosingItem old = closing_[closing_head_];
      closing_head_ = (closing_head_ + 1) % closing_.size();
      closing_count_--;
      FlowEntry& o = At(old.flow);
      if (o.in_use && o.generation == old.generation && o.closing) Finish(old.flow, o.close_reason);
    }
  }
  closing_[(closing_head_ + closing_count_) % closing_.size()] = ClosingItem{idx, e.generation};
  closing_count_++;
}

void FlowTable::Account(uint32_t idx, const PacketView& v, Direction dir, int64_t ts_ns) {
  FlowEntry& e = At(idx);
  e.f.Add(v, dir, ts_ns, config_.activity_timeout_ns);
  if (observer_ != nullptr && !e.app_done) observer_->OnPacket(e, v, dir, ts_ns);
  if (lru_tail_ != idx) {
    LruUnlink(idx);
    LruAppend(idx);
  }
  AfterPacket(idx, v, dir, ts_ns);
}

bool FlowTable::Process(const PacketView& v, int64_t ts_ns, const PacketKey* ahead) {
  if (v.is_fragment && !v.is_first_fragment) return AttributeFragment(v, ts_ns);
  PacketKey own;
  if (ahead == nullptr) MakePacketKey(v, config_.hash_seed, &own);
  const PacketKey& pk = ahead ? *ahead : own;
  const FlowKey& key = pk.key;
  const bool src_is_lo = pk.src_is_lo;
  // The low 32 bits: they pick the bucket and are kept per slot (FlowLinks).
  const uint32_t hash = pk.hash;
  uint32_t idx = Lookup(key, hash);
  if (idx != kNoFlow) {
    FlowEntry& e = At(idx);
    const bool new_syn = v.protocol == 6 && v.has_ports && (v.tcp_flags & (kTcpSyn | kTcpAck)) == kTcpSyn;
    if (e.closing && (new_syn || ts_ns - e.close_ns > config_.tcp_linger_ns)) {
      Finish(idx, e.close_reason);  // port reuse after a close, or a straggler after the linger
      idx = kNoFlow;
    } else if (ts_ns - e.f.last_ns > config_.idle_timeout_ns) {
      Finish(idx, EndReason::kIdle);
      idx = kNoFlow;
    } else if (ts_ns - e.f.first_ns >= config_.active_timeout_ns) {
      Finish(idx, EndReason::kActive);
      idx = kNoFlow;
    }
  }
  if (idx == kNoFlow) {
    idx = CreateFlow(key, hash, src_is_lo, v, ts_ns);
  } else {
    const FlowEntry& e = At(idx);
    Account(idx, v, src_is_lo == e.initiator_is_lo ? kFwd : kBwd, ts_ns);
  }
  if (v.is_first_fragment) RememberFragment(v, idx, ts_ns);
  return true;
}

size_t FlowTable::FragIndex(const uint8_t* src, const uint8_t* dst, uint32_t id, uint8_t proto) const {
  uint64_t w[4];
  std::memcpy(&w[0], src + 8, 8);
  std::memcpy(&w[1], dst + 8, 8);
  uint64_t a, b;
  std::memcpy(&a, src, 8);
  std::memcpy(&b, dst, 8);
  w[2] = a ^ (b << 1);
  w[3] = (static_cast<uint64_t>(id) << 8) | proto;
  uint64_t h = config_.hash_seed;
  for (uint64_t x : w) {
    h ^= x;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return static_cast<size_t>(h & (kFragSlots - 1));
}

void FlowTable::RememberFragment(const PacketView& v, uint32_t idx, int64_t ts_ns) {
  FragSlot& s = frags_[FragIndex(v.src, v.dst, v.frag_id, v.protocol)];
  std::memcpy(s.src, v.src, 16);
  std::memcpy(s.dst, v.dst, 16);
  s.frag_id = v.frag_id;
  s.protocol = v.protocol;
  s.flow = idx;
  s.generation = At(idx).generation;
  s.ts_ns = ts_ns;
}

bool FlowTable::AttributeFragment(const PacketView& v, int64_t ts_ns) {
  FragSlot& s = frags_[FragIndex(v.src, v.dst, v.frag_id, v.protocol)];
  const bool match = s.ts_ns != 0 && s.frag_id == v.frag_id && s.protocol == v.protocol &&
                     std::memcmp(s.src, v.src, 16) == 0 && std::memcmp(s.dst, v.dst, 16) == 0 &&
                     ts_ns - s.ts_ns <= kFragTimeoutNs;
  if (match) {
    FlowEntry& e = At(s.flow);
    if (e.in_use && e.generation == s.generation) {
      const uint8_t* initiator = e.initiator_is_lo ? e.key.addr_lo : e.key.addr_hi;
      const Direction dir = std::memcmp(v.src, initiator, 16) == 0 ? kFwd : kBwd;
      Account(s.flow, v, dir, ts_ns);
      stats_.fragments_attributed++;
      return true;
    }
  }
  stats_.fragment_no_flow++;
  return false;
}

uint32_t FlowTable::Expire(int64_t now_ns) {
  uint32_t ended = 0;
  while (closing_count_ > 0 && ended < config_.expiry_budget) {
    const ClosingItem item = closing_[closing_head_];
    FlowEntry& e = At(item.flow);
    const bool valid = e.in_use && e.generation == item.generation && e.closing;
    if (valid && now_ns - e.close_ns <= config_.tcp_linger_ns) break;
    closing_head_ = (closing_head_ + 1) % closing_.size();
    closing_count_--;
    if (valid) {
      if (closing_count_ > 0) PrefetchEntry(closing_[closing_head_].flow);
      Finish(item.flow, e.close_reason);
      ++ended;
    }
  }
  while (lru_head_ != kNoFlow && ended < config_.expiry_budget) {
    FlowEntry& e = At(lru_head_);
    if (now_ns - e.f.last_ns <= config_.idle_timeout_ns) break;
    PrefetchEntry(Links(lru_head_).lru_next);
    Finish(lru_head_, EndReason::kIdle);
    ++ended;
  }
  return ended;
}

bool FlowTable::FlushSome(uint32_t budget) {
  while (lru_head_ != kNoFlow && budget-- > 0) {
    FlowEntry& e = At(lru_head_);
    PrefetchEntry(Links(lru_head_).lru_next);
    Finish(lru_head_, e.closing ? e.close_reason : EndReason::kFlush);
  }
  if (lru_head_ != kNoFlow) return false;
  closing_count_ = 0;
  closing_head_ = 0;
  return true;
}

}  // namespace vigil
