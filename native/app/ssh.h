// SSH (RFC 4253 §4.2): the protocol version exchange line, e.g. "SSH-2.0-OpenSSH_8.9p1" (tshark's ssh.protocol).
#pragma once

#include <cstdint>

#include "app/bounded_text.h"

namespace vigil {

enum class SshStatus : uint8_t { kOk = 0, kNeedMore, kNotSsh, kBadBanner, kCount };
const char* SshStatusName(SshStatus s);  // "ssh_bad_banner", ...

bool LooksLikeSsh(const uint8_t* data, uint32_t len);  // starts with "SSH-"
// Reads the identification line (without CR LF) into out. Lines before it (allowed from servers) are skipped.
SshStatus ParseSshBanner(const uint8_t* data, uint32_t len, NameText* out);

}  // namespace vigil
