// fuzz_app: libFuzzer target over the whole application layer as the capture thread drives it: frames are decoded,
// accounted in a small FlowTable and inspected by an AppLayer (every parser, the reassembly buffers, the DNS cache and
// the ARP table), then every flow is flushed and its application state read. Input format: the fuzz_decode seed
// format (u16 link type, u16 wire bytes beyond the frame, then the frame), where the frame part may hold several
// frames separated by the 4 bytes F0 0D CA FE (so the mutator can build multi-packet flows from single-frame seeds).
// Checks that every text field stays within its bound and aborts when one does not.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/app_layer.h"
#include "app/bounded_text.h"
#include "common/byte_order.h"
#include "decode/packet_view.h"
#include "flow/flow_table.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

constexpr uint8_t kSeparator[4] = {0xF0, 0x0D, 0xCA, 0xFE};

class ReadingSink : public vigil::FlowSink {
 public:
  void OnFlow(const vigil::FlowEntry& e, vigil::EndReason) override {
    Check(e.app_proto < static_cast<uint8_t>(vigil::AppProto::kCount));
    const vigil::AppState* a = e.app;
    if (a == nullptr) return;
    Check(a->resolved_name.size() <= vigil::kNameBytes);
    if (a->dns) Check(a->dns->query.size() <= vigil::kNameBytes);
    if (a->tls) Check(a->tls->sni.size() <= vigil::kNameBytes && a->tls->ja3.size() <= 32 && a->tls->ja4.size() < 40);
    if (a->http) {
      Check(a->http->host.size() <= vigil::kNameBytes && a->http->uri.size() <= vigil::kLongBytes);
      Check(a->http->user_agent.size() <= vigil::kLongBytes);
    }
    if (a->ssh) Check(a->ssh->client.size() <= vigil::kNameBytes && a->ssh->server.size() <= vigil::kNameBytes);
    if (a->dhcp) Check(a->dhcp->hostname.size() <= vigil::kNameBytes);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || size - 4 > UINT32_MAX / 2) return -1;
  const int link_type = vigil::be16(data);
  const uint32_t extra = vigil::be16(data + 2);
  ReadingSink sink;
  vigil::FlowTableConfig fc;
  fc.max_flows = 64;
  fc.hash_seed = 1;
  vigil::FlowTable table(fc, &sink);
  vigil::AppLayerConfig ac;
  ac.dns_cache_entries = 64;
  ac.arp_entries = 16;
  vigil::AppLayer app(ac);
  table.SetObserver(&app);

  const uint8_t* p = data + 4;
  const uint8_t* end = data + size;
  int64_t ts = 1'000'000'000LL;
  while (p <= end) {
    const uint8_t* next = end;
    for (const uint8_t* q = p; q + 4 <= end; ++q) {
      if (std::memcmp(q, kSeparator, 4) == 0) {
        next = q;
        break;
      }
    }
    // Copy each frame into its own allocation so AddressSanitizer sees any read past its end.
    const uint32_t caplen = static_cast<uint32_t>(next - p);
    std::vector<uint8_t> frame(p, next);
    vigil::PacketView v;
    const vigil::DecodeStatus s =
        vigil::DecodePacket(link_type, frame.empty() ? nullptr : frame.data(), caplen, caplen + extra, v);
    if (s == vigil::DecodeStatus::kOk || (v.ip_version != 0 && v.is_fragment && !v.is_first_fragment)) {
      table.Process(v, ts);
    } else if (s == vigil::DecodeStatus::kNonIp) {
      app.OnNonIp(v, ts);
    }
    ts += 1'000'000;
    if (next == end) break;
    p = next + 4;
  }
  std::vector<vigil::ArpBinding> arp;
  while (app.DrainArp(&arp, 8) > 0) {
  }
  while (!table.FlushSome(16)) {
  }
  const vigil::AppLayerStats st = app.Stats();
  Check(st.counters[vigil::kAppStatesLive] == 0);  // every state went back when its flow ended
  return 0;
}
