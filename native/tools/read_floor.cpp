// read_floor: the benchmark's lower bound - opens a capture with libpcap and calls pcap_next_ex until the end, doing
// nothing with the packets but counting them. Prints one JSON line: packets, captured/wire bytes and the seconds from
// pcap_open_offline to the last packet (steady clock).
// Usage: read_floor FILE   Exit: 0 ok, 2 when the file cannot be opened or read.
#include <pcap/pcap.h>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_floor FILE\n");
    return 64;
  }
  const auto start = std::chrono::steady_clock::now();
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* handle = pcap_open_offline(argv[1], errbuf);
  if (handle == nullptr) {
    std::fprintf(stderr, "read_floor: cannot open %s: %s\n", argv[1], errbuf);
    return 2;
  }
  uint64_t packets = 0, cap_bytes = 0, wire_bytes = 0;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc;
  while ((rc = pcap_next_ex(handle, &hdr, &data)) == 1) {
    ++packets;
    cap_bytes += hdr->caplen;
    wire_bytes += hdr->len;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rc == PCAP_ERROR) {
    std::fprintf(stderr, "read_floor: error reading %s: %s\n", argv[1], pcap_geterr(handle));
    pcap_close(handle);
    return 2;
  }
  pcap_close(handle);
  std::printf("{\"packets\":%" PRIu64 ",\"capBytes\":%" PRIu64 ",\"wireBytes\":%" PRIu64 ",\"seconds\":%.6f}\n",
              packets, cap_bytes, wire_bytes, seconds);
  return 0;
}
