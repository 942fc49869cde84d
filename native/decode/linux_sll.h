// Linux cooked capture: SLL v1 (DLT_LINUX_SLL, 16 bytes) and SLL v2 (DLT_LINUX_SLL2, 20 bytes), as written by
// `tcpdump -i any`.
#pragma once

#include <cstdint>

#include "common/reader.h"
#include "decode/packet_view.h"

namespace vigil {

struct LinuxSllHeader {
  uint8_t packet_type[2];  // to us / broadcast / multicast / other host / outgoing
  uint8_t arphrd_type[2];  // ARPHRD_* device type
  uint8_t address_length[2];
  uint8_t address[8];   // link-layer source address, first address_length bytes valid
  uint8_t protocol[2];  // ethertype (or a special value < 0x0600), network order
};
static_assert(sizeof(LinuxSllHeader) == 16, "LinuxSllHeader is 16 bytes on the wire");

struct LinuxSll2Header {
  uint8_t protocol[2];  // ethertype, network order
  uint8_t reserved[2];
  uint8_t interface_index[4];
  uint8_t arphrd_type[2];
  uint8_t packet_type;
  uint8_t address_length;
  uint8_t address[8];
};
static_assert(sizeof(LinuxSll2Header) == 20, "LinuxSll2Header is 20 bytes on the wire");

// Consume the cooked header (then any VLAN tags); on kOk `ethertype` is the L3 type. Protocol values below 0x0600
// (802.2 LLC, CAN, ...) and netlink captures yield kNonIp; a cut header yields kTruncatedL2.
DecodeStatus DecodeLinuxSll(Reader& r, PacketView& out, uint16_t& ethertype);
DecodeStatus DecodeLinuxSll2(Reader& r, PacketView& out, uint16_t& ethertype);

}  // namespace vigil
