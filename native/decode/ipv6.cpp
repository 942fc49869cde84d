// IPv6 decoding.
#include "decode/ipv6.h"

#include <cstring>

#include "common/byte_order.h"
#include "decode/ip_protocol.h"

namespace vigil {
namespace {

bool IsExtensionHeader(uint8_t next) {
  return next == kIpProtoHopByHop || next == kIpProtoRouting || next == kIpProtoFragment || next == kIpProtoDestOpts ||
         next == kIpProtoAh;
}

}  // namespace

DecodeStatus DecodeIpv6(Reader& r, uint32_t wire_len, PacketView& out, L4Span& l4) {
  Ipv6Header h;
  if (!r.Peek(h)) {
    if (r.Has(1) && (r.current()[0] >> 4) != 6) return DecodeStatus::kBadIpVersion;
    return DecodeStatus::kTruncatedIp;
  }
  if ((h.version_class_flow[0] >> 4) != 6) return DecodeStatus::kBadIpVersion;

  out.ip_version = 6;
  std::memcpy(out.src, h.src, 16);
  std::memcpy(out.dst, h.dst, 16);
  out.protocol = h.next_header;
  out.ttl = h.hop_limit;
  out.l3_header_bytes = sizeof(Ipv6Header);

  const uint32_t payload_len = be16(h.payload_length);
  // Payload length 0 means "see elsewhere" for a jumbogram (RFC 2675: hop-by-hop Jumbo Payload option) and for a
  // BIG TCP packet captured before segmentation (newer Linux omits the hop-by-hop header): the frame holds it all.
  const bool jumbo = payload_len == 0 && (h.next_header == kIpProtoHopByHop || h.next_header == kIpProtoTcp);
  const uint32_t total_len = jumbo ? wire_len : sizeof(Ipv6Header) + payload_len;
  if (total_len > wire_len) return DecodeStatus::kBadIpTotalLength;
  out.ip_bytes = total_len;
  r.Skip(sizeof(Ipv6Header));

  uint32_t left = total_len - sizeof(Ipv6Header);  // declared bytes not yet consumed
  uint32_t ext_bytes = 0;
  uint8_t next = h.next_header;
  bool later_fragment = false;
  for (int count = 0; IsExtensionHeader(next); ++count) {
    if (count == kMaxIpv6ExtensionHeaders) return DecodeStatus::kBadIpv6ExtHeader;
    if (next == kIpProtoHopByHop && count != 0) return DecodeStatus::kBadIpv6ExtHeader;  // RFC 8200 4.1: first only
    uint32_t len;
    if (next == kIpProtoFragment) {
      len = sizeof(Ipv6FragmentHeader);
    } else {
      Ipv6ExtensionHeader ext;
      if (left < sizeof ext) return DecodeStatus::kBadIpv6ExtHeader;
      if (!r.Peek(ext)) return DecodeStatus::kTruncatedIp;
      len = next == kIpProtoAh ? (ext.length + 2u) * 4u : (ext.length + 1u) * 8u;
    }
    if (len > left) return DecodeStatus::kBadIpv6ExtHeader;
    if (!r.Has(len)) return DecodeStatus::kTruncatedIp;
    if (next == kIpProtoFragment) {
      Ipv6FragmentHeader frag;
      r.Peek(frag);
      const uint16_t offset_flags = be16(frag.offset_flags);
      const uint16_t offset = offset_flags >> 3;  // 8-byte units
      const bool more = (offset_flags & 1) != 0;
      if (offset != 0 || more) {  // offset 0 without M is an atomic fragment (RFC 6946): a whole packet
        out.is_fragment = true;
        out.is_first_fragment = offset == 0;
        out.frag_id = be32(frag.id);
        later_fragment = offset != 0;
      }
    }
    next = r.current()[0];
    r.Skip(len);
    left -= len;
    ext_bytes += len;
    out.protocol = next;
    out.l3_header_bytes = static_cast<uint16_t>(sizeof(Ipv6Header) + ext_bytes);
    if (later_fragment) break;  // what follows is the middle of the original payload, not headers
  }

  l4.data = r.current();
  l4.declared = left;
  l4.captured = r.remaining() < left ? r.remaining() : left;
  l4.present = !later_fragment && next != kIpProtoNoNext;
  l4.zero_udp_length_ok = jumbo;
  out.payload_bytes = left;
  return DecodeStatus::kOk;
}

}  // namespace vigil
