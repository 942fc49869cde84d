// Ethernet II / 802.3 decoding.
#include "decode/ethernet.h"

#include "common/byte_order.h"
#include "decode/vlan.h"

namespace vigil {

DecodeStatus DecodeEthernet(Reader& r, PacketView& out, uint16_t& ethertype) {
  EthernetHeader eth;
  if (!r.Read(eth)) return DecodeStatus::kTruncatedL2;
  ethertype = be16(eth.ethertype);
  if (ethertype < 0x0600) {
    // 802.3 length field: only LLC/SNAP can carry an ethertype; anything else (STP, NetBIOS...) is not IP.
    LlcSnapHeader llc;
    if (!r.Peek(llc) || llc.dsap != 0xAA || llc.ssap != 0xAA || llc.control != 0x03) return DecodeStatus::kNonIp;
    r.Skip(sizeof llc);
    ethertype = be16(llc.ethertype);
  }
  return DecodeVlanTags(r, out, ethertype);
}

}  // namespace vigil
