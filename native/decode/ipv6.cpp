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

constexpr uint8_t kOptPad1 = 0x00;
constexpr uint8_t kOptPadN = 0x01;
constexpr uint32_t kMaxAlignmentPadding = 7;  // RFC 8200 4.2: padding aligns to 8 bytes at most

// Option types of the IANA "Destination Options and Hop-by-Hop Options" registry (ipv6-parameters), experimental
// ones (RFC 4727: x1E) excluded: anything else is unknown.
bool IsRegisteredOption(uint8_t type) {
  switch (type) {
    case 0x00:  // Pad1
    case 0x01:  // PadN
    case 0x04:  // Tunnel Encapsulation Limit (RFC 2473)
    case 0x05:  // Router Alert (RFC 2711)
    case 0x07:  // CALIPSO (RFC 5570)
    case 0x08:  // SMF_DPD (RFC 7731)
    case 0x0F:  // Performance and Diagnostic Metrics (RFC 8250)
    case 0x11:  // IOAM destination option (RFC 9486)
    case 0x12:  // Alternate Marking (RFC 9343)
    case 0x23:  // RPL Option (RFC 9008)
    case 0x26:  // Quick-Start (RFC 4782)
    case 0x30:  // Minimum Path MTU (RFC 9268)
    case 0x31:  // IOAM hop-by-hop option (RFC 9486)
    case 0x63:  // RPL Option (RFC 6553)
    case 0x6D:  // MPL Option (RFC 7731)
    case 0x8A:  // Endpoint Identification (deprecated)
    case 0x8B:  // ILNP Nonce (RFC 6744)
    case 0x8C:  // Line-Identification (RFC 6788)
    case 0xC2:  // Jumbo Payload (RFC 2675)
    case 0xC9:  // Home Address (RFC 6275)
    case 0xEE:  // IP_DFF (RFC 6971)
      return true;
    default:
      return false;
  }
}

// Data bytes a common host stack sends with this option, or -1 when common stacks do not send it.
int StackOptionLength(uint8_t type) {
  switch (type) {
    case 0x04:
      return 1;  // Tunnel Encapsulation Limit
    case 0x05:
      return 2;  // Router Alert
    case 0xC2:
      return 4;  // Jumbo Payload
    case 0xC9:
      return 16;  // Home Address
    default:
      return -1;
  }
}

// Walks the options of one hop-by-hop or destination options header (`opts`: the `len` bytes after its next-header
// and length bytes, all captured) into out's anomaly bits and covert bytes.
void InspectOptions(const uint8_t* opts, uint32_t len, PacketView& out) {
  uint32_t off = 0;
  uint32_t padding_run = 0;  // consecutive padding bytes
  bool padding = false;
  bool other = false;
  uint16_t anomalies = 0;
  uint32_t covert = 0;
  while (off < len) {
    const uint8_t type = opts[off];
    if (type == kOptPad1) {
      padding = true;
      ++off;
      if (++padding_run > kMaxAlignmentPadding) anomalies |= kIpv6ExcessPadding;
      continue;
    }
    if (len - off < 2 || opts[off + 1] > len - off - 2) {  // no length byte, or data beyond the header
      anomalies |= kIpv6BadOptionLength;
      covert += len - off;
      break;
    }
    const uint8_t data_len = opts[off + 1];
    const uint8_t* data = opts + off + 2;
    if (type == kOptPadN) {
      padding = true;
      padding_run += 2u + data_len;
      if (padding_run > kMaxAlignmentPadding) anomalies |= kIpv6ExcessPadding;
      if (data_len == 0) anomalies |= kIpv6ZeroLengthPadN;
      for (uint8_t k = 0; k < data_len; ++k) {
        if (data[k] != 0) {
          anomalies |= kIpv6PadNNonZero;
          covert += data_len;
          break;
        }
      }
    } else {
      padding_run = 0;
      other = true;
      if (!IsRegisteredOption(type)) anomalies |= kIpv6UnknownOption;
      const int expected = StackOptionLength(type);
      if (expected < 0) {
        covert += data_len;
      } else if (data_len > expected) {
        covert += data_len - static_cast<uint32_t>(expected);
      }
    }
    off += 2u + data_len;
  }
  if (padding && !other) anomalies |= kIpv6OnlyPadding;
  out.ipv6_anomalies |= anomalies;
  out.ipv6_covert_bytes += covert;
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
  uint8_t dest_opts = 0, routing = 0, fragments = 0, ah = 0;  // headers of each kind so far (RFC 8200 4.1 order)
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
    const uint8_t* header = r.current();
    if (next == kIpProtoHopByHop || next == kIpProtoDestOpts) {
      out.ipv6_option_headers++;
      InspectOptions(header + sizeof(Ipv6ExtensionHeader), len - sizeof(Ipv6ExtensionHeader), out);
    }
    const bool duplicate = (next == kIpProtoDestOpts && ++dest_opts > 2) ||
                           (next == kIpProtoRouting && ++routing > 1) ||
                           (next == kIpProtoFragment && ++fragments > 1) || (next == kIpProtoAh && ++ah > 1);
    if (duplicate) out.ipv6_anomalies |= kIpv6DuplicateHeader;
    if (next == kIpProtoRouting && header[2] == 0) out.ipv6_anomalies |= kIpv6RoutingType0;
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

  if (!later_fragment && next == kIpProtoNoNext && left > 0) {
    out.ipv6_anomalies |= kIpv6DataAfterNone;
    out.ipv6_covert_bytes += left;
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
