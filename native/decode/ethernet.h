// Ethernet: Ethernet II and IEEE 802.3 (LLC/SNAP) framing, followed by any VLAN tags.
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/packet_view.h"

namespace vigil {

struct EthernetHeader {
  uint8_t dst[6];
  uint8_t src[6];
  uint8_t ethertype[2];  // Ethernet II type (>= 0x0600) or 802.3 length (<= 1500), network order
};
static_assert(sizeof(EthernetHeader) == 14, "EthernetHeader is 14 bytes on the wire");

// 802.2 LLC with a SNAP extension: AA AA 03, OUI, ethertype.
struct LlcSnapHeader {
  uint8_t dsap;
  uint8_t ssap;
  uint8_t control;
  uint8_t oui[3];
  uint8_t ethertype[2];  // network order
};
static_assert(sizeof(LlcSnapHeader) == 8, "LlcSnapHeader is 8 bytes on the wire");

// Consumes the Ethernet header (and LLC/SNAP and VLAN tags) from r; on kOk `ethertype` is the L3 type and r is
// positioned on the L3 header. kTruncatedL2 when the header or a tag is cut; kNonIp for 802.3 frames without SNAP.
DecodeStatus DecodeEthernet(Reader& r, PacketView& out, uint16_t& ethertype);

}  // namespace vigil
