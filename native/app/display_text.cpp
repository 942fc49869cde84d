// Display text: tshark's rendering of packet strings (see display_text.h). The rules were read off tshark 4.0's
// `-T fields` output for hand-built names (docs/app-layer.md, "DNS and DHCP"); the printable test mirrors GLib's
// g_unichar_isprint, which Wireshark uses, except that code points unassigned in Unicode are not all known here.
#include "app/display_text.h"

#include <cstring>

namespace vigil {
namespace {

// Writes unit[0..n) at out[*len] if it fits in cap; returns false (writing nothing) otherwise.
bool Put(const char* unit, size_t n, char* out, uint16_t* len, size_t cap) {
  if (*len + n > cap) return false;
  std::memcpy(out + *len, unit, n);
  *len = static_cast<uint16_t>(*len + n);
  return true;
}

// Format characters (Unicode general category Cf) and ranges with no assigned characters that matter in practice:
// GLib calls them unprintable, so tshark escapes them.
bool IsPrintableCodePoint(uint32_t cp) {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return false;  // C0 and C1 controls, DEL
  if (cp == 0xad || (cp >= 0x600 && cp <= 0x605) || cp == 0x61c || cp == 0x6dd || cp == 0x70f) return false;
  if (cp == 0x890 || cp == 0x891 || cp == 0x8e2 || cp == 0x180e) return false;
  if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f)) return false;
  if (cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb)) return false;
  if (cp >= 0xfdd0 && cp <= 0xfdef) return false;  // noncharacters
  if ((cp & 0xfffe) == 0xfffe) return false;       // U+xxFFFE, U+xxFFFF noncharacters
  if (cp == 0x110bd || cp == 0x110cd || (cp >= 0x13430 && cp <= 0x1343f)) return false;
  if ((cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a)) return false;
  if (cp >= 0x40000 && cp <= 0xdffff) return false;  // planes 4-13: unassigned
  if (cp >= 0xe0000 && cp <= 0xe00ff) return false;  // tags (Cf) and unassigned
  if (cp >= 0xe01f0 && cp <= 0xeffff) return false;  // unassigned after the variation selectors
  return true;
}

bool PutCodePoint(uint32_t cp, char* out, uint16_t* len, size_t cap) {
  static const char kHex[] = "0123456789ABCDEF";
  char unit[10];
  size_t n = 0;
  if (cp < 0x80 && cp >= 0x20 && cp != 0x7f) {
    unit[n++] = static_cast<char>(cp);
  } else if (!IsPrintableCodePoint(cp)) {
    const int digits = cp > 0xffff ? 8 : 4;
    unit[n++] = '\\';
    unit[n++] = cp > 0xffff ? 'U' : 'u';
    for (int i = digits - 1; i >= 0; --i) unit[n++] = kHex[(cp >> (4 * i)) & 0xf];
  } else if (cp < 0x800) {
    unit[n++] = static_cast<char>(0xc0 | (cp >> 6));
    unit[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    unit[n++] = static_cast<char>(0xe0 | (cp >> 12));
    unit[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    unit[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    unit[n++] = static_cast<char>(0xf0 | (cp >> 18));
    unit[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    unit[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    unit[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  }
  return Put(unit, n, out, len, cap);
}

// One ASCII byte: printable as is, else a C escape or three octal digits (as tshark prints them).
bool PutAscii(uint8_t c, char* out, uint16_t* len, size_t cap) {
  char unit[4];
  if (c >= 0x20 && c < 0x7f) {
    unit[0] = static_cast<char>(c);
    return Put(unit, 1, out, len, cap);
  }
  static const char kEscapes[] = "abtnvfr";  // \a=7 ... \r=13
  unit[0] = '\\';
  if (c >= 7 && c <= 13) {
    unit[1] = kEscapes[c - 7];
    return Put(unit, 2, out, len, cap);
  }
  unit[1] = static_cast<char>('0' + ((c >> 6) & 7));
  unit[2] = static_cast<char>('0' + ((c >> 3) & 7));
  unit[3] = static_cast<char>('0' + (c & 7));
  return Put(unit, 4, out, len, cap);
}

}  // namespace

bool AppendDisplayText(const uint8_t* s, uint32_t n, char* out, uint16_t* len, size_t cap, TextEncoding encoding) {
  static const char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD
  uint32_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    if (c >= 0x20 && c < 0x7f) {
      // A run of printable ASCII (nearly every name) is copied as it is scanned, cut where the room ends, as one Put
      // per byte would.
      char* dst = out + *len;
      char* const end = out + cap;
      do {
        if (dst == end) {
          *len = static_cast<uint16_t>(cap);
          return false;
        }
        *dst++ = static_cast<char>(s[i++]);
      } while (i < n && s[i] >= 0x20 && s[i] < 0x7f);
      *len = static_cast<uint16_t>(dst - out);
      continue;
    }
    if (c < 0x80) {
      if (!PutAscii(c, out, len, cap)) return false;
      ++i;
      continue;
    }
    if (encoding == TextEncoding::kAscii) {
      if (!Put(kReplacement, 3, out, len, cap)) return false;
      ++i;
      continue;
    }
    // A lead byte announces `need` continuation bytes (5- and 6-byte forms are read, then rejected as too large).
    int need = 0;
    uint32_t cp = 0;
    if (c >= 0xc0 && c <= 0xdf) {
      need = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf7) {
      need = 3;
      cp = c & 0x07;
    } else if (c >= 0xf8 && c <= 0xfb) {
      need = 4;
      cp = c & 0x03;
    } else if (c >= 0xfc && c <= 0xfd) {
      need = 5;
      cp = c & 0x01;
    }
    ++i;
    int got = 0;
    while (got < need && i < n && (s[i] & 0xc0) == 0x80) {
      cp = (cp << 6) | (s[i] & 0x3f);
      ++i;
      ++got;
    }
    const bool valid = need > 0 && got == need && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (!(valid ? PutCodePoint(cp, out, len, cap) : Put(kReplacement, 3, out, len, cap))) return false;
  }
  return true;
}

}  // namespace vigil
