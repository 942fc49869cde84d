// SIP (RFC 3261 §7): recognising a message by its first line, a request ("REGISTER sip:example.com SIP/2.0") or a
// status line ("SIP/2.0 200 OK"). Only the label is kept: a phone's registrations and keep-alives are periodic by
// design, and the beacon detector's allowlist names the application (VIGIL_DETECT_BEACON_ALLOW_APPS).
#pragma once

#include <cstdint>

namespace vigil {

// True when `data` starts with a SIP status line ("SIP/2.0 ") or a request line: a method of RFC 3261 or of its
// extensions, one space, then a sip:, sips: or tel: URI (which no HTTP request target starts with).
bool LooksLikeSip(const uint8_t* data, uint32_t len);

}  // namespace vigil
