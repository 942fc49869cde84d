// fuzz_arp: libFuzzer target over ParseArp and the ArpTable. The input is split into ARP packets: each one is a
// 1-byte length then that many bytes (the last one takes what is left), so one input drives a sequence of messages
// through a small table (capacity 4: evictions are exercised), with a drain of at most 3 after every packet. Besides
// memory safety, checks the invariants and aborts when one breaks. Packets are copied into a buffer of their exact
// size so that AddressSanitizer flags any read past len.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "app/arp.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vigil::ArpTable table(4);
  std::vector<vigil::ArpBinding> out;
  uint64_t added = 0;
  size_t pos = 0;
  int64_t ts = 0;
  while (pos < size) {
    size_t n = data[pos++];
    if (n > size - pos) n = size - pos;
    std::vector<uint8_t> packet(data + pos, data + pos + n);
    pos += n;
    vigil::ArpMessage m;
    const vigil::ArpStatus s = vigil::ParseArp(packet.data(), static_cast<uint32_t>(n), &m);
    Check(s < vigil::ArpStatus::kCount);
    if (s == vigil::ArpStatus::kOk) {
      Check(n >= 28 && (m.op == 1 || m.op == 2));
      ts += 1000;
      table.Add(m, ts);
      ++added;
    }
    Check(table.size() <= 4);
    out.clear();
    const size_t got = table.Drain(&out, 3);
    Check(got == out.size() && got <= 3);
    for (const vigil::ArpBinding& b : out) Check(b.requests + b.replies >= 1 && b.first_ns <= b.last_ns);
  }
  out.clear();
  table.Drain(&out, SIZE_MAX);
  // Every binding ever created is either still in the table or was evicted, and each came from one message.
  Check(table.size() <= 4 && table.size() + table.evictions() <= added);
  return 0;
}
