// BSD loopback: DLT_NULL (address family in the writer's host byte order) and DLT_LOOP (network byte order).
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/packet_view.h"

namespace vigil {

struct NullLoopbackHeader {
  uint8_t family[4];  // AF_INET = 2; AF_INET6 = 10 (Linux), 23 (Windows), 24 (Net/OpenBSD), 28 (FreeBSD), 30 (macOS)
};
static_assert(sizeof(NullLoopbackHeader) == 4, "NullLoopbackHeader is 4 bytes on the wire");

// Consumes the 4-byte family and maps it to an ethertype. DLT_NULL files may come from a host of either byte order:
// a value with its high 16 bits set is taken as byte-swapped. Unknown families yield kNonIp.
DecodeStatus DecodeNullLoopback(Reader& r, bool network_order, uint16_t& ethertype);

}  // namespace vigil
