// vigil_replay: the napi-free replay of capture files through the whole core (pcap -> decode -> flow table ->
// features), printing one JSON summary line per file. Used by the ASan/UBSan script over every fixture, and for
// debugging without Node.
// Usage: vigil_replay [--max-flows N] [--snapshot-sec S] [--no-app-layer] [--prefixes] FILE...
//   --prefixes  instead, feeds every prefix of every packet (1 .. min(caplen, 2048) bytes, then the whole packet)
//               through DecodePacket, a flow table and the application layer, as if each were a packet cut by a
//               snap length: every parser sees every truncation of the fixture traffic (under ASan in test:asan).
// Exit: 0 ok, 2 when a file cannot be opened or read (message on stderr).
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/app_layer.h"
#include "capture/capture_thread.h"
#include "capture/pcap_source.h"
#include "decode/packet_view.h"
#include "flow/flow_table.h"

namespace {

// Counts records and checks invariants of every emitted flow (aborts on a broken one, so sanitizers and CI notice).
class CountingOutput : public vigil::CaptureOutput {
 public:
  void OnFlow(const vigil::FlowEntry& e, vigil::EndReason reason) override {
    const vigil::FlowFeatures& f = e.f;
    const double packets = f.packets[vigil::kFwd] + f.packets[vigil::kBwd];
    Check(packets >= 1 && f.packets[vigil::kFwd] >= 1);
    Check(f.last_ns >= f.first_ns);
    Check(f.len_all.n == packets && f.iat_all.n == packets - 1);
    Check(f.early_count == (packets < vigil::kEarlyPackets ? packets : vigil::kEarlyPackets));
    Check(std::isfinite(f.len_all.PopulationStd()) && std::isfinite(f.iat_all.PopulationStd()));
    if (reason == vigil::EndReason::kSnapshot) {
      ++snapshots_;
    } else {
      ++flows_;
      packets_ += packets;
      bytes_ += f.bytes[vigil::kFwd] + f.bytes[vigil::kBwd];
    }
    ++reasons_[static_cast<int>(reason)];
    ++pending_;
  }
  bool Flush(bool) override {
    pending_ = 0;
    batches_delivered++;
    return true;
  }
  size_t pending() const override { return pending_; }
  void Discard() override { pending_ = 0; }
  void OnStats(const vigil::CaptureStats&) override {}
  void OnEnd(const vigil::CaptureStats& stats, vigil::CaptureError error, const std::string& message) override {
    stats_ = stats;
    error_ = error;
    message_ = message;
  }

  uint64_t flows_ = 0, snapshots_ = 0, reasons_[7] = {};
  double packets_ = 0, bytes_ = 0;
  size_t pending_ = 0;
  vigil::CaptureStats stats_;
  vigil::CaptureError error_ = vigil::CaptureError::kNone;
  std::string message_;

