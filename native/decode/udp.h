// UDP: ports and the length field.
#pragma once

#include <cstdint>

#include "decode/l4_span.h"
#include "decode/packet_view.h"

namespace vigil {

struct UdpHeader {
  uint8_t src_port[2];  // network order
  uint8_t dst_port[2];  // network order
  uint8_t length[2];    // header + data bytes, network order
  uint8_t checksum[2];
};
static_assert(sizeof(UdpHeader) == 8, "UdpHeader is 8 bytes");

// Decodes the UDP header in `l4`. IP payload shorter than 8 -> kBadIpTotalLength; header cut -> kTruncatedL4; length
// field < 8 (except 0 in an IPv6 jumbogram) or, for an unfragmented datagram, larger than the IP payload ->
// kBadUdpLength (the first fragment's UDP length covers the whole datagram, so it may exceed this packet).
// Payload bytes come from the IP length (the UDP length may be shorter, never longer).
DecodeStatus DecodeUdp(const L4Span& l4, PacketView& out);

}  // namespace vigil
