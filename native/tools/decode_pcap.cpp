// decode_pcap: reads capture files with libpcap and runs every frame through DecodePacket, printing per-status and
// per-protocol counts as one JSON line per file. Used by the ASan/UBSan replay (scripts/asan.sh) and for debugging.
// Usage: decode_pcap FILE...   Exit: 0 ok, 2 when a file cannot be opened or read (message on stderr).
#include <pcap/pcap.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "decode/packet_view.h"

namespace {

int DecodeFile(const char* path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* handle = pcap_open_offline(path, errbuf);
  if (handle == nullptr) {
    std::fprintf(stderr, "decode_pcap: cannot open %s: %s\n", path, errbuf);
    return 2;
  }
  const int link_type = pcap_datalink(handle);
  uint64_t status_counts[static_cast<int>(vigil::DecodeStatus::kCount)] = {0};
  uint64_t packets = 0, ip_bytes = 0, fragments = 0, with_ports = 0;
  uint64_t tcp = 0, udp = 0, icmp = 0, other = 0;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc;
  vigil::PacketView view;
  while ((rc = pcap_next_ex(handle, &hdr, &data)) == 1) {
    ++packets;
    const vigil::DecodeStatus s = vigil::DecodePacket(link_type, data, hdr->caplen, hdr->len, view);
    ++status_counts[static_cast<int>(s)];
    if (s != vigil::DecodeStatus::kOk) continue;
    ip_bytes += view.ip_bytes;
    if (view.is_fragment) ++fragments;
    if (view.has_ports) ++with_ports;
    switch (view.protocol) {
      case 6: ++tcp; break;
      case 17: ++udp; break;
      case 1: case 58: ++icmp; break;
      default: ++other; break;
    }
  }
  int exit_code = 0;
  if (rc == PCAP_ERROR) {
    std::fprintf(stderr, "decode_pcap: error reading %s after %" PRIu64 " packets: %s\n", path, packets,
                 pcap_geterr(handle));
    exit_code = 2;
  }
  std::printf("{\"file\":\"%s\",\"linkType\":%d,\"packets\":%" PRIu64 ",\"ipBytes\":%" PRIu64
              ",\"fragments\":%" PRIu64 ",\"withPorts\":%" PRIu64 ",\"tcp\":%" PRIu64 ",\"udp\":%" PRIu64
              ",\"icmp\":%" PRIu64 ",\"other\":%" PRIu64 ",\"status\":{",
              path, link_type, packets, ip_bytes, fragments, with_ports, tcp, udp, icmp, other);
  bool first = true;
  for (int i = 0; i < static_cast<int>(vigil::DecodeStatus::kCount); ++i) {
    if (status_counts[i] == 0) continue;
    std::printf("%s\"%s\":%" PRIu64, first ? "" : ",", vigil::DecodeStatusName(static_cast<vigil::DecodeStatus>(i)),
                status_counts[i]);
    first = false;
  }
  std::printf("}}\n");
  pcap_close(handle);
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: decode_pcap FILE...\n");
    return 64;
  }
  int exit_code = 0;
  for (int i = 1; i < argc; ++i) {
    const int rc = DecodeFile(argv[i]);
    if (rc != 0) exit_code = rc;
  }
  return exit_code;
}
