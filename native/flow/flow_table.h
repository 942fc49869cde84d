// FlowTable: the bounded bidirectional flow table (pooled entries, seeded hash, LRU idle expiry, TCP close,
// fragment attribution). Single-threaded: owned by the capture thread (or a tool); no locks, no napi.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/huge_pages.h"
#include "decode/packet_view.h"
#include "flow/flow_record.h"

namespace vigil {

// Times in nanoseconds. Idle 120 s is CICFlowMeter's flow timeout, the scale of the flows the model was trained on;
// active 1800 s (NetFlow's usual 30-minute active timeout) bounds how long a long-lived flow goes unreported.
struct FlowTableConfig {
  uint32_t max_flows = 1u << 20;  // hard cap on concurrent flows; full -> evict the oldest idle flow
  int64_t idle_timeout_ns = 120'000'000'000LL;
  int64_t active_timeout_ns = 1800'000'000'000LL;
  int64_t tcp_linger_ns = 1'000'000'000LL;        // after FIN both ways / RST, late packets still join the flow
  int64_t activity_timeout_ns = 5'000'000'000LL;  // CICFlowMeter active/idle split
  int64_t snapshot_interval_ns = 0;               // 0 = no snapshots; else emit snapshots of flows active this long
  uint32_t expiry_budget = 256;                   // max flows ended per Expire() call
  uint64_t hash_seed = 0;                         // 0 = random per table
};

// Receives every flow record the table emits (finished flows and snapshots). Called on the table's thread; the
// entry (and its features, already Finish()ed) is valid only during the call.
class FlowSink {
 public:
  virtual ~FlowSink() = default;
  virtual void OnFlow(const FlowEntry& flow, EndReason reason) = 0;
  // A finished flow's record (every reason but kSnapshot). The sink may take the entry's application-layer state
  // (setting flow.app to nullptr, and handing it back to the AppLayer later: AppLayer::Recycle); the observer's
  // OnFlowEnd, which follows, sees what is left. By default the same as OnFlow.
  virtual void OnFinished(FlowEntry& flow, EndReason reason) { OnFlow(flow, reason); }
};

// Sees every packet after the table accounted it, and every flow's end after its record was emitted (the
// application layer). Called on the table's thread.
class FlowObserver {
 public:
  virtual ~FlowObserver() = default;
  virtual void OnFlowStart(FlowEntry& flow, const PacketView& v, int64_t ts_ns) = 0;
  virtual void OnPacket(FlowEntry& flow, const PacketView& v, Direction dir, int64_t ts_ns) = 0;
  virtual void OnFlowEnd(FlowEntry& flow) = 0;
};

// Told of every new flow before any other observer (the process resolver). Called on the table's thread.
class FlowStartListener {
 public:
  virtual ~FlowStartListener() = default;
  virtual void OnFlowStart(FlowEntry& flow, const PacketView& v) = 0;
};

// Counters kept by the table (monotonic).
struct FlowTableStats {
  uint64_t flows_created = 0;
  uint64_t flows_finished = 0;  // records emitted with a final reason (not snapshots)
  uint64_t flows_evicted = 0;
  uint64_t snapshots = 0;
  uint64_t fragments_attributed = 0;
  uint64_t fragment_no_flow = 0;
  uint64_t flows_by_proto[5] = {};  // tcp, udp, icmp, icmpv6, other
};

class FlowTable {
 public:
  FlowTable(const FlowTableConfig& config, FlowSink* sink);
  ~FlowTable();
  FlowTable(const FlowTable&) = delete;
  FlowTable& operator=(const FlowTable&) = delete;

  // Accounts one decoded IP packet (status kOk, or a non-first fragment) at packet time ts_ns. Returns false when
  // the packet could not be attributed to a flow (a non-first fragment with no known flow: counted).
  bool Process(const PacketView& v, int64_t ts_ns) { return Process(v, ts_ns, nullptr); }
  // The same, with the packet's key made ahead (MakePacketKey(v, hash_seed(), ...): the read-ahead thread of a fast
  // replay does it beside decoding); nullptr makes it here.
  bool Process(const PacketView& v, int64_t ts_ns, const PacketKey* ahead);
  uint64_t hash_seed() const { return config_.hash_seed; }
  // Start loading what Process will read for a later packet with this hash. Its bucket first, a few packets ahead;
  // then, for the next packet (its bucket in the cache by then), the links and key of the flow at the chain's head.
  // The bucket index and the flows are far larger than the cache and each packet's lookup missed in both.
  void PrefetchBucket(uint32_t hash) const { __builtin_prefetch(&buckets_[hash & bucket_mask_]); }
  void PrefetchChain(uint32_t hash) const {
    const uint32_t i = buckets_[hash & bucket_mask_];
    if (i == 0) return;
    __builtin_prefetch(&Links(i - 1));
    __builtin_prefetch(&At(i - 1).key);
  }
  // Ends flows idle past the timeout and TCP flows past their linger, as of now_ns; at most expiry_budget per call.
  // Returns the number ended.
  uint32_t Expire(int64_t now_ns);
  // Ends up to `budget` flows with reason kFlush (end of capture; TCP flows already closing keep fin/rst).
  // Returns true when the table is empty.
  bool FlushSome(uint32_t budget);

  // Optional; must outlive the table. Set before the first packet.
  void SetObserver(FlowObserver* observer) { observer_ = observer; }
  // Optional; must outlive the table. Set before the first packet.
  void SetStartListener(FlowStartListener* listener) { start_listener_ = listener; }

