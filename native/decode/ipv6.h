// IPv6: fixed header, the extension header chain (hop-by-hop, routing, fragment, destination options, AH) and
// jumbograms.
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/l4_span.h"
#include "decode/packet_view.h"

namespace vigil {

struct Ipv6Header {
  uint8_t version_class_flow[4];  // version (4) | traffic class (8) | flow label (20), network order
  uint8_t payload_length[2];      // bytes after this header (extension headers included), network order
  uint8_t next_header;
  uint8_t hop_limit;
  uint8_t src[16];
  uint8_t dst[16];
};
static_assert(sizeof(Ipv6Header) == 40, "Ipv6Header is 40 bytes");

// First two bytes of hop-by-hop, routing and destination options headers (length in 8-byte units, excluding the
// first 8) and of AH (length in 4-byte units, minus 2).
struct Ipv6ExtensionHeader {
  uint8_t next_header;
  uint8_t length;
};
static_assert(sizeof(Ipv6ExtensionHeader) == 2, "Ipv6ExtensionHeader prefix is 2 bytes");

struct Ipv6FragmentHeader {
  uint8_t next_header;
  uint8_t reserved;
  uint8_t offset_flags[2];  // fragment offset in 8-byte units (13 bits) | reserved (2) | M (1), network order
  uint8_t id[4];            // fragment identification, network order
};
static_assert(sizeof(Ipv6FragmentHeader) == 8, "Ipv6FragmentHeader is 8 bytes");

// Longest extension-header chain accepted (the chain is also bounded by the payload length); longer -> malformed.
constexpr int kMaxIpv6ExtensionHeaders = 16;

// Decodes the IPv6 header and walks its extension headers. `wire_len` as for DecodeIpv4; a payload length of 0 with
// a hop-by-hop header (jumbogram) or directly followed by TCP (BIG TCP) means the frame length. A header that
// overruns the payload length, a hop-by-hop header that is not first, or a chain longer than
// kMaxIpv6ExtensionHeaders -> kBadIpv6ExtHeader; one cut by the snap length -> kTruncatedIp. Addresses are filled as
// soon as the fixed header is present.
// Also inspects the chain (the PacketView ipv6_* fields): each hop-by-hop and destination options header's options
// and the order of the headers, setting Ipv6Anomaly bits and counting covert bytes. The options a desktop's stacks
// send are Router Alert (2 data bytes; MLD, RSVP), Jumbo Payload (4), Home Address (16, Mobile IPv6) and Tunnel
// Encapsulation Limit (1, RFC 2473); the data of any other option, and of those beyond their defined length, counts
// as covert bytes. Malformed options never fail the packet (Suricata skips them too); the cost is only paid by packets
// that carry options.
DecodeStatus DecodeIpv6(Reader& r, uint32_t wire_len, PacketView& out, L4Span& l4);

}  // namespace vigil
