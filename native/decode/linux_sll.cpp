// Linux cooked capture (SLL v1/v2) decoding.
#include "decode/linux_sll.h"

#include "common/byte_order.h"
#include "decode/vlan.h"

namespace vigil {
namespace {

constexpr uint16_t kArphrdNetlink = 824;  // nlmon captures: netlink messages, never IP

DecodeStatus Finish(Reader& r, PacketView& out, uint16_t arphrd, uint16_t& ethertype) {
  if (arphrd == kArphrdNetlink || ethertype < 0x0600) return DecodeStatus::kNonIp;
  return DecodeVlanTags(r, out, ethertype);
}

}  // namespace

DecodeStatus DecodeLinuxSll(Reader& r, PacketView& out, uint16_t& ethertype) {
  LinuxSllHeader h;
  if (!r.Read(h)) return DecodeStatus::kTruncatedL2;
  ethertype = be16(h.protocol);
  return Finish(r, out, be16(h.arphrd_type), ethertype);
}

DecodeStatus DecodeLinuxSll2(Reader& r, PacketView& out, uint16_t& ethertype) {
  LinuxSll2Header h;
  if (!r.Read(h)) return DecodeStatus::kTruncatedL2;
  ethertype = be16(h.protocol);
  return Finish(r, out, be16(h.arphrd_type), ethertype);
}

}  // namespace vigil
