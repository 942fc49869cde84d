// fuzz_ssh: libFuzzer target over the SSH version-exchange parser. The input is the first bytes one side sent,
// ending exactly at the end of libFuzzer's allocation so that AddressSanitizer flags any read past len. Besides
// memory safety, checks the parser's invariants and aborts when one breaks.
#include <string.h>  // memmem (GNU)

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/ssh.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > UINT32_MAX / 2) return -1;
  const uint32_t len = static_cast<uint32_t>(size);
  vigil::NameText banner;
  const vigil::SshStatus s = vigil::ParseSshBanner(data, len, &banner);
  Check(s < vigil::SshStatus::kCount);
  Check(banner.len <= vigil::NameText::kCapacity);
  Check(!banner.truncated || banner.len == vigil::NameText::kCapacity);
  if (s == vigil::SshStatus::kOk) {
    Check(banner.len >= 6 && std::memcmp(banner.data, "SSH-", 4) == 0);
    Check(std::memchr(banner.data, '\n', banner.len) == nullptr);
    Check(memmem(data, size, banner.data, banner.len) != nullptr);
  }
  if (vigil::LooksLikeSsh(data, len)) Check(s != vigil::SshStatus::kNotSsh);
  return 0;
}
