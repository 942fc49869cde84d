// SIP message recognition (RFC 3261 §7.1 request line, §7.2 status line). The methods are RFC 3261's and those its
// extensions registered (PRACK RFC 3262, SUBSCRIBE/NOTIFY RFC 6665, UPDATE RFC 3311, MESSAGE RFC 3428, REFER RFC 3515,
// PUBLISH RFC 3903, INFO RFC 6086). Methods are case-sensitive (RFC 3261 §7.1); URI schemes are not (RFC 3986 §3.1).
#include "app/sip.h"

#include <cstring>

#include "app/http.h"

namespace vigil {
namespace {

constexpr const char* kMethods[] = {"INVITE",    "ACK",    "BYE",     "CANCEL", "REGISTER", "OPTIONS", "PRACK",
                                    "SUBSCRIBE", "NOTIFY", "PUBLISH", "INFO",   "REFER",    "MESSAGE", "UPDATE"};
constexpr const char* kSchemes[] = {"sip:", "sips:", "tel:"};
constexpr char kStatusPrefix[] = "SIP/2.0 ";

}  // namespace

bool LooksLikeSip(const uint8_t* data, uint32_t len) {
  if (data == nullptr) return false;
  const uint32_t status_len = sizeof kStatusPrefix - 1;
  if (len >= status_len && std::memcmp(data, kStatusPrefix, status_len) == 0) return true;
  for (const char* method : kMethods) {
    const uint32_t m = static_cast<uint32_t>(std::strlen(method));
    if (len <= m || std::memcmp(data, method, m) != 0 || data[m] != ' ') continue;
    for (const char* scheme : kSchemes) {
      const uint32_t n = static_cast<uint32_t>(std::strlen(scheme));
      if (len - (m + 1) >= n && EqualsIgnoreCase(data + m + 1, n, scheme)) return true;
    }
    return false;
  }
  return false;
}

}  // namespace vigil
