// CaptureThread: the capture loop. Reads packets, decodes, updates flows, hands batches and stats to the output.
#include "capture/capture_thread.h"

#include <chrono>
#include <ctime>

#include "capture/packet_prefetcher.h"
#ifdef __linux__
#include <pthread.h>

#include "process/process_resolver.h"
#endif

namespace vigil {

#ifdef __linux__
// Asks the process resolver about each new TCP and UDP flow, at its first packet (a short-lived connection's socket
// is gone soon after), and keeps the slot in the flow for the batch encoder.
class ProcessHook : public FlowStartListener {
 public:
  explicit ProcessHook(int64_t cpu_budget_ns) : resolver_(Config(cpu_budget_ns)) {}
  bool Start() { return resolver_.Start(); }
  void Stop() { resolver_.Stop(); }
  ProcessResolverStats Stats() { return resolver_.Stats(); }
  void OnFlowStart(FlowEntry& e, const PacketView& v) override {
    if (e.key.protocol != 6 && e.key.protocol != 17) return;
    const bool lo = e.initiator_is_lo;
    e.process = resolver_.Submit(e.key.protocol, e.ip_version == 6, lo ? e.key.addr_lo : e.key.addr_hi,
                                 lo ? e.key.port_lo : e.key.port_hi, lo ? e.key.addr_hi : e.key.addr_lo,
                                 lo ? e.key.port_hi : e.key.port_lo);
  }

