// L4Span: what an IP decoder hands to the transport decoders: where the L4 header starts and how long it is.
#pragma once

#include <cstdint>

namespace vigil {

struct L4Span {
  const uint8_t* data = nullptr;    // first byte after the IP header(s); only `captured` bytes are readable
  uint32_t captured = 0;            // bytes actually captured, capped at `declared` (Ethernet padding excluded)
  uint32_t declared = 0;            // L4 length per the IP length fields (bytes)
  bool present = false;             // false for non-first fragments and "no next header": nothing to decode
  bool zero_udp_length_ok = false;  // IPv6 jumbogram: UDP length 0 means "see the IP length" (RFC 2675)
};

}  // namespace vigil
