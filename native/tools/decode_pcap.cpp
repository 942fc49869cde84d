// decode_pcap: reads capture files with libpcap and runs every frame through DecodePacket, printing per-status and
// per-protocol counts as one JSON line per file. Used by the ASan/UBSan replay (scripts/asan.sh), to seed the
// decoder fuzzer (--seeds) and for debugging.
// Usage: decode_pcap [--seeds DIR] FILE...
//   --seeds DIR  also writes fuzz seeds to DIR: the first kSeedsPerFile frames of each file plus the first frame of
//                every other decode status, in fuzz_decode's input format
//                [link type, be16][wire bytes beyond the stored frame, be16][frame, at most kSeedFrameBytes].
// Exit: 0 ok, 2 when a file cannot be opened or read (message on stderr).
#include <pcap/pcap.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "decode/packet_view.h"

namespace {

constexpr int kSeedsPerFile = 48;
constexpr uint32_t kSeedFrameBytes = 256;  // headers of every layer fit; keeps the fuzzer's inputs short
const char* g_seed_dir = nullptr;
int g_seed_count = 0;

// Writes one fuzz seed; failures only lose a seed, so they are reported and ignored.
void WriteSeed(int link_type, const uint8_t* data, uint32_t caplen, uint32_t wirelen) {
  const uint32_t stored = caplen < kSeedFrameBytes ? caplen : kSeedFrameBytes;
  const uint32_t extra_wire = wirelen > stored ? (wirelen - stored > 0xFFFF ? 0xFFFF : wirelen - stored) : 0;
  char path[4096];
  std::snprintf(path, sizeof path, "%s/seed-%05d", g_seed_dir, g_seed_count++);
  FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return;
  }
  const uint8_t header[4] = {static_cast<uint8_t>(link_type >> 8), static_cast<uint8_t>(link_type),
                             static_cast<uint8_t>(extra_wire >> 8), static_cast<uint8_t>(extra_wire)};
  std::fwrite(header, 1, sizeof header, f);
  std::fwrite(data, 1, stored, f);
  std::fclose(f);
}

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
    // An exact-size copy: libpcap's buffer continues past caplen, so only this lets ASan see a read beyond it.
    std::unique_ptr<uint8_t[]> frame(new uint8_t[hdr->caplen > 0 ? hdr->caplen : 1]);
    std::memcpy(frame.get(), data, hdr->caplen);
    const vigil::DecodeStatus s = vigil::DecodePacket(link_type, frame.get(), hdr->caplen, hdr->len, view);
    if (g_seed_dir != nullptr && (packets <= kSeedsPerFile || status_counts[static_cast<int>(s)] == 0)) {
      WriteSeed(link_type, data, hdr->caplen, hdr->len);
    }
    ++status_counts[static_cast<int>(s)];
    if (s != vigil::DecodeStatus::kOk) continue;
    ip_bytes += view.ip_bytes;
    if (view.is_fragment) ++fragments;
    if (view.has_ports) ++with_ports;
    switch (view.protocol) {
      case 6:
        ++tcp;
        break;
      case 17:
        ++udp;
        break;
      case 1:
      case 58:
        ++icmp;
        break;
      default:
        ++other;
        break;
    }
  }
  int exit_code = 0;
  if (rc == PCAP_ERROR) {
    std::fprintf(stderr, "decode_pcap: error reading %s after %" PRIu64 " packets: %s\n", path, packets,
                 pcap_geterr(handle));
    exit_code = 2;
  }
  std::printf("{\"file\":\"%s\",\"linkType\":%d,\"packets\":%" PRIu64 ",\"ipBytes\":%" PRIu64 ",\"fragments\":%" PRIu64
              ",\"withPorts\":%" PRIu64 ",\"tcp\":%" PRIu64 ",\"udp\":%" PRIu64 ",\"icmp\":%" PRIu64
              ",\"other\":%" PRIu64 ",\"status\":{",
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
  int first_file = 1;
  if (argc > 2 && std::strcmp(argv[1], "--seeds") == 0) {
    g_seed_dir = argv[2];
    first_file = 3;
  }
  if (first_file >= argc) {
    std::fprintf(stderr, "usage: decode_pcap [--seeds DIR] FILE...\n");
    return 64;
  }
  int exit_code = 0;
  for (int i = first_file; i < argc; ++i) {
    const int rc = DecodeFile(argv[i]);
    if (rc != 0) exit_code = rc;
  }
  return exit_code;
}
