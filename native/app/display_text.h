// Display text: renders bytes taken from packets (DNS labels, DHCP host names) the way tshark prints string fields,
// so the names we extract compare equal to tshark's (`dns.qry.name`, `dhcp.option.hostname`). No allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "app/bounded_text.h"

namespace vigil {

// How bytes of 0x80 and above are read: as UTF-8 (DNS names), or as ASCII where each one is invalid (tshark reads
// DHCP host names with ENC_ASCII and prints U+FFFD for every such byte).
enum class TextEncoding : uint8_t { kUtf8, kAscii };

// Appends the display form of s[0..n) to out[*len..cap), advancing *len. Printable ASCII is copied; other ASCII is
// escaped as \a \b \t \n \v \f \r or \ooo (octal); well-formed UTF-8 is kept when the code point is printable and
// escaped as \uXXXX / \UXXXXXXXX when not (controls, format characters, noncharacters); a byte sequence that is not
// UTF-8 becomes U+FFFD. Output units are never split: when one does not fit, it and the rest are dropped and false is
// returned (the caller flags the text as cut).
bool AppendDisplayText(const uint8_t* s, uint32_t n, char* out, uint16_t* len, size_t cap,
                       TextEncoding encoding = TextEncoding::kUtf8);

// Characters of the longest uint32_t in decimal (4294967295).
constexpr size_t kUint32DecimalChars = 10;

// Writes v in decimal (no sign, no leading zeros, "0" for 0) to out[0..kUint32DecimalChars) and returns the number of
// characters written; no terminator. The one number renderer of the app-layer texts (JA3 lists, DNS TTLs, addresses).
inline size_t WriteDecimal(uint32_t v, char* out) {
  char reversed[kUint32DecimalChars];
  size_t n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
  return n;
}

template <size_t N>
bool AppendDisplayText(const uint8_t* s, uint32_t n, BoundedText<N>* text,
                       TextEncoding encoding = TextEncoding::kUtf8) {
  const bool ok = AppendDisplayText(s, n, text->data, &text->len, N, encoding);
  if (!ok) text->truncated = true;
  return ok;
}

}  // namespace vigil
