// ICMP / ICMPv6 decoding.
#include "decode/icmp.h"

#include "common/reader.h"

namespace vigil {

DecodeStatus DecodeIcmp(const L4Span& l4, PacketView& out) {
  if (l4.declared < sizeof(IcmpHeader)) return DecodeStatus::kBadIpTotalLength;
  Reader r(l4.data, l4.captured);
  IcmpHeader h;
  if (!r.Peek(h)) return DecodeStatus::kTruncatedL4;
  out.has_ports = true;
  out.src_port = h.type;
  out.dst_port = h.code;
  out.l4_header_bytes = l4.declared < kIcmpHeaderBytes ? static_cast<uint16_t>(l4.declared) : kIcmpHeaderBytes;
  out.payload_bytes = l4.declared - out.l4_header_bytes;
  return DecodeStatus::kOk;
}

}  // namespace vigil