  uint32_t active() const { return active_; }
  const FlowTableStats& stats() const { return stats_; }
  const FlowTableConfig& config() const { return config_; }

  static int ProtoIndex(uint8_t protocol);

 private:
  struct FragSlot {
    uint8_t src[16];
    uint8_t dst[16];
    uint32_t frag_id;
    uint8_t protocol;
    uint32_t flow;        // pool index
    uint32_t generation;  // of the flow slot when recorded
    int64_t ts_ns;
  };
  struct ClosingItem {
    uint32_t flow;
    uint32_t generation;
  };
  // A slot's hash and list links, kept apart from its FlowEntry (848 bytes, 14 cache lines): the bucket chains and
  // the LRU list are walked and relinked through these alone, and an entry is read only when its hash matches. A
  // chain walk or an LRU relink (a flow moved to the tail relinks its neighbours, and expiry and eviction unlink the
  // oldest flows) would otherwise touch other flows' entries, often idle for thousands of packets and out of the
  // cache; 16 bytes a slot keep the links of 100,000 flows within 1.6 MiB. Links are pool indices (kNoFlow = none).
  struct FlowLinks {
    uint32_t hash = 0;               // the key's hash, low 32 bits (it picks the bucket: at most 2^31 of them)
    uint32_t bucket_next = kNoFlow;  // bucket chain; the free list when the slot is unused
    uint32_t lru_prev = kNoFlow;     // LRU list ordered by last packet time (oldest at head)
    uint32_t lru_next = kNoFlow;
  };

  FlowEntry& At(uint32_t i) { return chunks_[i >> kChunkShift][i & kChunkMask]; }
  const FlowEntry& At(uint32_t i) const { return chunks_[i >> kChunkShift][i & kChunkMask]; }
  // Starts loading all of a flow's entry: Finish reads every line of it to emit the record, and a flow ending on a
  // timeout (or at the end of a capture) has been out of the cache for long. Called for the next flow to end while
  // one ends, so its misses overlap that one's work. kNoFlow: none.
  void PrefetchEntry(uint32_t i) const {
    if (i == kNoFlow) return;
    const char* p = reinterpret_cast<const char*>(&At(i));
    for (size_t off = 0; off < sizeof(FlowEntry); off += 64) __builtin_prefetch(p + off);
  }
  FlowLinks& Links(uint32_t i) { return link_chunks_[i >> kChunkShift][i & kChunkMask]; }
  const FlowLinks& Links(uint32_t i) const { return link_chunks_[i >> kChunkShift][i & kChunkMask]; }
  uint32_t& Bucket(uint32_t hash) { return buckets_[hash & bucket_mask_]; }
  uint32_t Lookup(const FlowKey& key, uint32_t hash);
  uint32_t Allocate();
  void GrowBuckets();
  void Finish(uint32_t idx, EndReason reason);
  void LruUnlink(uint32_t idx);
  void LruAppend(uint32_t idx);
  void BucketUnlink(uint32_t idx);
  uint32_t CreateFlow(const FlowKey& key, uint32_t hash, bool src_is_lo, const PacketView& v, int64_t ts_ns);
  void Account(uint32_t idx, const PacketView& v, Direction dir, int64_t ts_ns);
  void AfterPacket(uint32_t idx, const PacketView& v, Direction dir, int64_t ts_ns);
  void StartClosing(uint32_t idx, EndReason reason, int64_t ts_ns);
  void RememberFragment(const PacketView& v, uint32_t idx, int64_t ts_ns);
  bool AttributeFragment(const PacketView& v, int64_t ts_ns);
  size_t FragIndex(const uint8_t* src, const uint8_t* dst, uint32_t id, uint8_t proto) const;

  static constexpr uint32_t kChunkShift = 12;
  static constexpr uint32_t kChunkMask = (1u << kChunkShift) - 1;
  static constexpr size_t kFragSlots = 4096;
  static constexpr int64_t kFragTimeoutNs = 30'000'000'000LL;

  FlowTableConfig config_;
  FlowSink* sink_;
  FlowObserver* observer_ = nullptr;
  FlowStartListener* start_listener_ = nullptr;
  std::vector<HugeArray<FlowEntry>> chunks_;               // pool, grown one chunk at a time up to max_flows
  std::vector<std::unique_ptr<FlowLinks[]>> link_chunks_;  // the pool's links, chunk for chunk
  uint32_t pool_size_ = 0;                                 // slots created so far
  uint32_t free_head_ = kNoFlow;                           // free list through FlowLinks::bucket_next
  uint32_t* buckets_ = nullptr;                            // calloc'd; stores index + 1 (0 = empty)
  uint32_t bucket_mask_ = 0;
  uint64_t max_buckets_ = 0;
  static constexpr uint64_t kInitialBuckets = 1u << 14;
  static constexpr uint64_t kMaxBuckets = uint64_t{1} << 31;  // bucket indices come from 32 bits of the hash
  uint32_t lru_head_ = kNoFlow;
  uint32_t lru_tail_ = kNoFlow;
  uint32_t active_ = 0;
  uint64_t next_id_ = 1;
  std::vector<ClosingItem> closing_;  // ring buffer of closing flows, in close order
  size_t closing_head_ = 0;
  size_t closing_count_ = 0;
  std::unique_ptr<FragSlot[]> frags_;
  FlowTableStats stats_;
  FlowEntry scratch_;  // copy used to emit snapshots without disturbing the live entry
};

}  // namespace vigil
