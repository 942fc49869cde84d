// SSH protocol version exchange (RFC 4253 §4.2): finds and checks the "SSH-protoversion-softwareversion" line.
#include "app/ssh.h"

#include <cstring>

namespace vigil {
namespace {

constexpr char kSshPrefix[] = "SSH-";
constexpr uint32_t kSshPrefixLen = sizeof kSshPrefix - 1;
// Lines a server may send before its identification (RFC 4253 §4.2); more than this is not SSH.
constexpr uint32_t kMaxPreBannerLines = 32;

// Pre-banner lines are text: a byte below 0x20 other than TAB and CR (or DEL) says this is not SSH.
bool IsTextLine(const uint8_t* data, uint32_t begin, uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    const uint8_t c = data[i];
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return false;
  }
  return true;
}

// RFC 4253: "SSH-" protoversion "-" softwareversion [SP comments], printable characters. Bytes of 0x80 and above are
// tolerated (seen in comments in the wild); control characters are not.
bool IsValidBanner(const uint8_t* line, uint32_t n) {
  uint32_t i = kSshPrefixLen;
  while (i < n && line[i] != '-') {
    if (line[i] <= 0x20 || line[i] == 0x7f) return false;
    ++i;
  }
  if (i == kSshPrefixLen || i >= n) return false;  // no protoversion, or no "-" after it
  for (uint32_t j = i + 1; j < n; ++j) {
    if (line[j] < 0x20 || line[j] == 0x7f) return false;
  }
  return true;
}

}  // namespace

const char* SshStatusName(SshStatus s) {
  switch (s) {
    case SshStatus::kOk:
      return "ssh_ok";
    case SshStatus::kNeedMore:
      return "ssh_need_more";
    case SshStatus::kNotSsh:
      return "ssh_not_ssh";
    case SshStatus::kBadBanner:
      return "ssh_bad_banner";
    case SshStatus::kCount:
      break;
  }
  return "ssh_unknown";
}

bool LooksLikeSsh(const uint8_t* data, uint32_t len) {
  return data != nullptr && len >= kSshPrefixLen && std::memcmp(data, kSshPrefix, kSshPrefixLen) == 0;
}

// A banner cut by the end of the buffer is copied as far as it goes (kNeedMore): the caller may keep it when no more
// data comes.
SshStatus ParseSshBanner(const uint8_t* data, uint32_t len, NameText* out) {
  out->Clear();
  if (data == nullptr) return SshStatus::kNeedMore;
  uint32_t pos = 0;
  for (uint32_t lines = 0; pos < len; ++lines) {
    const void* lf = std::memchr(data + pos, '\n', len - pos);
    const uint32_t end = lf ? static_cast<uint32_t>(static_cast<const uint8_t*>(lf) - data) : len;
    const uint32_t have = end - pos;
    const uint32_t cmp = have < kSshPrefixLen ? have : kSshPrefixLen;
    const bool ssh_line = std::memcmp(data + pos, kSshPrefix, cmp) == 0;
    if (ssh_line && (lf != nullptr || have >= kSshPrefixLen)) {
      uint32_t n = have;
      if (n > 0 && data[pos + n - 1] == '\r') --n;  // CR LF, or a cut line's CR that starts one
      out->Assign(reinterpret_cast<const char*>(data + pos), n);
      if (lf == nullptr) {
        for (uint32_t i = 0; i < n; ++i) {
          if (data[pos + i] < 0x20 || data[pos + i] == 0x7f) return SshStatus::kBadBanner;
        }
        return SshStatus::kNeedMore;
      }
      return IsValidBanner(data + pos, n) ? SshStatus::kOk : SshStatus::kBadBanner;
    }
    if (!IsTextLine(data, pos, end) || lines >= kMaxPreBannerLines) return SshStatus::kNotSsh;
    if (lf == nullptr) return SshStatus::kNeedMore;  // "SS" or a pre-banner line still going on
    pos = end + 1;
  }
  return SshStatus::kNeedMore;
}

}  // namespace vigil
