// IPv4 decoding.
#include "decode/ipv4.h"

#include <cstring>

#include "common/byte_order.h"

namespace vigil {

void MapIpv4(const uint8_t (&v4)[4], uint8_t (&out)[16]) {
  std::memset(out, 0, 10);
  out[10] = 0xFF;
  out[11] = 0xFF;
  std::memcpy(out + 12, v4, 4);
}

DecodeStatus DecodeIpv4(Reader& r, uint32_t wire_len, PacketView& out, L4Span& l4) {
  Ipv4Header h;
  if (!r.Peek(h)) {
    if (r.Has(1) && (r.current()[0] >> 4) != 4) return DecodeStatus::kBadIpVersion;
    return DecodeStatus::kTruncatedIp;
  }
  if ((h.version_ihl >> 4) != 4) return DecodeStatus::kBadIpVersion;

  out.ip_version = 4;
  MapIpv4(h.src, out.src);
  MapIpv4(h.dst, out.dst);
  out.protocol = h.protocol;
  out.ttl = h.ttl;
  const uint16_t flags_offset = be16(h.flags_offset);
  const uint16_t frag_offset = flags_offset & 0x1FFF;  // 8-byte units
  const bool more_fragments = (flags_offset & 0x2000) != 0;
  out.frag_id = be16(h.id);
  out.is_fragment = more_fragments || frag_offset != 0;
  out.is_first_fragment = more_fragments && frag_offset == 0;

  const uint32_t header_len = (h.version_ihl & 0x0F) * 4u;
  out.l3_header_bytes = static_cast<uint16_t>(header_len);
  if (header_len < sizeof(Ipv4Header)) return DecodeStatus::kBadIpHeaderLength;
  uint32_t total_len = be16(h.total_length);
  const bool length_from_frame = total_len == 0;
  if (length_from_frame) {
    // Length 0 means "the whole frame", whatever the protocol: a sending host captures TCP segmentation offload and
    // BIG TCP (> 64 KiB) segments, and UDP GSO super-packets (VXLAN over BIG TCP, QUIC), before the NIC or the stack
    // writes the length. Wireshark reads ip.len 0 the same way (its TSO preference, on by default).
    if (wire_len < header_len) return DecodeStatus::kBadIpTotalLength;
    total_len = wire_len;
  } else if (total_len < header_len) {
    return DecodeStatus::kBadIpHeaderLength;
  }
  if (total_len > wire_len) return DecodeStatus::kBadIpTotalLength;  // claims more than was on the wire
  out.ip_bytes = total_len;
  if (!r.Skip(header_len)) return DecodeStatus::kTruncatedIp;  // options cut by the snap length

  l4.data = r.current();
  l4.declared = total_len - header_len;
  l4.captured = r.remaining() < l4.declared ? r.remaining() : l4.declared;
  l4.present = !out.is_fragment || out.is_first_fragment;
  l4.zero_udp_length_ok =
      length_from_frame;  // a GSO super-packet's UDP length is 0 too: "to the end of the IP payload"
  out.payload_bytes = l4.declared;
  return DecodeStatus::kOk;
}

}  // namespace vigil
