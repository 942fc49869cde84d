// TCP: ports, flags, window and header length (options are skipped, not parsed).
#pragma once

#include <cstdint>

#include "decode/l4_span.h"
#include "decode/packet_view.h"

namespace vigil {

struct TcpHeader {
  uint8_t src_port[2];  // network order
  uint8_t dst_port[2];  // network order
  uint8_t seq[4];
  uint8_t ack[4];
  uint8_t data_offset;  // header length in 32-bit words (high 4 bits) | reserved
  uint8_t flags;        // CWR ECE URG ACK PSH RST SYN FIN (TcpFlag bits)
  uint8_t window[2];    // raw (unscaled) window, network order
  uint8_t checksum[2];
  uint8_t urgent[2];
};
static_assert(sizeof(TcpHeader) == 20, "TcpHeader is 20 bytes without options");

// Decodes the TCP header in `l4`. IP payload shorter than 20 bytes -> kBadIpTotalLength; fixed header cut ->
// kTruncatedL4; data offset < 5 or past the IP payload -> kBadTcpHeaderLength; options cut -> kTruncatedL4. Ports,
// flags and window are filled (and has_ports set) whenever the fixed header was captured, also on the last two errors.
DecodeStatus DecodeTcp(const L4Span& l4, PacketView& out);

}  // namespace vigil
