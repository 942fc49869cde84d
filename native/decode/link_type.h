// Link types (pcap DLT_* / LINKTYPE_* numbers) that DecodePacket understands, and the ethertypes it dispatches on.
#pragma once

#include <cstdint>

namespace vigil {

// Values as returned by pcap_datalink() on Linux and as stored in pcap/pcapng files.
enum LinkType : int {
  kLinkNull = 0,         // DLT_NULL: BSD loopback, 4-byte address family in the writer's byte order
  kLinkEthernet = 1,     // DLT_EN10MB: Ethernet II / 802.3, optionally 802.1Q/802.1ad tagged
  kLinkRaw = 12,         // DLT_RAW as libpcap reports LINKTYPE_RAW on Linux and most BSDs: bare IPv4/IPv6
  kLinkRawOpenBsd = 14,  // DLT_RAW on OpenBSD
  kLinkRawIp = 101,      // LINKTYPE_RAW as stored in files
  kLinkLoop = 108,       // DLT_LOOP: OpenBSD loopback, 4-byte address family in network byte order
  kLinkLinuxSll = 113,   // DLT_LINUX_SLL: Linux cooked capture v1 (16-byte header)
  kLinkIpv4 = 228,       // DLT_IPV4: bare IPv4
  kLinkIpv6 = 229,       // DLT_IPV6: bare IPv6
  kLinkLinuxSll2 = 276,  // DLT_LINUX_SLL2: Linux cooked capture v2 (20-byte header)
};

enum EtherType : uint16_t {
  kEtherTypeIpv4 = 0x0800,
  kEtherTypeArp = 0x0806,
  kEtherTypeVlan = 0x8100,  // 802.1Q C-tag
  kEtherTypeIpv6 = 0x86DD,
  kEtherTypeQinQ = 0x88A8,     // 802.1ad S-tag
  kEtherTypeQinQOld = 0x9100,  // pre-standard QinQ S-tag
};

// Pseudo ethertype meaning "look at the IP version nibble" (raw IP link types carry no protocol field).
constexpr uint16_t kEtherTypeAutoIp = 0;

}  // namespace vigil
