// BSD loopback (DLT_NULL / DLT_LOOP) decoding.
#include "decode/null_loopback.h"

#include "common/byte_order.h"
#include "decode/link_type.h"

namespace vigil {

DecodeStatus DecodeNullLoopback(Reader& r, bool network_order, uint16_t& ethertype) {
  NullLoopbackHeader h;
  if (!r.Read(h)) return DecodeStatus::kTruncatedL2;
  uint32_t family = network_order ? be32(h.family) : le32(h.family);
  if ((family & 0xFFFF0000u) != 0) family = __builtin_bswap32(family);
  switch (family) {
    case 2:
      ethertype = kEtherTypeIpv4;
      return DecodeStatus::kOk;
    case 10:
    case 23:
    case 24:
    case 28:
    case 30:
      ethertype = kEtherTypeIpv6;
      return DecodeStatus::kOk;
    default:
      return DecodeStatus::kNonIp;
  }
}

}  // namespace vigil
