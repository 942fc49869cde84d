// fuzz_recognise: libFuzzer target over the content recognisers that only label a flow: SIP (app/sip.h) and Stratum
// (app/stratum.h). The input ends exactly at the end of libFuzzer's allocation, so AddressSanitizer flags any read
// past len. Besides memory safety, checks what a positive answer implies and aborts when it does not hold.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/sip.h"
#include "app/stratum.h"

namespace {

// What a positive answer implies about the bytes; false aborts the run (libFuzzer keeps the input).
bool SipShaped(const uint8_t* data, uint32_t len) {
  if (len < 8) return false;
  const void* space = std::memchr(data, ' ', len);
  if (space == nullptr) return false;
  if (std::memcmp(data, "SIP/2.0", 7) == 0) return true;
  const uint32_t at = static_cast<uint32_t>(static_cast<const uint8_t*>(space) - data);
  for (uint32_t i = 0; i < at; ++i) {
    if (data[i] < 'A' || data[i] > 'Z') return false;
  }
  return true;
}

bool JsonObjectFirst(const uint8_t* data, uint32_t len) {
  uint32_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
  return i < len && data[i] == '{';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > UINT32_MAX / 2) return -1;
  const uint32_t len = static_cast<uint32_t>(size);
  const bool sip = vigil::LooksLikeSip(data, len);
  const bool stratum = vigil::LooksLikeStratum(data, len);
  if ((sip && !SipShaped(data, len)) || (stratum && !JsonObjectFirst(data, len))) std::abort();
  // Answers depend on the bytes only: a copy gives the same.
  if (len > 0) {
    uint8_t* copy = static_cast<uint8_t*>(std::malloc(len));
    std::memcpy(copy, data, len);
    const bool same = vigil::LooksLikeSip(copy, len) == sip && vigil::LooksLikeStratum(copy, len) == stratum;
    std::free(copy);
    if (!same) std::abort();
  }
  return 0;
}
