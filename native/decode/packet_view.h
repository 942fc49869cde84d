// PacketView: the result of decoding one captured frame, L2 through L4. The decoder fills it; the flow table reads it.
// This struct is the contract between native/decode (producer) and native/flow + native/features (consumers).
#pragma once

#include <cstdint>

namespace vigil {

// Why a frame could not be (fully) decoded. Every value is a per-reason counter in the capture statistics; the
// names (see DecodeStatusName) are the keys of `decodeErrors` in JS.
enum class DecodeStatus : uint8_t {
  kOk = 0,
  kUnsupportedLinkType,  // link type the decoder does not handle
  kTruncatedL2,          // captured bytes end inside the link-layer header or VLAN tags
  kNonIp,                // valid L2 carrying a non-IP ethertype (ARP, LLDP, ...); counted, not an error per se
  kTruncatedIp,          // captured bytes end inside the IPv4/IPv6 header (or an IPv6 extension header)
  kBadIpVersion,         // version nibble does not match the ethertype / link type
  kBadIpHeaderLength,    // IPv4 IHL < 5 or larger than the total length
  kBadIpTotalLength,     // IP total/payload length smaller than the header(s) (IP + minimal L4), larger than the
                         // frame was on the wire, or IPv4 total length 0 on a non-TCP packet (TSO applies to TCP only)
  kBadIpv6ExtHeader,     // malformed IPv6 extension header chain (or too many headers)
  kTruncatedL4,          // captured bytes end inside the TCP/UDP/ICMP header (ports unknown, unless only TCP
                         // options are cut: then has_ports is set)
  kBadTcpHeaderLength,   // TCP data offset < 5 or beyond the IP payload
  kBadUdpLength,         // UDP length field < 8 or larger than the IP payload
  kFragmentNoFlow,       // non-first IP fragment whose flow is unknown (attributed elsewhere if possible)
  kCount
};

// Stable names used as counter keys in JS (`decodeErrors.truncated_ip`, ...).
inline const char* DecodeStatusName(DecodeStatus s) {
  switch (s) {
    case DecodeStatus::kOk:
      return "ok";
    case DecodeStatus::kUnsupportedLinkType:
      return "unsupported_link_type";
    case DecodeStatus::kTruncatedL2:
      return "truncated_l2";
    case DecodeStatus::kNonIp:
      return "non_ip";
    case DecodeStatus::kTruncatedIp:
      return "truncated_ip";
    case DecodeStatus::kBadIpVersion:
      return "bad_ip_version";
    case DecodeStatus::kBadIpHeaderLength:
      return "bad_ip_header_length";
    case DecodeStatus::kBadIpTotalLength:
      return "bad_ip_total_length";
    case DecodeStatus::kBadIpv6ExtHeader:
      return "bad_ipv6_ext_header";
    case DecodeStatus::kTruncatedL4:
      return "truncated_l4";
    case DecodeStatus::kBadTcpHeaderLength:
      return "bad_tcp_header_length";
    case DecodeStatus::kBadUdpLength:
      return "bad_udp_length";
    case DecodeStatus::kFragmentNoFlow:
      return "fragment_no_flow";
    case DecodeStatus::kCount:
      break;
  }
  return "unknown";
}

// What the IPv6 decoder flags in a packet's extension-header chain (PacketView::ipv6_anomalies), after the decoder
// events of Suricata (src/decode-ipv6.c DecodeIPV6ExtHdrs, rules/decoder-events.rules `decoder.ipv6.*`) and the RFCs
// they enforce. Bits of the flow's `ipv6OptAnomalies` column: the values are part of the batch layout.
enum Ipv6Anomaly : uint16_t {
  kIpv6UnknownOption = 1 << 0,    // a hop-by-hop or destination option type IANA never assigned
                                  // (Suricata hopopts_unknown_opt / dstopts_unknown_opt)
  kIpv6OnlyPadding = 1 << 1,      // an options header holding nothing but Pad1/PadN (hopopts/dstopts_only_padding)
  kIpv6ZeroLengthPadN = 1 << 2,   // PadN with no data (zero_len_padn); Linux's MLD reports send one after Router Alert
  kIpv6PadNNonZero = 1 << 3,      // PadN whose data is not all zero (RFC 8200 4.2; RFC 4942 2.1.9.5 covert channel)
  kIpv6BadOptionLength = 1 << 4,  // an option overrunning its header (exthdr_invalid_optlen)
  kIpv6DuplicateHeader = 1 << 5,  // destination options more than twice, or routing, fragment or AH more than once
                                  // (RFC 8200 4.1; exthdr_dupl_dh/rh/fh/ah)
  kIpv6DataAfterNone = 1 << 6,    // bytes after a No Next Header (data_after_none_header)
  kIpv6RoutingType0 = 1 << 7,     // routing header type 0, deprecated by RFC 5095 (rh_type_0)
  kIpv6ExcessPadding = 1 << 8,    // more than 7 consecutive padding bytes (RFC 8200 alignment needs at most 7;
                                  // Linux net/ipv6/exthdrs.c ip6_parse_tlv drops such packets)
};

// TCP flag bits as on the wire (byte 13 of the TCP header).
enum TcpFlag : uint8_t {
  kTcpFin = 0x01,
  kTcpSyn = 0x02,
  kTcpRst = 0x04,
  kTcpPsh = 0x08,
  kTcpAck = 0x10,
  kTcpUrg = 0x20,
  kTcpEce = 0x40,
  kTcpCwr = 0x80,
};

constexpr int kMaxVlanTags = 2;  // outer + inner are kept; deeper tags are skipped but counted in vlan_depth

struct PacketView {
  // --- L2 ---
  uint16_t vlan[kMaxVlanTags] = {0, 0};  // VLAN ids (12 bits), outermost first; 0 when absent
  uint8_t vlan_depth = 0;                // number of 802.1Q/802.1ad tags seen (may exceed kMaxVlanTags)