 private:
  static ProcessResolverConfig Config(int64_t cpu_budget_ns) {
    ProcessResolverConfig c;
    c.cpu_budget_ns = cpu_budget_ns;
    c.cpu_burst_ns = 2 * cpu_budget_ns;
    return c;
  }
  ProcessResolver resolver_;
};
#else
class ProcessHook {
 public:
  ProcessResolverStats Stats() { return {}; }
  void Stop() {}
};
#endif

namespace {
int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
int64_t RealtimeNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void NameThisThread(const char* name) {
#ifdef __linux__
  pthread_setname_np(pthread_self(), name);  // at most 15 characters; shown by top -H, ps -L and /proc/PID/task/*/comm
#else
  (void)name;
#endif
}

const char* ProtoName(int index) {
  static const char* const kNames[kProtoCount] = {"tcp", "udp", "icmp", "icmpv6", "other", "non_ip"};
  return index >= 0 && index < kProtoCount ? kNames[index] : "other";
}

CaptureThread::CaptureThread(std::unique_ptr<PcapSource> source, const CaptureConfig& config, CaptureOutput* output)
    : source_(std::move(source)), config_(config), output_(output), table_(config.flows, output), app_(config.app) {
  if (app_.enabled()) table_.SetObserver(&app_);
#ifdef __linux__
  if (config.processes && source_->live()) {
    process_ = std::make_unique<ProcessHook>(config.process_cpu_budget_ns);
    // The netlink socket opens here, on the caller's thread: in the network namespace the capture was opened in.
    if (process_->Start())
      table_.SetStartListener(process_.get());
    else
      process_.reset();
  }
#endif
  counters_.link_type = source_->link_type();
  counters_.ts_digits = source_->ts_digits();
  published_ = counters_;
}

CaptureThread::~CaptureThread() {
  RequestStop();
  Join();
  if (process_) process_->Stop();
}

void CaptureThread::Start() {
  thread_ = std::thread([this] {
    NameThisThread("vigil-capture");
    Run();
  });
}

void CaptureThread::RequestStop() {
  stop_.store(true, std::memory_order_relaxed);
  source_->Break();
}

void CaptureThread::Join() {
  if (thread_.joinable()) thread_.join();
}

CaptureStats CaptureThread::Latest() {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  return published_;
}

CaptureStats CaptureThread::Collect() {
  CaptureStats s = counters_;
  const FlowTableStats& t = table_.stats();
  s.flows_finished = t.flows_finished;
  s.flows_active = table_.active();
  s.flows_evicted = t.flows_evicted;
  s.snapshots = t.snapshots;
  s.fragments_attributed = t.fragments_attributed;
  s.decode_errors[static_cast<int>(DecodeStatus::kFragmentNoFlow)] = t.fragment_no_flow;
  for (int i = 0; i < 5; ++i) s.proto[i].flows = t.flows_by_proto[i];
  s.pcap = source_->Stats();
  s.batches_delivered = output_->batches_delivered.load();
  s.batches_dropped = output_->batches_dropped.load();
  s.app = app_.Stats();
  if (process_) s.process = process_->Stats();
  return s;
}

void CaptureThread::Publish() {
  CaptureStats s = Collect();
  {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    published_ = s;
  }
  output_->OnStats(s);
}

void CaptureThread::Pace(int64_t ts_ns) {
  if (!pacing_started_) {
    pacing_started_ = true;
    pace_first_ts_ = ts_ns;
    pace_wall_start_ = SteadyNs();
    return;
  }
  const double offset = static_cast<double>(ts_ns - pace_first_ts_) / config_.speed;
  const int64_t due = pace_wall_start_ + static_cast<int64_t>(offset);
  for (;;) {
    const int64_t now = SteadyNs();
    if (now >= due || stop_requested()) return;
    const int64_t wait = due - now < 100'000'000 ? due - now : 100'000'000;  // wake at least every 100 ms for stop
    std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
  }
}

void CaptureThread::HandlePacket(const RawPacket& p) {
  if (p.decoded != nullptr) {
    HandleDecoded(p, *p.decoded, p.decode_status);
    return;
  }
  // Decoded here (live capture, paced replay). The view exists only on this path: default-constructing one for every
  // packet zeroed its 128 bytes with a `rep stos` per packet even when the read-ahead thread had decoded it, ~3% of
  // the capture thread's samples in a fast replay (perf annotate; bench/README.md, Capture).
  PacketView own;
  const DecodeStatus st = DecodePacket(source_->link_type(), p.data, p.caplen, p.wirelen, own);
  HandleDecoded(p, own, st);
}

void CaptureThread::HandleDecoded(const RawPacket& p, const PacketView& v, DecodeStatus st) {
  counters_.packets++;
  counters_.bytes += p.wirelen;
  const bool later_fragment = v.ip_version != 0 && v.is_fragment && !v.is_first_fragment;
  if (st == DecodeStatus::kOk || later_fragment) {
    ProtoCounters& pc = counters_.proto[FlowTable::ProtoIndex(v.protocol)];
    pc.packets++;
    pc.bytes += p.wirelen;
    if (p.far_keyed) table_.PrefetchBucket(p.far_hash);
    if (p.next_keyed) table_.PrefetchChain(p.next_hash);
    table_.Process(v, p.ts_ns, p.key);  // unattributable fragments are counted by the table
  } else if (st == DecodeStatus::kNonIp) {
    counters_.proto[kProtoNonIp].packets++;
    counters_.proto[kProtoNonIp].bytes += p.wirelen;
    if (v.ethertype == 0x0806) app_.OnNonIp(v, p.ts_ns);
  } else {
    counters_.decode_errors[static_cast<int>(st)]++;
  }
  // Expire in packet time (deterministic replay), in bounded slices.
  if ((counters_.packets & 63) == 0 || p.ts_ns - last_expire_ts_ > 1'000'000'000LL) {
    last_expire_ts_ = p.ts_ns;
    table_.Expire(p.ts_ns);
  }
}

void CaptureThread::DeliverArp() {
  if (!app_.enabled()) return;
  arp_pending_.clear();
  while (app_.DrainArp(&arp_pending_, 4096) > 0) {
    output_->OnArp(arp_pending_);
    arp_pending_.clear();
  }
}

void CaptureThread::RecycleAppStates() {
  output_->TakeReturnedAppStates(&returned_states_);
  for (AppState* s : returned_states_) app_.Recycle(s);
  returned_states_.clear();
}

void CaptureThread::Run() {
  const bool live = source_->live();
  const bool blocking = !live;
  // A fast replay reads the file on a helper thread so reading overlaps decoding and flow work.
  std::unique_ptr<PacketPrefetcher> prefetch;
  if (!live && config_.speed <= 0) {
    prefetch = std::make_unique<PacketPrefetcher>(source_.get(), table_.hash_seed());
    prefetch->Start();
  }
  // Batches go out when full, or when flush_interval_ns has passed since the last flush: by the wall clock when live
  // or paced, by packet time in a fast replay, so that it cuts the same batches on every run (deterministic
  // downstream).
  const bool packet_time_flush = !live && config_.speed <= 0;
  int64_t last_flush = SteadyNs();
  int64_t last_stats = last_flush;
  int64_t packet_clock = 0;  // timestamp of the latest packet (ns), the flush clock of a replay
  bool replay_clock_set = false;
  CaptureError error = CaptureError::kNone;
  std::string message;
  bool consumer_gone = false;
  RawPacket pkt;
  uint32_t since_clock = 0;

  while (!stop_requested()) {
    const ReadResult r = prefetch ? prefetch->Next(&pkt) : source_->Next(&pkt);
    if (r == ReadResult::kPacket) {
      if (!live && config_.speed > 0) Pace(pkt.ts_ns);
      HandlePacket(pkt);
      if (packet_time_flush) {
        packet_clock = pkt.ts_ns;
        if (!replay_clock_set) {
          last_flush = packet_clock;
          replay_clock_set = true;
        }
      }
      if (output_->pending() >= config_.batch_flows && !output_->Flush(blocking)) {
        consumer_gone = true;
        break;
      }
      // Check the wall clock every 256 packets of a fast replay; every packet when live (traffic may trickle in
      // just under the read timeout) or paced (each packet may have slept).
      if (++since_clock < 256 && !live && config_.speed <= 0) continue;
    } else if (r == ReadResult::kTimeout) {
      // No traffic: advance flow time with the wall clock so idle flows still end.
      table_.Expire(RealtimeNs());
    } else if (r == ReadResult::kError) {
      error = prefetch ? prefetch->error() : source_->error();
      message = prefetch ? prefetch->message() : source_->message();
      break;
    } else {
      break;  // end of file or break
    }
    since_clock = 0;
    RecycleAppStates();
    const int64_t now = SteadyNs();
    const int64_t flush_clock = packet_time_flush ? packet_clock : now;
    if (output_->pending() > 0 && flush_clock - last_flush >= config_.flush_interval_ns) {
      last_flush = flush_clock;
      if (!output_->Flush(blocking)) {
        consumer_gone = true;
        break;
      }
    }
    if (now - last_stats >= config_.stats_interval_ns) {
      last_stats = now;
      DeliverArp();
      Publish();
    }
  }

  prefetch.reset();  // stops and joins the helper (it may still be reading after a stop request)

  // End of capture: flush the table in batch-sized slices so memory stays bounded.
  bool empty = false;
  while (!empty) {
    empty = table_.FlushSome(static_cast<uint32_t>(config_.batch_flows));
    if (!consumer_gone && output_->pending() > 0 && !output_->Flush(true)) consumer_gone = true;
    if (consumer_gone) output_->Discard();
  }
  if (!consumer_gone) DeliverArp();
  output_->Drain();
  RecycleAppStates();
  CaptureStats final_stats = Collect();
  {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    published_ = final_stats;
  }
  output_->OnEnd(final_stats, error, message);
}

}  // namespace vigil