 private:
  static void Check(bool ok) {
    if (!ok) {
      std::fprintf(stderr, "vigil_replay: flow invariant broken\n");
      std::abort();
    }
  }
};

void PrintJsonString(const std::string& s) {
  std::putchar('"');
  for (char c : s) {
    if (c == '"' || c == '\\')
      std::printf("\\%c", c);
    else if (static_cast<unsigned char>(c) < 0x20)
      std::printf("\\u%04x", c);
    else
      std::putchar(c);
  }
  std::putchar('"');
}

// Every prefix of every packet of one open file through decode -> flows -> application layer. Prints one JSON line.
int ReplayPrefixes(const std::string& file, vigil::PcapSource& source) {
  constexpr uint32_t kMaxPrefix = 2048;
  struct NullSink : vigil::FlowSink {
    uint64_t flows = 0;
    void OnFlow(const vigil::FlowEntry&, vigil::EndReason) override { ++flows; }
  } sink;
  vigil::FlowTableConfig fc;
  fc.max_flows = 4096;
  fc.hash_seed = 1;
  vigil::FlowTable table(fc, &sink);
  vigil::AppLayer app(vigil::AppLayerConfig{});
  table.SetObserver(&app);
  vigil::RawPacket pkt;
  uint64_t packets = 0, prefixes = 0;
  std::vector<vigil::ArpBinding> arp;
  for (;;) {
    const vigil::ReadResult r = source.Next(&pkt);
    if (r == vigil::ReadResult::kError) {
      std::fprintf(stderr, "vigil_replay: %s\n", source.message().c_str());
      return 2;
    }
    if (r != vigil::ReadResult::kPacket) break;
    ++packets;
    const uint32_t last = pkt.caplen < kMaxPrefix ? pkt.caplen : kMaxPrefix;
    for (uint32_t len = 1; len <= pkt.caplen; len = len == last ? pkt.caplen + 1 : len + 1) {
      const uint32_t n = len > last ? pkt.caplen : len;
      std::vector<uint8_t> copy(pkt.data, pkt.data + n);  // its own allocation: ASan flags any read past n
      vigil::PacketView v;
      const vigil::DecodeStatus st = vigil::DecodePacket(source.link_type(), copy.data(), n, pkt.wirelen, v);
      if (st == vigil::DecodeStatus::kOk || (v.ip_version != 0 && v.is_fragment && !v.is_first_fragment)) {
        table.Process(v, pkt.ts_ns);
      } else if (st == vigil::DecodeStatus::kNonIp) {
        app.OnNonIp(v, pkt.ts_ns);
      }
      ++prefixes;
      if (n == pkt.caplen) break;
    }
    table.Expire(pkt.ts_ns);
    while (app.DrainArp(&arp, 1024) > 0) arp.clear();
  }
  while (!table.FlushSome(1024)) {
  }
  const vigil::AppLayerStats st = app.Stats();
  if (st.counters[vigil::kAppStatesLive] != 0) {
    std::fprintf(stderr, "vigil_replay: application states left after the flush\n");
    std::abort();
  }
  std::printf("{\"file\":");
  PrintJsonString(file);
  std::printf(",\"packets\":%" PRIu64 ",\"prefixes\":%" PRIu64 ",\"flows\":%" PRIu64 "}\n", packets, prefixes,
              sink.flows);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  vigil::CaptureConfig config;
  int status = 0;
  int files = 0;
  bool prefixes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-app-layer") {
      config.app.enabled = false;
      continue;
    }
    if (arg == "--prefixes") {
      prefixes = true;
      continue;
    }
    if (arg == "--max-flows" && i + 1 < argc) {
      config.flows.max_flows = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
      continue;
    }
    if (arg == "--snapshot-sec" && i + 1 < argc) {
      config.flows.snapshot_interval_ns = static_cast<int64_t>(std::atof(argv[++i]) * 1e9);
      continue;
    }
    ++files;
    auto source = std::make_unique<vigil::PcapSource>();
    if (source->OpenFile(arg, "") != vigil::CaptureError::kNone) {
      std::fprintf(stderr, "vigil_replay: %s\n", source->message().c_str());
      status = 2;
      continue;
    }
    if (prefixes) {
      if (ReplayPrefixes(arg, *source) != 0) status = 2;
      continue;
    }
    CountingOutput out;
    {
      vigil::CaptureThread loop(std::move(source), config, &out);
      loop.Run();
    }
    if (out.error_ != vigil::CaptureError::kNone) {
      std::fprintf(stderr, "vigil_replay: %s\n", out.message_.c_str());
      status = 2;
    }
    const vigil::CaptureStats& s = out.stats_;
    std::printf("{\"file\":");
    PrintJsonString(arg);
    std::printf(",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"flows\":%" PRIu64 ",\"snapshots\":%" PRIu64
                ",\"flowPackets\":%.0f,\"flowBytes\":%.0f,\"flowsEvicted\":%" PRIu64
                ",\"fragmentsAttributed\":%" PRIu64,
                s.packets, s.bytes, out.flows_, out.snapshots_, out.packets_, out.bytes_, s.flows_evicted,
                s.fragments_attributed);
    std::printf(",\"endReasons\":{");
    for (int r = 0; r < 7; ++r) {
      std::printf("%s\"%s\":%" PRIu64, r ? "," : "", vigil::EndReasonName(static_cast<vigil::EndReason>(r)),
                  out.reasons_[r]);
    }
    std::printf("},\"decodeErrors\":{");
    bool first = true;
    for (int d = 0; d < static_cast<int>(vigil::DecodeStatus::kCount); ++d) {
      const auto st = static_cast<vigil::DecodeStatus>(d);
      if (st == vigil::DecodeStatus::kOk || st == vigil::DecodeStatus::kNonIp) continue;
      std::printf("%s\"%s\":%" PRIu64, first ? "" : ",", vigil::DecodeStatusName(st), s.decode_errors[d]);
      first = false;
    }
    std::printf("},\"error\":");
    if (out.error_ == vigil::CaptureError::kNone)
      std::printf("null");
    else
      PrintJsonString(out.message_);
    std::printf("}\n");
  }
  if (files == 0) {
    std::fprintf(stderr,
                 "usage: vigil_replay [--max-flows N] [--snapshot-sec S] [--no-app-layer] [--prefixes] FILE...\n");
    return 2;
  }
  return status;
}
