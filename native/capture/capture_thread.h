// CaptureThread: owns the capture loop (read -> decode -> flow table -> output) and its stop flag. No napi.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/app_layer.h"
#include "capture/pcap_source.h"
#include "decode/packet_view.h"
#include "flow/flow_table.h"
#include "process/process_info.h"

namespace vigil {

// Per-protocol counter index: tcp, udp, icmp, icmpv6, other (IP), non_ip.
constexpr int kProtoCount = 6;
constexpr int kProtoNonIp = 5;
// Names the calling thread (Linux; a no-op elsewhere) so per-thread tools tell capture work apart from Node's.
void NameThisThread(const char* name);

const char* ProtoName(int index);

struct ProtoCounters {
  uint64_t packets = 0;
  uint64_t bytes = 0;  // wire length
  uint64_t flows = 0;
};

// A consistent copy of all counters of one capture session (monotonic since start).
struct CaptureStats {
  uint64_t packets = 0;  // every packet read, decoded or not
  uint64_t bytes = 0;    // sum of wire lengths
  ProtoCounters proto[kProtoCount];
  uint64_t decode_errors[static_cast<int>(DecodeStatus::kCount)] = {};  // kOk and kNonIp stay 0
  uint64_t flows_finished = 0;  // flow records with a final reason (flushed ones included)
  uint64_t flows_active = 0;
  uint64_t flows_evicted = 0;
  uint64_t snapshots = 0;
  uint64_t fragments_attributed = 0;
  PcapCounters pcap;
  uint64_t batches_delivered = 0;
  uint64_t batches_dropped = 0;
  int link_type = 0;
  int ts_digits = 6;
  AppLayerStats app;
  ProcessResolverStats process;  // enabled = false when no resolver runs
};

// Where the loop's output goes. Implemented by the binding (batches to JS) and by tools. All calls come from the
// capture thread. OnFlow (inherited) appends a record to the pending batch.
class CaptureOutput : public FlowSink {
 public:
  // Hands the pending records on. blocking=true waits for room (offline replay never drops); false drops the batch
  // when the consumer's queue is full (live capture never blocks) and counts it. Returns false when the consumer is
  // gone (shutting down): the loop then stops.
  virtual bool Flush(bool blocking) = 0;
  virtual size_t pending() const = 0;
  // Drops the pending records (the consumer is gone).
  virtual void Discard() = 0;
  virtual void OnStats(const CaptureStats& stats) = 0;
  // ARP bindings that changed since the last call (layer 2 has no flows). The vector may be taken (swapped).
  virtual void OnArp(std::vector<ArpBinding>& bindings) { (void)bindings; }
  // Last call: final counters, and the error that ended the loop (kNone for end of file / stop).
  virtual void OnEnd(const CaptureStats& stats, CaptureError error, const std::string& message) = 0;
  // An output that takes application-layer states (FlowSink::OnFinished) hands them back here, for the capture
  // thread to recycle (appended to *out).
  virtual void TakeReturnedAppStates(std::vector<AppState*>* out) { (void)out; }
  // An output with a thread of its own: waits until it ran everything handed over so far.
  virtual void Drain() {}

  std::atomic<uint64_t> batches_delivered{0};
  std::atomic<uint64_t> batches_dropped{0};
};

struct CaptureConfig {
  FlowTableConfig flows;
  double speed = 0;                           // offline only: 0 = as fast as possible; else x real time
  int64_t stats_interval_ns = 1'000'000'000;  // wall clock
  int64_t flush_interval_ns =
      100'000'000;            // max delay of a finished flow before its batch goes (packet time in a fast replay)
  size_t batch_flows = 1024;  // records per batch
  AppLayerConfig app;         // the application layer (native/app); app.enabled = false turns it off
  // Per-process attribution (native/process): live capture on Linux only; ignored for files and elsewhere.
  bool processes = false;
  int64_t process_cpu_budget_ns = 10'000'000;  // per second: see ProcessResolverConfig::cpu_budget_ns
};

class ProcessHook;  // capture_thread.cpp: new flows -> the process resolver

class CaptureThread {
 public:
  // Takes an opened source. `output` must outlive the thread.
  CaptureThread(std::unique_ptr<PcapSource> source, const CaptureConfig& config, CaptureOutput* output);
  ~CaptureThread();

  void Start();        // spawns the thread running Run()
  void Run();          // the loop; callable directly on the caller's thread (tools)
  void RequestStop();  // any thread: sets the flag and breaks a blocked read
  void Join();         // joins if started; idempotent
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  CaptureStats Latest();  // any thread: the last published counters

 private:
  void HandlePacket(const RawPacket& p);
  void HandleDecoded(const RawPacket& p, const PacketView& v, DecodeStatus st);
  void Publish();
  CaptureStats Collect();
  void Pace(int64_t ts_ns);
  void DeliverArp();
  void RecycleAppStates();  // states the output is done with, back to the application layer's pool

  std::unique_ptr<PcapSource> source_;
  CaptureConfig config_;
  CaptureOutput* output_;
  FlowTable table_;
  AppLayer app_;
  std::unique_ptr<ProcessHook> process_;  // nullptr unless processes are resolved
  std::vector<ArpBinding> arp_pending_;
  std::vector<AppState*> returned_states_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex stats_mutex_;
  CaptureStats published_;
  CaptureStats counters_;  // capture-thread-only working copy (packets, bytes, proto, decode errors)
  int64_t last_expire_ts_ = 0;
  bool pacing_started_ = false;
  int64_t pace_first_ts_ = 0;
  int64_t pace_wall_start_ = 0;
};

}  // namespace vigil
