// DHCP message parsing: the BOOTP fixed header (RFC 951, RFC 2131 §2) and the options after the magic cookie
// (RFC 2132): message type (53) and host name (12). Option overload (52) is not followed.
#include "app/dhcp.h"

#include <cstring>

#include "app/display_text.h"
#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {
namespace {

// The fixed BOOTP header, 236 bytes, then the 4-byte magic cookie.
struct BootpHeader {
  uint8_t op;        // 1 BOOTREQUEST, 2 BOOTREPLY
  uint8_t htype;     // hardware type: 1 Ethernet
  uint8_t hlen;      // hardware address length: 6 for Ethernet
  uint8_t hops;      // relay hops
  uint8_t xid[4];    // transaction id
  uint8_t secs[2];   // seconds since the client began
  uint8_t flags[2];  // bit 15: broadcast
  uint8_t ciaddr[4];
  uint8_t yiaddr[4];
  uint8_t siaddr[4];
  uint8_t giaddr[4];
  uint8_t chaddr[16];  // client hardware address, hlen bytes used
  uint8_t sname[64];
  uint8_t file[128];
};
static_assert(sizeof(BootpHeader) == 236, "BOOTP header is 236 bytes");

constexpr uint8_t kMagicCookie[4] = {99, 130, 83, 99};
constexpr uint8_t kOptionPad = 0;
constexpr uint8_t kOptionHostName = 12;
constexpr uint8_t kOptionMessageType = 53;
constexpr uint8_t kOptionEnd = 255;

}  // namespace

const char* DhcpStatusName(DhcpStatus s) {
  switch (s) {
    case DhcpStatus::kOk:
      return "dhcp_ok";
    case DhcpStatus::kTruncated:
      return "dhcp_truncated";
    case DhcpStatus::kBadMagic:
      return "dhcp_bad_magic";
    case DhcpStatus::kBadOption:
      return "dhcp_bad_option";
    case DhcpStatus::kCount:
      break;
  }
  return "dhcp_unknown";
}

DhcpStatus ParseDhcp(const uint8_t* data, uint32_t len, DhcpMessage* out) {
  out->op = 0;
  out->message_type = 0;
  std::memset(out->client_mac, 0, sizeof out->client_mac);
  out->hostname.Clear();
  Reader r(data, len);
  BootpHeader h;
  if (!r.Read(h)) return DhcpStatus::kTruncated;
  out->op = h.op;
  if (h.htype == 1 && h.hlen == 6) std::memcpy(out->client_mac, h.chaddr, 6);
  uint8_t cookie[4];
  if (!r.Read(cookie)) return DhcpStatus::kTruncated;
  if (std::memcmp(cookie, kMagicCookie, 4) != 0) return DhcpStatus::kBadMagic;  // plain BOOTP: no options

  // Options: code, length, value; pad and end have no length. A message without the end option is accepted when the
  // options fill the payload exactly (some clients leave it out); one that cuts an option short is truncated.
  for (;;) {
    uint8_t code, n;
    if (!r.ReadU8(code)) return DhcpStatus::kOk;
    if (code == kOptionPad) continue;
    if (code == kOptionEnd) return DhcpStatus::kOk;
    if (!r.ReadU8(n)) return DhcpStatus::kTruncated;
    const uint8_t* value = r.current();
    if (!r.Skip(n)) return DhcpStatus::kTruncated;
    if (code == kOptionMessageType) {
      if (n != 1) return DhcpStatus::kBadOption;
      out->message_type = value[0];
    } else if (code == kOptionHostName) {
      if (n == 0) return DhcpStatus::kBadOption;  // RFC 2132 §3.14: minimum length 1
      // As tshark shows it: up to the first NUL (some clients count a terminating one), high bytes as U+FFFD.
      const void* nul = std::memchr(value, 0, n);
      const uint32_t shown = nul ? static_cast<uint32_t>(static_cast<const uint8_t*>(nul) - value) : n;
      out->hostname.Clear();
      AppendDisplayText(value, shown, &out->hostname, TextEncoding::kAscii);
    }
  }
}

bool LooksLikeDhcp(const uint8_t* data, uint32_t len) {
  if (len < sizeof(BootpHeader) + 4) return false;
  if (data[0] != 1 && data[0] != 2) return false;
  if (data[1] != 1 || data[2] != 6) return false;
  return std::memcmp(data + sizeof(BootpHeader), kMagicCookie, 4) == 0;
}

}  // namespace vigil
