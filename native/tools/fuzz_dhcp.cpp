// fuzz_dhcp: libFuzzer target over ParseDhcp and LooksLikeDhcp. Input: one UDP payload, ending exactly at the end of
// libFuzzer's allocation so that AddressSanitizer flags any read past it. Checks the parser's invariants.
#include <cstdint>
#include <cstdlib>

#include "app/dhcp.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65535) return -1;  // larger than any UDP payload
  const uint32_t len = static_cast<uint32_t>(size);
  const bool looks = vigil::LooksLikeDhcp(data, len);
  vigil::DhcpMessage m;
  const vigil::DhcpStatus s = vigil::ParseDhcp(data, len, &m);
  Check(s < vigil::DhcpStatus::kCount);
  Check(m.hostname.len <= vigil::NameText::kCapacity);
  if (looks) Check(s != vigil::DhcpStatus::kBadMagic && (m.op == 1 || m.op == 2));
  if (s == vigil::DhcpStatus::kOk) Check(len >= 240);
  return 0;
}
