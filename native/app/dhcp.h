// DHCP (RFC 2131/2132) client messages: the client's MAC and host name (option 12), to name LAN devices.
#pragma once

#include <cstdint>

#include "app/bounded_text.h"

namespace vigil {

enum class DhcpStatus : uint8_t { kOk = 0, kTruncated, kBadMagic, kBadOption, kCount };
const char* DhcpStatusName(DhcpStatus s);  // "dhcp_truncated", ...

struct DhcpMessage {
  uint8_t op = 0;              // 1 request (client), 2 reply
  uint8_t message_type = 0;    // option 53 (1 DISCOVER, 3 REQUEST, ...); 0 when absent (BOOTP)
  uint8_t client_mac[6] = {};  // chaddr when htype 1 / hlen 6
  NameText hostname;           // option 12
};

// Parses a BOOTP/DHCP message (the UDP payload).
DhcpStatus ParseDhcp(const uint8_t* data, uint32_t len, DhcpMessage* out);
bool LooksLikeDhcp(const uint8_t* data, uint32_t len);

}  // namespace vigil
