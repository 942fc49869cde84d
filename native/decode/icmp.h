// ICMP and ICMPv6: type and code, reported in place of the ports (as Zeek and NFStream do).
#pragma once

#include <cstdint>

#include "decode/l4_span.h"
#include "decode/packet_view.h"

namespace vigil {

// Type, code, checksum: the part common to every ICMP/ICMPv6 message (the next 4 bytes depend on the type).
struct IcmpHeader {
  uint8_t type;
  uint8_t code;
  uint8_t checksum[2];
};
static_assert(sizeof(IcmpHeader) == 4, "IcmpHeader common part is 4 bytes");

// Counted header size (CICFlowMeter counts 8: the common part plus the type-specific word).
constexpr uint16_t kIcmpHeaderBytes = 8;

// Decodes ICMP (protocol 1) or ICMPv6 (58): src_port = type, dst_port = code. IP payload shorter than 4 ->
// kBadIpTotalLength; cut before 4 bytes -> kTruncatedL4.
DecodeStatus DecodeIcmp(const L4Span& l4, PacketView& out);

}  // namespace vigil
