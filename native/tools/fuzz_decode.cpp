// fuzz_decode: libFuzzer target over DecodePacket. Input format (shared with `decode_pcap --seeds` and the
// regression fixtures in test/fixtures/regressions/):
//   bytes 0-1  link type (big-endian; any value, so unsupported types are exercised too)
//   bytes 2-3  wire bytes beyond the captured frame (big-endian): wirelen = caplen + this, as after a snap length cut
//   bytes 4-   the captured frame (caplen = size - 4), ending exactly at the end of libFuzzer's allocation so that
//              AddressSanitizer flags any read past caplen
// Besides memory safety, checks the decoder's own invariants and aborts when one breaks.
#include <cstdint>
#include <cstdlib>

#include "common/byte_order.h"
#include "decode/packet_view.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || size - 4 > UINT32_MAX / 2) return -1;  // not an input in our format: keep it out of the corpus
  const int link_type = vigil::be16(data);
  const uint32_t caplen = static_cast<uint32_t>(size - 4);
  const uint32_t wirelen = caplen + vigil::be16(data + 2);
  vigil::PacketView v;
  const vigil::DecodeStatus s = vigil::DecodePacket(link_type, data + 4, caplen, wirelen, v);
  Check(s < vigil::DecodeStatus::kCount);
  Check(v.caplen == caplen && v.wirelen == wirelen);
  Check(v.vlan_depth <= caplen / 4);
  if (s == vigil::DecodeStatus::kOk) {
    Check(v.ip_version == 4 || v.ip_version == 6);
    Check(v.ip_bytes <= wirelen);
    Check(v.l3_header_bytes <= v.ip_bytes);
    Check(static_cast<uint64_t>(v.l3_header_bytes) + v.l4_header_bytes + v.payload_bytes == v.ip_bytes);
    Check(!v.is_first_fragment || v.is_fragment);
    Check(!(v.is_fragment && !v.is_first_fragment && v.has_ports));
  }
  return 0;
}
