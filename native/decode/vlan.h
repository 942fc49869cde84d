// VLAN tags: 802.1Q (0x8100), 802.1ad (0x88a8) and pre-standard QinQ (0x9100), stacked to any depth.
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/packet_view.h"

namespace vigil {

// One tag after the TPID: Tag Control Information then the encapsulated ethertype.
struct VlanTag {
  uint8_t tci[2];        // PCP(3) DEI(1) VID(12), network order
  uint8_t ethertype[2];  // encapsulated ethertype, network order
};
static_assert(sizeof(VlanTag) == 4, "VlanTag is 4 bytes on the wire");

inline bool IsVlanTpid(uint16_t ethertype) { return ethertype == 0x8100 || ethertype == 0x88A8 || ethertype == 0x9100; }

// While `ethertype` is a VLAN TPID, consumes one tag from r, records its VID in out.vlan (outermost first, the first
// kMaxVlanTags kept) and counts it in out.vlan_depth; leaves `ethertype` set to the first non-VLAN type.
// Returns kTruncatedL2 when a tag is cut. Terminates: each iteration consumes 4 bytes.
DecodeStatus DecodeVlanTags(Reader& r, PacketView& out, uint16_t& ethertype);

}  // namespace vigil
