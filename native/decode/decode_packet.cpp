// DecodePacket: dispatch from the link type through L3 to L4 (the single entry point of native/decode).
#include <cstdint>

#include "common/reader.h"
#include "decode/ethernet.h"
#include "decode/icmp.h"
#include "decode/ip_protocol.h"
#include "decode/ipv4.h"
#include "decode/ipv6.h"
#include "decode/l4_span.h"
#include "decode/link_type.h"
#include "decode/linux_sll.h"
#include "decode/null_loopback.h"
#include "decode/packet_view.h"
#include "decode/tcp.h"
#include "decode/udp.h"

namespace vigil {
namespace {

DecodeStatus DecodeL4(const L4Span& l4, PacketView& out) {
  if (!l4.present) return DecodeStatus::kOk;
  switch (out.protocol) {
    case kIpProtoTcp:
      return DecodeTcp(l4, out);
    case kIpProtoUdp:
      return DecodeUdp(l4, out);
    case kIpProtoIcmp:
    case kIpProtoIcmpv6:
      return DecodeIcmp(l4, out);
    default:
      return DecodeStatus::kOk;  // port-less protocol (GRE, ESP, SCTP, ...): payload_bytes = IP payload
  }
}

DecodeStatus DecodeIp(Reader& r, uint16_t ethertype, uint32_t wire_len, PacketView& out) {
  if (ethertype == kEtherTypeAutoIp) {
    if (!r.Has(1)) return DecodeStatus::kTruncatedIp;
    const uint8_t version = r.current()[0] >> 4;
    if (version == 4) {
      ethertype = kEtherTypeIpv4;
    } else if (version == 6) {
      ethertype = kEtherTypeIpv6;
    } else {
      return DecodeStatus::kBadIpVersion;
    }
  }
  L4Span l4;
  DecodeStatus s;
  if (ethertype == kEtherTypeIpv4) {
    s = DecodeIpv4(r, wire_len, out, l4);
  } else if (ethertype == kEtherTypeIpv6) {
    s = DecodeIpv6(r, wire_len, out, l4);
  } else {
    out.ethertype = ethertype;
    out.l3 = r.current();
    out.l3_captured = r.remaining();
    return DecodeStatus::kNonIp;
  }
  if (s != DecodeStatus::kOk) return s;
  return DecodeL4(l4, out);
}

}  // namespace

DecodeStatus DecodePacket(int link_type, const uint8_t* data, uint32_t caplen, uint32_t wirelen, PacketView& out) {
  out = PacketView{};
  out.caplen = caplen;
  out.wirelen = wirelen;
  if (data == nullptr) caplen = 0;
  Reader r(data, caplen);
  uint16_t ethertype = kEtherTypeAutoIp;
  DecodeStatus s = DecodeStatus::kOk;
  switch (link_type) {
    case kLinkEthernet:
      s = DecodeEthernet(r, out, ethertype);
      break;
    case kLinkLinuxSll:
      s = DecodeLinuxSll(r, out, ethertype);
      break;
    case kLinkLinuxSll2:
      s = DecodeLinuxSll2(r, out, ethertype);
      break;
    case kLinkNull:
      s = DecodeNullLoopback(r, false, ethertype);
      break;
    case kLinkLoop:
      s = DecodeNullLoopback(r, true, ethertype);
      break;
    case kLinkRaw:
    case kLinkRawOpenBsd:
    case kLinkRawIp:
      ethertype = kEtherTypeAutoIp;
      break;
    case kLinkIpv4:
      ethertype = kEtherTypeIpv4;
      break;
    case kLinkIpv6:
      ethertype = kEtherTypeIpv6;
      break;
    default:
      return DecodeStatus::kUnsupportedLinkType;
  }
  if (s == DecodeStatus::kNonIp) {
    out.ethertype = ethertype;
    out.l3 = r.current();
    out.l3_captured = r.remaining();
  }
  if (s != DecodeStatus::kOk) return s;
  // Bytes of L3 as on the wire. A (corrupt) wirelen below caplen is ignored in favour of what was captured.
  const uint32_t frame_len = wirelen > caplen ? wirelen : caplen;
  return DecodeIp(r, ethertype, frame_len - r.offset(), out);
}

}  // namespace vigil
