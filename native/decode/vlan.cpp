// VLAN tag stack decoding.
#include "decode/vlan.h"

#include "common/byte_order.h"

namespace vigil {

DecodeStatus DecodeVlanTags(Reader& r, PacketView& out, uint16_t& ethertype) {
  while (IsVlanTpid(ethertype)) {
    VlanTag tag;
    if (!r.Read(tag)) return DecodeStatus::kTruncatedL2;
    if (out.vlan_depth < kMaxVlanTags) out.vlan[out.vlan_depth] = be16(tag.tci) & 0x0FFF;
    if (out.vlan_depth < UINT8_MAX) ++out.vlan_depth;
    ethertype = be16(tag.ethertype);
  }
  return DecodeStatus::kOk;
}

}  // namespace vigil