  // --- L3 ---
  uint8_t ip_version = 0;        // 4 or 6; 0 when the frame carried no decodable IP packet
  uint8_t src[16] = {0};         // source address; IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d)
  uint8_t dst[16] = {0};         // destination address, same encoding
  uint8_t protocol = 0;          // IANA protocol number of the upper layer (after IPv6 extension headers)
  uint8_t ttl = 0;               // IPv4 TTL / IPv6 hop limit
  uint32_t ip_bytes = 0;         // bytes at the IP layer from the length fields (IPv4 total length; IPv6 40 + payload
                                 // length); frame length minus L2 when IPv4 total length is 0 (TSO) or IPv6 jumbo
  uint16_t l3_header_bytes = 0;  // IPv4 header incl. options; IPv6 fixed header + extension headers
  // IPv6 extension-header inspection (decode/ipv6.cpp), zero unless the chain had options or anomalies:
  uint8_t ipv6_option_headers = 0;  // hop-by-hop and destination options headers in the chain
  uint16_t ipv6_anomalies = 0;      // Ipv6Anomaly bits
  uint32_t ipv6_covert_bytes = 0;   // bytes able to hide data: option data no common stack sends (see ipv6.h),
                                    // non-zero PadN data, and bytes after a No Next Header

  // Fragmentation (IPv4 flags/offset or IPv6 Fragment extension header).
  bool is_fragment = false;        // any fragment (MF set or offset > 0)
  bool is_first_fragment = false;  // offset 0 with MF set: carries the L4 header
  uint32_t frag_id = 0;            // IPv4 identification (16 bit) or IPv6 fragment identification (32 bit)

  // --- L4 (valid when has_ports; for ICMP/ICMPv6 src_port=type, dst_port=code like Zeek/NFStream) ---
  bool has_ports = false;  // the fixed L4 header was read (also set with kBadTcpHeaderLength/kBadUdpLength)
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint8_t tcp_flags = 0;         // TcpFlag bits
  uint16_t tcp_window = 0;       // raw window field (not scaled)
  uint16_t l4_header_bytes = 0;  // TCP header incl. options (data offset * 4), UDP 8, ICMP 8
  uint32_t payload_bytes = 0;    // L4 payload per the length fields (IP length - headers), not the captured bytes
  uint32_t tcp_seq = 0;          // TCP sequence number (host order)

  // --- Payload (for the application layer, native/app) ---
  // The L4 payload bytes that were captured (TCP after options, UDP after its header, capped at the UDP length
  // field): `payload` may be read for `payload_captured` bytes, which may be fewer than payload_bytes (snaplen).
  // nullptr/0 when there is none or the packet did not decode as TCP/UDP.
  const uint8_t* payload = nullptr;
  uint32_t payload_captured = 0;

  // --- Non-IP frames (status kNonIp) ---
  uint16_t ethertype = 0;       // the ethertype after VLAN tags (ARP 0x0806, ...); 0 when unknown
  const uint8_t* l3 = nullptr;  // first byte after the link layer; readable for l3_captured bytes
  uint32_t l3_captured = 0;

  // --- Frame ---
  uint32_t caplen = 0;   // captured bytes
  uint32_t wirelen = 0;  // original length on the wire
};

// Decodes one frame of the given DLT/LINKTYPE. Never reads beyond data[0..caplen). Returns kOk when `out` holds an
// IP packet with (for protocols that have them) valid ports; otherwise the first problem found. `out` may still hold
// partial information on error (for example addresses when only L4 is truncated, so the flow can count it).
// Thread: any; no allocation, no I/O.
DecodeStatus DecodePacket(int link_type, const uint8_t* data, uint32_t caplen, uint32_t wirelen, PacketView& out);

}  // namespace vigil
