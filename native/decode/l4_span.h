// L4Span: what an IP decoder hands to the transport decoders: where the L4 header starts and how long it is.
#pragma once

#include <cstdint>

namespace vigil {

struct L4Span {
  const uint8_t* data = nullptr;  // first byte after the IP header(s); only `captured` bytes are readable
  uint32_t captured = 0;          // bytes actually captured, capped at `declared` (Ethernet padding excluded)
  uint32_t declared = 0;          // L4 length per the IP length fields (bytes)
  bool present = false;           // false for non-first fragments and "no next header": nothing to decode
  // UDP length 0 means "to the end of the IP payload": an IPv6 jumbogram (RFC 2675) or a UDP GSO super-packet in an
  // IPv4 packet whose total length is 0 (taken from the frame).
  bool zero_udp_length_ok = false;
};

}  // namespace vigil
