// IPv4: header with options, the length rules (padding, TSO), and fragmentation.
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/l4_span.h"
#include "decode/packet_view.h"

namespace vigil {

struct Ipv4Header {
  uint8_t version_ihl;  // version (4 bits) | header length in 32-bit words (4 bits)
  uint8_t tos;
  uint8_t total_length[2];  // bytes, header + payload, network order; 0 from TSO/BIG TCP senders
  uint8_t id[2];            // fragment identification, network order
  uint8_t flags_offset[2];  // reserved | DF | MF | fragment offset in 8-byte units (13 bits), network order
  uint8_t ttl;
  uint8_t protocol;
  uint8_t checksum[2];
  uint8_t src[4];
  uint8_t dst[4];
};
static_assert(sizeof(Ipv4Header) == 20, "Ipv4Header is 20 bytes without options");

// Decodes the IPv4 header at r (options skipped). `wire_len` is the number of bytes from this header to the end of
// the frame as it was on the wire (wirelen minus L2), which caps the total length and replaces a total length of 0
// for any protocol (TSO, BIG TCP and UDP GSO captures on the sending host; then a UDP length of 0 is accepted too,
// see L4Span::zero_udp_length_ok). Fills addresses, TTL, protocol and fragment fields as soon
// as the fixed header is present (also on later errors). On kOk, `l4` describes the transport bytes.
DecodeStatus DecodeIpv4(Reader& r, uint32_t wire_len, PacketView& out, L4Span& l4);

// Writes a 4-byte IPv4 address as IPv4-mapped IPv6 (::ffff:a.b.c.d) into a 16-byte field.
void MapIpv4(const uint8_t (&v4)[4], uint8_t (&out)[16]);

}  // namespace vigil
