// IANA IP protocol numbers the decoder treats specially.
#pragma once

#include <cstdint>

namespace vigil {

enum IpProtocol : uint8_t {
  kIpProtoHopByHop = 0,  // IPv6 Hop-by-Hop Options
  kIpProtoIcmp = 1,
  kIpProtoTcp = 6,
  kIpProtoUdp = 17,
  kIpProtoRouting = 43,   // IPv6 Routing header
  kIpProtoFragment = 44,  // IPv6 Fragment header
  kIpProtoEsp = 50,
  kIpProtoAh = 51,  // Authentication Header (length in 4-byte units)
  kIpProtoIcmpv6 = 58,
  kIpProtoNoNext = 59,    // IPv6 No Next Header
  kIpProtoDestOpts = 60,  // IPv6 Destination Options
};

}  // namespace vigil
