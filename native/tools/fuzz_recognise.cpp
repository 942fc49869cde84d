// fuzz_recognise: libFuzzer target over the content recognisers that only label a flow: SIP (app/sip.h) and Stratum
// (app/stratum.h). The input ends exactly at the end of libFuzzer's allocation, so AddressSanitizer flags any read
// past len. Besides memory safety, checks what a positive answer implies and aborts when it does not hold.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/sip.h"
#include "app/stratum.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > UINT32_MAX / 2) return -1;
  const uint32_t len = static_cast<uint32_t>(size);
  if (vigil::LooksLikeSip(data, len)) {
    // A status line, or an upper-case method, one space, a URI scheme.
    Check(len >= 8);
    const void* space = std::memchr(data, ' ', len);
    Check(space != nullptr);
    const uint32_t at = static_cast<uint32_t>(static_cast<const uint8_t*>(space) - data);
    for (uint32_t i = 0; i < at; ++i) Check((data[i] >= 'A' && data[i] <= 'Z') || std::memcmp(data, "SIP/2.0", 7) == 0);
  }
  if (vigil::LooksLikeStratum(data, len)) {
    uint32_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
    Check(i < len && data[i] == '{');
  }
  // Answers depend on the bytes only: a copy gives the same.
  if (len > 0) {
    uint8_t* copy = static_cast<uint8_t*>(std::malloc(len));
    std::memcpy(copy, data, len);
    Check(vigil::LooksLikeSip(copy, len) == vigil::LooksLikeSip(data, len));
    Check(vigil::LooksLikeStratum(copy, len) == vigil::LooksLikeStratum(data, len));
    std::free(copy);
  }
  return 0;
}
