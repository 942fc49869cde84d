// UDP decoding.
#include "decode/udp.h"

#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {

DecodeStatus DecodeUdp(const L4Span& l4, PacketView& out) {
  if (l4.declared < sizeof(UdpHeader)) return DecodeStatus::kBadIpTotalLength;
  Reader r(l4.data, l4.captured);
  UdpHeader h;
  if (!r.Peek(h)) return DecodeStatus::kTruncatedL4;
  out.has_ports = true;
  out.src_port = be16(h.src_port);
  out.dst_port = be16(h.dst_port);
  out.l4_header_bytes = sizeof(UdpHeader);
  out.payload_bytes = l4.declared - sizeof(UdpHeader);
  const uint32_t udp_len = be16(h.length);
  if (udp_len < sizeof(UdpHeader)) {
    if (!(udp_len == 0 && l4.zero_udp_length_ok)) return DecodeStatus::kBadUdpLength;
  } else if (udp_len > l4.declared && !out.is_first_fragment) {
    return DecodeStatus::kBadUdpLength;
  }
  uint32_t end = l4.captured;  // already capped at the IP-declared length
  if (udp_len >= sizeof(UdpHeader) && udp_len < end) end = udp_len;
  if (end > sizeof(UdpHeader)) {
    out.payload = l4.data + sizeof(UdpHeader);
    out.payload_captured = end - sizeof(UdpHeader);
  }
  return DecodeStatus::kOk;
}

}  // namespace vigil
