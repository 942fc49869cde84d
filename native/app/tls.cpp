// TLS ClientHello / ServerHello parsing, JA3 / JA4 / JA4S, and the per-direction record assembler. See tls.h.
//
// Wire layout (RFC 8446 §4.1.2, §4.1.3; RFC 5246 §7.4.1): a handshake message is type (1 byte), length (3 bytes),
// body. Hello bodies: legacy_version (2), random (32), legacy_session_id <0..32> (1-byte length), then for a
// ClientHello cipher_suites <2..2^16-2> (2-byte length) and legacy_compression_methods <1..2^8-1>, for a ServerHello
// one cipher_suite (2) and one compression method (1); then an optional extensions block <0..2^16-1>, each extension
// being type (2), length (2), data.
#include "app/tls.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "app/digest.h"
#include "app/display_text.h"
#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {
namespace {

constexpr uint8_t kContentChangeCipherSpec = 20;
constexpr uint8_t kContentAlert = 21;
constexpr uint8_t kContentHandshake = 22;
constexpr uint8_t kContentApplicationData = 23;
constexpr uint8_t kContentHeartbeat = 24;
constexpr uint8_t kHeartbeatRequest = 1;
constexpr uint32_t kHeartbeatMinLen = 1 + 2 + 16;  // type, payload_length, minimum padding (RFC 6520 §4)
constexpr uint8_t kHandshakeClientHello = 1;
constexpr uint8_t kHandshakeServerHello = 2;
constexpr uint8_t kHandshakeCertificate = 11;
constexpr uint32_t kMaxRecordBytes = 16384 + 2048;  // TLSCiphertext limit (RFC 8446 §5.2); plaintext is 2^14

constexpr uint16_t kExtServerName = 0x0000;
constexpr uint16_t kExtSupportedGroups = 0x000a;
constexpr uint16_t kExtEcPointFormats = 0x000b;
constexpr uint16_t kExtSignatureAlgorithms = 0x000d;
constexpr uint16_t kExtAlpn = 0x0010;
constexpr uint16_t kExtSupportedVersions = 0x002b;

// RFC 8701 GREASE values: 0x0a0a, 0x1a1a, ..., 0xfafa (both bytes equal, low nibble 0xa).
bool IsGrease(uint16_t v) { return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff); }

uint32_t Be24(const uint8_t* p) { return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2]; }

// Reads the handshake header and confines `body` to the declared length. kOk, kTruncated or kBadHandshake.
TlsStatus OpenMessage(const uint8_t* msg, uint32_t len, uint8_t want_type, Reader* body) {
  if (msg == nullptr || len < 4) return TlsStatus::kTruncated;
  if (msg[0] != want_type) return TlsStatus::kBadHandshake;
  const uint32_t body_len = Be24(msg + 1);
  if (body_len > len - 4) return TlsStatus::kTruncated;
  *body = Reader(msg + 4, body_len);
  return TlsStatus::kOk;
}

// Reads a vector of 16-bit values whose byte length is given by an `len_bytes`-byte prefix (1 or 2), storing up to
// kTlsMaxList of them in out[] and the exact number in *count. kTruncated when the bytes are missing, kBadHandshake
// for an odd byte length.
TlsStatus ReadU16List(Reader& r, int len_bytes, uint16_t* out, uint16_t* count) {
  uint32_t n = 0;
  if (len_bytes == 1) {
    uint8_t n8;
    if (!r.ReadU8(n8)) return TlsStatus::kTruncated;
    n = n8;
  } else {
    uint16_t n16;
    if (!r.ReadBe16(n16)) return TlsStatus::kTruncated;
    n = n16;
  }
  if (!r.Has(n)) return TlsStatus::kTruncated;
  if ((n & 1) != 0) return TlsStatus::kBadHandshake;
  Reader v = r.Window(n);
  r.Skip(n);
  uint32_t total = 0;
  uint16_t x;
  while (v.ReadBe16(x)) {
    if (total < static_cast<uint32_t>(kTlsMaxList)) out[total] = x;
    ++total;
  }
  *count = static_cast<uint16_t>(total);
  return TlsStatus::kOk;
}

// server_name (RFC 6066 §3): ServerNameList <1..2^16-1> of {name_type (1), HostName <1..2^16-1>}. Takes the first
// host_name (type 0).
bool ParseServerName(Reader r, NameText* sni) {
  if (r.remaining() == 0) return true;  // empty extension (what servers echo; tolerated from clients too)
  uint16_t list_len;
  if (!r.ReadBe16(list_len) || !r.Has(list_len)) return false;
  Reader list = r.Window(list_len);
  while (list.remaining() > 0) {
    uint8_t type;
    uint16_t n;
    if (!list.ReadU8(type) || !list.ReadBe16(n) || !list.Has(n)) return false;
    if (type == 0 && sni->empty()) sni->Assign(reinterpret_cast<const char*>(list.current()), n);
    list.Skip(n);
  }
  return true;
}

// ALPN (RFC 7301 §3.1): ProtocolNameList <2..2^16-1> of ProtocolName <1..2^8-1>. Calls on_name(ptr, len, index).
template <typename F>
bool ParseAlpnList(Reader r, F on_name) {
  uint16_t list_len;
  if (!r.ReadBe16(list_len) || !r.Has(list_len)) return false;
  Reader list = r.Window(list_len);
  int index = 0;
  while (list.remaining() > 0) {
    uint8_t n;
    if (!list.ReadU8(n) || !list.Has(n)) return false;
    on_name(list.current(), n, index++);
    list.Skip(n);
  }
  return true;
}

// Skips legacy_version, random and legacy_session_id, storing the version.
bool ReadHelloPrefix(Reader& r, uint16_t* legacy_version) {
  uint8_t sid_len;
  return r.ReadBe16(*legacy_version) && r.Skip(32) && r.ReadU8(sid_len) && r.Skip(sid_len);
}

// Text builder over a fixed buffer; appends are cut at the capacity (callers size it for kTlsMaxList entries).
template <size_t N>
struct TextBuf {
  char data[N];
  size_t len = 0;
  void Put(char c) {
    if (len < N) data[len++] = c;
  }
  void PutDec(uint32_t v) {
    char digits[kUint32DecimalChars];
    const size_t n = WriteDecimal(v, digits);
    for (size_t i = 0; i < n; ++i) Put(digits[i]);
  }
  void PutHex4(uint16_t v) {
    static const char kHex[] = "0123456789abcdef";
    for (int shift = 12; shift >= 0; shift -= 4) Put(kHex[(v >> shift) & 0xf]);
  }
};

void HexDigest(DigestAlgorithm md, const char* data, size_t len, char* out, size_t hex_chars) {
  static const char kHex[] = "0123456789abcdef";
  unsigned char digest[EVP_MAX_MD_SIZE];
  const unsigned int digest_len = ComputeDigest(md, data, len, digest);
  for (size_t i = 0; i < hex_chars; ++i) {
    const size_t byte = i / 2;
    out[i] = byte < digest_len ? kHex[(i % 2 == 0) ? (digest[byte] >> 4) : (digest[byte] & 0xf)] : '0';
  }
  out[hex_chars] = '\0';
}

// JA4's 12-character truncated SHA-256, "000000000000" for an empty list.
void Hash12(const char* data, size_t len, char* out) {
  if (len == 0) {
    std::memcpy(out, "000000000000", 13);
    return;
  }
  HexDigest(DigestAlgorithm::kSha256, data, len, out, 12);
}

// JA4's two-character version code (FoxIO JA4.md "TLS and DTLS Version"); "00" when unknown.
const char* Ja4Version(uint16_t v) {
  switch (v) {
    case 0x0304:
      return "13";
    case 0x0303:
      return "12";
    case 0x0302:
      return "11";
    case 0x0301:
      return "10";
    case 0x0300:
      return "s3";
    case 0x0002:
      return "s2";
    case 0xfeff:
      return "d1";
    case 0xfefd:
      return "d2";
    case 0xfefc:
      return "d3";
    default:
      return "00";
  }
}

bool IsAsciiAlnum(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// JA4's ALPN characters (FoxIO JA4.md "ALPN Extension Value"): "00" when absent or empty; the first and last bytes
// when both are ASCII alphanumerics; otherwise the first and last characters of the value's hex form.
void Ja4Alpn(const char* first, uint16_t len, uint8_t last, char out[2]) {
  if (len == 0) {
    out[0] = out[1] = '0';
    return;
  }
  const uint8_t f = static_cast<uint8_t>(first[0]);
  if (IsAsciiAlnum(f) && IsAsciiAlnum(last)) {
    out[0] = static_cast<char>(f);
    out[1] = static_cast<char>(last);
    return;
  }
  static const char kHex[] = "0123456789abcdef";
  out[0] = kHex[f >> 4];
  out[1] = kHex[last & 0xf];
}

// Two decimal digits of min(n, 99).
void PutCount2(char* p, uint32_t n) {
  if (n > 99) n = 99;
  p[0] = static_cast<char>('0' + n / 10);
  p[1] = static_cast<char>('0' + n % 10);
}

// Non-GREASE values of a stored list, and the exact non-GREASE count assuming values beyond the stored ones are not
// GREASE (a list longer than kTlsMaxList only happens in crafted hellos).
uint32_t NonGrease(const uint16_t* in, uint16_t count, uint16_t* out) {
  const uint32_t stored = std::min<uint32_t>(count, kTlsMaxList);
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored; ++i) {
    if (!IsGrease(in[i])) out[n++] = in[i];
  }
  return n;
}

uint32_t ExactNonGreaseCount(const uint16_t* in, uint16_t count) {
  uint16_t scratch[kTlsMaxList];
  const uint32_t stored = std::min<uint32_t>(count, kTlsMaxList);
  return NonGrease(in, count, scratch) + (count - stored);
}

}  // namespace

const char* TlsStatusName(TlsStatus s) {
  switch (s) {
    case TlsStatus::kOk:
      return "tls_ok";
    case TlsStatus::kNeedMore:
      return "tls_need_more";
    case TlsStatus::kNotTls:
      return "tls_not_tls";
    case TlsStatus::kTruncated:
      return "tls_truncated";
    case TlsStatus::kBadRecord:
      return "tls_bad_record";
    case TlsStatus::kBadHandshake:
      return "tls_bad_handshake";
    case TlsStatus::kTooLarge:
      return "tls_too_large";
    case TlsStatus::kBadCertificate:
      return "tls_bad_certificate";
    case TlsStatus::kCount:
      break;
  }
  return "tls_unknown";
}

TlsStatus ParseClientHello(const uint8_t* msg, uint32_t len, TlsClientHello* out) {
  out->legacy_version = out->max_version = 0;
  out->cipher_count = out->extension_count = out->group_count = out->sig_alg_count = 0;
  out->point_format_count = 0;
  out->sni.Clear();
  out->alpn_first.Clear();
  out->alpn_first_last = 0;
  out->alpn.Clear();

  Reader r(nullptr, 0);
  const TlsStatus open = OpenMessage(msg, len, kHandshakeClientHello, &r);
  if (open != TlsStatus::kOk) return open;
  if (!ReadHelloPrefix(r, &out->legacy_version)) return TlsStatus::kTruncated;
  out->max_version = out->legacy_version;
  const TlsStatus cs = ReadU16List(r, 2, out->ciphers, &out->cipher_count);
  if (cs != TlsStatus::kOk) return cs;
  uint8_t comp_len;
  if (!r.ReadU8(comp_len) || !r.Skip(comp_len)) return TlsStatus::kTruncated;
  if (r.remaining() == 0) return TlsStatus::kOk;  // no extensions block (TLS 1.0-era clients)

  uint16_t ext_block;
  if (!r.ReadBe16(ext_block) || !r.Has(ext_block)) return TlsStatus::kTruncated;
  Reader exts = r.Window(ext_block);
  bool seen_groups = false, seen_formats = false, seen_sigs = false, seen_alpn = false, seen_versions = false;
  uint32_t ext_total = 0;
  while (exts.remaining() > 0) {
    uint16_t type, n;
    if (!exts.ReadBe16(type) || !exts.ReadBe16(n) || !exts.Has(n)) return TlsStatus::kBadHandshake;
    if (ext_total < static_cast<uint32_t>(kTlsMaxList)) out->extensions[ext_total] = type;
    out->extension_count = static_cast<uint16_t>(++ext_total);
    Reader data = exts.Window(n);
    exts.Skip(n);
    bool ok = true;
    switch (type) {
      case kExtServerName:
        ok = ParseServerName(data, &out->sni);
        break;
      case kExtSupportedGroups:
        if (!seen_groups) ok = ReadU16List(data, 2, out->groups, &out->group_count) == TlsStatus::kOk;
        seen_groups = true;
        break;
      case kExtEcPointFormats:
        if (!seen_formats) {
          uint8_t count;
          ok = data.ReadU8(count) && data.Has(count);
          if (ok) {
            for (uint8_t i = 0; i < count && i < sizeof out->point_formats; ++i) {
              out->point_formats[i] = data.current()[i];
            }
            out->point_format_count = count;
          }
        }
        seen_formats = true;
        break;
      case kExtSignatureAlgorithms:
        if (!seen_sigs) ok = ReadU16List(data, 2, out->sig_algs, &out->sig_alg_count) == TlsStatus::kOk;
        seen_sigs = true;
        break;
      case kExtAlpn:
        if (!seen_alpn) {
          ok = ParseAlpnList(data, [out](const uint8_t* p, uint8_t name_len, int index) {
            const char* s = reinterpret_cast<const char*>(p);
            if (index == 0) {
              out->alpn_first.Assign(s, name_len);
              out->alpn_first_last = name_len > 0 ? p[name_len - 1] : 0;
            } else {
              out->alpn.Push(',');
            }
            for (uint8_t i = 0; i < name_len; ++i) out->alpn.Push(s[i]);
          });
        }
        seen_alpn = true;
        break;
      case kExtSupportedVersions:
        if (!seen_versions) {
          uint16_t versions[kTlsMaxList];
          uint16_t count = 0;
          ok = ReadU16List(data, 1, versions, &count) == TlsStatus::kOk;
          uint16_t best = 0;
          for (uint32_t i = 0; ok && i < count && i < static_cast<uint32_t>(kTlsMaxList); ++i) {
            if (!IsGrease(versions[i]) && versions[i] > best) best = versions[i];
          }
          if (best != 0) out->max_version = best;
        }
        seen_versions = true;
        break;
      default:
        break;
    }
    if (!ok) return TlsStatus::kBadHandshake;
  }
  return TlsStatus::kOk;
}

TlsStatus ParseServerHello(const uint8_t* msg, uint32_t len, TlsServerHello* out) {
  out->legacy_version = out->selected_version = out->cipher = 0;
  out->extension_count = 0;
  out->alpn.Clear();
  out->alpn_last = 0;

  Reader r(nullptr, 0);
  const TlsStatus open = OpenMessage(msg, len, kHandshakeServerHello, &r);
  if (open != TlsStatus::kOk) return open;
  uint8_t compression;
  if (!ReadHelloPrefix(r, &out->legacy_version) || !r.ReadBe16(out->cipher) || !r.ReadU8(compression)) {
    return TlsStatus::kTruncated;
  }
  out->selected_version = out->legacy_version;
  if (r.remaining() == 0) return TlsStatus::kOk;

  uint16_t ext_block;
  if (!r.ReadBe16(ext_block) || !r.Has(ext_block)) return TlsStatus::kTruncated;
  Reader exts = r.Window(ext_block);
  uint32_t ext_total = 0;
  bool seen_alpn = false;
  while (exts.remaining() > 0) {
    uint16_t type, n;
    if (!exts.ReadBe16(type) || !exts.ReadBe16(n) || !exts.Has(n)) return TlsStatus::kBadHandshake;
    if (ext_total < static_cast<uint32_t>(kTlsMaxList)) out->extensions[ext_total] = type;
    out->extension_count = static_cast<uint16_t>(++ext_total);
    Reader data = exts.Window(n);
    exts.Skip(n);
    bool ok = true;
    if (type == kExtAlpn && !seen_alpn) {
      // The server selects exactly one protocol (RFC 7301 §3.1); take the first if it sent more.
      ok = ParseAlpnList(data, [out](const uint8_t* p, uint8_t name_len, int index) {
        if (index != 0) return;
        out->alpn.Assign(reinterpret_cast<const char*>(p), name_len);
        out->alpn_last = name_len > 0 ? p[name_len - 1] : 0;
      });
      seen_alpn = true;
    } else if (type == kExtSupportedVersions) {
      uint16_t v;  // ServerHello form: one selected_version (RFC 8446 §4.2.1)
      ok = data.ReadBe16(v);
      if (ok) out->selected_version = v;
    }
    if (!ok) return TlsStatus::kBadHandshake;
  }
  return TlsStatus::kOk;
}

// The server's certificate (RFC 5280 §4.1): a minimal DER walk of Certificate -> tbsCertificate -> issuer, validity,
// subject, reading only tags and lengths until a Name's AttributeTypeAndValue. What to take from it follows what Zeek
// logs of a certificate (x509.log: subject, issuer, not_valid_before / not_valid_after; base/files/x509/main.zeek) and
// what Slips judges (self-signed); no code copied.
namespace {

constexpr uint8_t kDerInteger = 0x02;
constexpr uint8_t kDerOid = 0x06;
constexpr uint8_t kDerSequence = 0x30;
constexpr uint8_t kDerSet = 0x31;
constexpr uint8_t kDerUtcTime = 0x17;
constexpr uint8_t kDerGeneralizedTime = 0x18;
constexpr uint8_t kDerVersionTag = 0xa0;  // [0] EXPLICIT Version
constexpr uint8_t kDerUniversalString = 0x1c;
constexpr uint8_t kDerBmpString = 0x1e;

// One DER element: reads a low-number tag and a definite length (at most 4 length bytes), confines *body to its
// contents and moves r past it. False when the bytes are missing or the encoding is not DER's.
bool ReadDer(Reader& r, uint8_t* tag, Reader* body) {
  Reader at = r;
  uint8_t t, l0;
  if (!at.ReadU8(t) || (t & 0x1f) == 0x1f || !at.ReadU8(l0)) return false;
  uint32_t n = l0;
  if ((l0 & 0x80) != 0) {
    const int k = l0 & 0x7f;
    if (k == 0 || k > 4) return false;  // indefinite length (BER only), or longer than any captured message
    n = 0;
    for (int i = 0; i < k; ++i) {
      uint8_t b;
      if (!at.ReadU8(b)) return false;
      n = (n << 8) | b;
    }
  }
  if (!at.Has(n)) return false;
  *tag = t;
  *body = at.Window(n);
  at.Skip(n);
  r = at;
  return true;
}

// Appends code point cp as UTF-8 when all of it fits (a value is never cut inside a character).
void PushUtf8(BoundedText<255>* out, uint32_t cp) {
  char b[4];
  int k;
  if (cp < 0x80) {
    b[0] = static_cast<char>(cp);
    k = 1;
  } else if (cp < 0x800) {
    b[0] = static_cast<char>(0xc0 | (cp >> 6));
    b[1] = static_cast<char>(0x80 | (cp & 0x3f));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = static_cast<char>(0xe0 | (cp >> 12));
    b[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    b[2] = static_cast<char>(0x80 | (cp & 0x3f));
    k = 3;
  } else if (cp <= 0x10ffff) {
    b[0] = static_cast<char>(0xf0 | (cp >> 18));
    b[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    b[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    b[3] = static_cast<char>(0x80 | (cp & 0x3f));
    k = 4;
  } else {
    cp = 0xfffd;  // not a character: U+FFFD
    return PushUtf8(out, cp);
  }
  if (out->len + k > static_cast<int>(BoundedText<255>::kCapacity)) {  // a character is never cut
    out->truncated = true;
    return;
  }
  for (int i = 0; i < k; ++i) out->Push(b[i]);
}

// A DirectoryString (or any string type) as UTF-8: BMPString (UCS-2) and UniversalString (UCS-4) converted, the
// 8-bit types (UTF8String, PrintableString, IA5String, TeletexString, VisibleString) copied as sent, never cut inside
// a UTF-8 character.
void TakeString(uint8_t tag, Reader v, BoundedText<255>* out) {
  out->Clear();
  if (tag == kDerBmpString || tag == kDerUniversalString) {
    const uint32_t unit = tag == kDerBmpString ? 2 : 4;
    while (v.remaining() >= unit && !out->truncated) {
      const uint8_t* p = v.current();
      PushUtf8(out, unit == 2 ? be16(p) : be32(p));
      v.Skip(unit);
    }
    return;
  }
  out->Assign(reinterpret_cast<const char*>(v.current()), v.remaining());
  // A UTF-8 value cut at the capacity: end before the character the cut falls in.
  if (out->truncated) {
    while (out->len > 0 && (v.current()[out->len] & 0xc0) == 0x80) --out->len;
  }
}

// Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue ::= SEQUENCE { type OID, value }).
// Takes the first CN, O and OU. False when the structure is inconsistent.
bool ReadName(Reader name, TlsCertName* out) {
  static const uint8_t kAttrPrefix[2] = {0x55, 0x04};  // id-at: 2.5.4
  bool cn = false, o = false, ou = false;
  while (name.remaining() > 0) {
    uint8_t tag;
    Reader rdn(nullptr, 0);
    if (!ReadDer(name, &tag, &rdn) || tag != kDerSet) return false;
    while (rdn.remaining() > 0) {
      Reader atv(nullptr, 0), oid(nullptr, 0), value(nullptr, 0);
      uint8_t value_tag;
      if (!ReadDer(rdn, &tag, &atv) || tag != kDerSequence) return false;
      if (!ReadDer(atv, &tag, &oid) || tag != kDerOid || !ReadDer(atv, &value_tag, &value)) return false;
      if (oid.remaining() != 3 || std::memcmp(oid.current(), kAttrPrefix, 2) != 0) continue;
      const uint8_t attr = oid.current()[2];
      if (attr == 3 && !cn) {
        TakeString(value_tag, value, &out->cn);
        cn = true;
      } else if (attr == 10 && !o) {
        TakeString(value_tag, value, &out->o);
        o = true;
      } else if (attr == 11 && !ou) {
        TakeString(value_tag, value, &out->ou);
        ou = true;
      }
    }
  }
  return true;
}

// Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days arithmetic in eras of 400 years).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// UTCTime YYMMDDHHMMSSZ (years 50-99 are 19YY, RFC 5280 §4.1.2.5.1) or GeneralizedTime YYYYMMDDHHMMSSZ, as seconds
// since the epoch. False for any other form.
bool ReadTime(uint8_t tag, Reader v, int64_t* out) {
  const uint32_t digits = tag == kDerUtcTime ? 12 : tag == kDerGeneralizedTime ? 14 : 0;
  if (digits == 0 || v.remaining() != digits + 1 || v.current()[digits] != 'Z') return false;
  int64_t f[7] = {};
  const uint8_t* p = v.current();
  for (uint32_t i = 0; i < digits; ++i) {
    if (p[i] < '0' || p[i] > '9') return false;
  }
  auto two = [p](uint32_t at) { return static_cast<int64_t>((p[at] - '0') * 10 + (p[at + 1] - '0')); };
  uint32_t at = 0;
  if (tag == kDerUtcTime) {
    f[0] = two(0);
    f[0] += f[0] >= 50 ? 1900 : 2000;
    at = 2;
  } else {
    f[0] = two(0) * 100 + two(2);
    at = 4;
  }
  for (int k = 1; k <= 5; ++k, at += 2) f[k] = two(at);
  if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 60) return false;
  *out = DaysFromCivil(f[0], static_cast<unsigned>(f[1]), static_cast<unsigned>(f[2])) * 86400 + f[3] * 3600 +
         f[4] * 60 + f[5];
  return true;
}

}  // namespace

TlsStatus ParseCertificate(const uint8_t* msg, uint32_t len, TlsCertificate* out) {
  out->subject = TlsCertName();
  out->issuer = TlsCertName();
  out->self_signed = out->has_validity = false;
  out->not_before = out->not_after = 0;
  if (msg == nullptr || len < 4) return TlsStatus::kTruncated;
  if (msg[0] != kHandshakeCertificate) return TlsStatus::kBadHandshake;
  // The message may be cut after its first certificate: read within what is here, not the declared length.
  Reader r(msg + 4, std::min<uint32_t>(len - 4, Be24(msg + 1)));
  uint8_t b[3];
  if (!r.Read(b)) return TlsStatus::kTruncated;
  if (Be24(b) == 0) return TlsStatus::kBadHandshake;  // an empty list: the server sent no certificate
  if (!r.Read(b)) return TlsStatus::kTruncated;
  const uint32_t cert_len = Be24(b);
  if (!r.Has(cert_len)) return TlsStatus::kTruncated;
  Reader der = r.Window(cert_len);

  uint8_t tag;
  Reader cert(nullptr, 0), tbs(nullptr, 0), skip(nullptr, 0), issuer(nullptr, 0), validity(nullptr, 0),
      subject(nullptr, 0);
  if (!ReadDer(der, &tag, &cert) || tag != kDerSequence) return TlsStatus::kBadCertificate;
  if (!ReadDer(cert, &tag, &tbs) || tag != kDerSequence) return TlsStatus::kBadCertificate;
  if (tbs.remaining() > 0 && tbs.current()[0] == kDerVersionTag && !ReadDer(tbs, &tag, &skip)) {
    return TlsStatus::kBadCertificate;
  }
  if (!ReadDer(tbs, &tag, &skip) || tag != kDerInteger) return TlsStatus::kBadCertificate;   // serialNumber
  if (!ReadDer(tbs, &tag, &skip) || tag != kDerSequence) return TlsStatus::kBadCertificate;  // signature
  if (!ReadDer(tbs, &tag, &issuer) || tag != kDerSequence) return TlsStatus::kBadCertificate;
  if (!ReadDer(tbs, &tag, &validity) || tag != kDerSequence) return TlsStatus::kBadCertificate;
  if (!ReadDer(tbs, &tag, &subject) || tag != kDerSequence) return TlsStatus::kBadCertificate;
  if (!ReadName(issuer, &out->issuer) || !ReadName(subject, &out->subject)) return TlsStatus::kBadCertificate;
  out->self_signed = subject.remaining() > 0 && subject.remaining() == issuer.remaining() &&
                     std::memcmp(subject.current(), issuer.current(), subject.remaining()) == 0;
  Reader before(nullptr, 0), after(nullptr, 0);
  uint8_t before_tag, after_tag;
  if (ReadDer(validity, &before_tag, &before) && ReadDer(validity, &after_tag, &after)) {
    out->has_validity = ReadTime(before_tag, before, &out->not_before) && ReadTime(after_tag, after, &out->not_after);
  }
  return TlsStatus::kOk;
}

// JA3 (salesforce/ja3 README; Wireshark's tls.handshake.ja3_full): decimal fields
// "SSLVersion,Ciphers,Extensions,EllipticCurves,EllipticCurvePointFormats", list entries joined with '-', GREASE
// values dropped from every list, extensions in the order sent; MD5 of that string.
void Ja3(const TlsClientHello& ch, char out[33]) {
  TextBuf<4096> s;
  auto put_list = [&s](const uint16_t* values, uint16_t count) {
    bool first = true;
    for (uint32_t i = 0; i < count && i < static_cast<uint32_t>(kTlsMaxList); ++i) {
      if (IsGrease(values[i])) continue;
      if (!first) s.Put('-');
      s.PutDec(values[i]);
      first = false;
    }
  };
  s.PutDec(ch.legacy_version);
  s.Put(',');
  put_list(ch.ciphers, ch.cipher_count);
  s.Put(',');
  put_list(ch.extensions, ch.extension_count);
  s.Put(',');
  put_list(ch.groups, ch.group_count);
  s.Put(',');
  for (uint32_t i = 0; i < ch.point_format_count && i < sizeof ch.point_formats; ++i) {
    if (i != 0) s.Put('-');
    s.PutDec(ch.point_formats[i]);
  }
  HexDigest(DigestAlgorithm::kMd5, s.data, s.len, out, 32);
}

// JA4 (FoxIO technical_details/JA4.md): section a is protocol, version, SNI d/i, cipher and extension counts (GREASE
// dropped, at most 99), ALPN characters; b the truncated SHA-256 of the sorted cipher list; c that of the sorted
// extensions without SNI and ALPN, then "_" and the signature algorithms in the order sent.
void Ja4(const TlsClientHello& ch, bool quic, char out[40]) {
  uint16_t ciphers[kTlsMaxList];
  const uint32_t cipher_n = NonGrease(ch.ciphers, ch.cipher_count, ciphers);
  uint16_t exts[kTlsMaxList];
  const uint32_t ext_stored = NonGrease(ch.extensions, ch.extension_count, exts);
  uint16_t sigs[kTlsMaxList];
  const uint32_t sig_n = NonGrease(ch.sig_algs, ch.sig_alg_count, sigs);

  bool has_sni = false;
  uint32_t ext_n = 0;  // sorted list without SNI and ALPN
  for (uint32_t i = 0; i < ext_stored; ++i) {
    if (exts[i] == kExtServerName) has_sni = true;
    if (exts[i] != kExtServerName && exts[i] != kExtAlpn) exts[ext_n++] = exts[i];
  }
  std::sort(ciphers, ciphers + cipher_n);
  std::sort(exts, exts + ext_n);

  char* p = out;
  *p++ = quic ? 'q' : 't';
  std::memcpy(p, Ja4Version(ch.max_version), 2);
  p += 2;
  *p++ = has_sni ? 'd' : 'i';
  PutCount2(p, ExactNonGreaseCount(ch.ciphers, ch.cipher_count));
  p += 2;
  PutCount2(p, ExactNonGreaseCount(ch.extensions, ch.extension_count));
  p += 2;
  Ja4Alpn(ch.alpn_first.data, ch.alpn_first.len, ch.alpn_first_last, p);
  p += 2;
  *p++ = '_';

  TextBuf<kTlsMaxList * 5> b;
  for (uint32_t i = 0; i < cipher_n; ++i) {
    if (i != 0) b.Put(',');
    b.PutHex4(ciphers[i]);
  }
  Hash12(b.data, b.len, p);
  p += 12;
  *p++ = '_';

  TextBuf<kTlsMaxList * 10 + 1> c;
  for (uint32_t i = 0; i < ext_n; ++i) {
    if (i != 0) c.Put(',');
    c.PutHex4(exts[i]);
  }
  if (ext_n == 0) {
    std::memcpy(p, "000000000000", 13);  // JA4.md: no extensions left -> zeros, signature algorithms or not
    return;
  }
  if (sig_n > 0) c.Put('_');
  for (uint32_t i = 0; i < sig_n; ++i) {
    if (i != 0) c.Put(',');
    c.PutHex4(sigs[i]);
  }
  Hash12(c.data, c.len, p);
}

// JA4S (FoxIO technical_details/README.md, JA4S.png; reference implementations in python/ja4.py and
// rust/ja4/src/tls.rs): protocol, selected version, extension count (at most 99), ALPN characters, "_", the cipher
// in hex, "_", the truncated SHA-256 of the extensions in the order sent.
void Ja4s(const TlsServerHello& sh, bool quic, char out[32]) {
  char* p = out;
  *p++ = quic ? 'q' : 't';
  std::memcpy(p, Ja4Version(sh.selected_version), 2);
  p += 2;
  PutCount2(p, sh.extension_count);
  p += 2;
  Ja4Alpn(sh.alpn.data, sh.alpn.len, sh.alpn_last, p);
  p += 2;
  *p++ = '_';
  TextBuf<4> cipher;
  cipher.PutHex4(sh.cipher);
  std::memcpy(p, cipher.data, 4);
  p += 4;
  *p++ = '_';
  TextBuf<kTlsMaxList * 5> c;
  for (uint32_t i = 0; i < sh.extension_count && i < static_cast<uint32_t>(kTlsMaxList); ++i) {
    if (i != 0) c.Put(',');
    c.PutHex4(sh.extensions[i]);
  }
  Hash12(c.data, c.len, p);
}

bool LooksLikeTlsHandshake(const uint8_t* data, uint32_t len) {
  if (data == nullptr || len < 5) return false;
  const uint32_t record_len = be16(data + 3);
  return data[0] == kContentHandshake && data[1] == 3 && data[2] <= 4 && record_len > 0 &&
         record_len <= kMaxRecordBytes;
}

uint32_t TlsHandshakeAssembler::Target() const {
  if (have_ < 4) return 4;
  const uint32_t msg_len = 4 + Be24(buf_.get() + 1);
  if (!certificate_) return msg_len;
  if (buf_[0] != kHandshakeCertificate) return 4;  // not a Certificate: its header says enough
  // type (1), length (3), certificate_list length (3), the first certificate's length (3), then its bytes.
  if (have_ < 10) return std::min<uint32_t>(msg_len, 10);
  return std::min<uint32_t>(msg_len, 10 + Be24(buf_.get() + 7));
}

TlsStatus TlsHandshakeAssembler::Feed(const uint8_t* data, uint32_t len) {
  if (error_ != TlsStatus::kOk) return error_;
  if (done_) return TlsStatus::kOk;
  auto fail = [this](TlsStatus s) {
    error_ = s;
    return s;
  };
  consumed_ = 0;
  uint32_t pos = 0;
  while (pos < len) {
    if (record_left_ == 0) {
      // Collect the 5-byte record header: content type, version (2), length (2).
      const uint32_t take = std::min<uint32_t>(5 - header_have_, len - pos);
      std::memcpy(header_ + header_have_, data + pos, take);
      header_have_ = static_cast<uint8_t>(header_have_ + take);
      pos += take;
      if (header_have_ < 5) break;
      header_have_ = 0;
      if (header_[0] != kContentHandshake) return fail(TlsStatus::kNotTls);
      const uint32_t record_len = be16(header_ + 3);
      if (header_[1] != 3 || record_len == 0 || record_len > kMaxRecordBytes) return fail(TlsStatus::kBadRecord);
      record_left_ = record_len;
      if (!buf_) buf_.reset(new uint8_t[kMaxBytes]);
      continue;
    }
    // Record body: append handshake bytes until the message is complete (the header first, then what it asks for).
    const uint32_t want = std::min(std::min(record_left_, len - pos), Target() - have_);
    std::memcpy(buf_.get() + have_, data + pos, want);
    have_ += want;
    pos += want;
    record_left_ -= want;
    const uint32_t target = Target();
    if (target > kMaxBytes) return fail(TlsStatus::kTooLarge);
    if (have_ == target) {
      done_ = true;
      consumed_ = pos;
      return TlsStatus::kOk;
    }
  }
  return TlsStatus::kNeedMore;
}

const uint8_t* TlsHandshakeAssembler::message() const { return done_ ? buf_.get() : nullptr; }

uint32_t TlsHandshakeAssembler::message_len() const { return done_ ? have_ : 0; }

void TlsHandshakeAssembler::NextCertificate() {
  have_ = 0;
  consumed_ = 0;
  done_ = false;
  certificate_ = true;
}

void TlsHandshakeAssembler::Reset() {
  buf_.reset();
  have_ = 0;
  consumed_ = 0;
  record_left_ = 0;
  header_have_ = 0;
  done_ = false;
  certificate_ = false;
  error_ = TlsStatus::kOk;
}

// The record walker. Learned from Zeek's heartbleed policy (scripts/policy/protocols/ssl/heartbleed.zeek: plaintext
// payload_length against record length, heartbeats before application data, odd lengths) and the ET OPEN heartbeat
// rules ("Malformed HeartBeat Request", "Possible OpenSSL HeartBleed Large HeartBeat Response"); no code copied.
TlsStatus TlsRecordWalker::Feed(const uint8_t* data, uint32_t len, bool peer_app_data) {
  if (done_) return status_;
  uint32_t pos = 0;
  while (pos < len) {
    if (record_left_ > 0) {
      const uint32_t take = std::min(record_left_, len - pos);
      if (in_plain_heartbeat_ && hb_have_ < 3) {
        const uint32_t want = std::min<uint32_t>(take, 3u - hb_have_);
        std::memcpy(hb_ + hb_have_, data + pos, want);
        hb_have_ = static_cast<uint8_t>(hb_have_ + want);
        if (hb_have_ == 3) HeartbeatHeader();
      }
      pos += take;
      record_left_ -= take;
      if (record_left_ == 0 && in_plain_heartbeat_ && hb_have_ < 3) heartbeats_.overlong = true;  // no room for it
      if (record_left_ == 0) in_plain_heartbeat_ = false;
      continue;
    }
    const uint32_t take = std::min<uint32_t>(5u - header_have_, len - pos);
    std::memcpy(header_ + header_have_, data + pos, take);
    header_have_ = static_cast<uint8_t>(header_have_ + take);
    pos += take;
    if (header_have_ < 5) break;
    header_have_ = 0;
    const uint8_t type = header_[0];
    const uint32_t record_len = be16(header_ + 3);
    if (type < kContentChangeCipherSpec || type > kContentHeartbeat || header_[1] != 3 ||
        record_len > kMaxRecordBytes) {
      done_ = true;
      status_ = TlsStatus::kBadRecord;
      return status_;
    }
    record_len_ = static_cast<uint16_t>(record_len);
    record_left_ = record_len;
    StartRecord(peer_app_data);
    if (++records_ >= kMaxRecords) {
      done_ = true;
      status_ = TlsStatus::kOk;
      return status_;
    }
  }
  return TlsStatus::kNeedMore;
}

void TlsRecordWalker::StartRecord(bool peer_app_data) {
  switch (header_[0]) {
    case kContentChangeCipherSpec:
      cipher_changed_ = true;
      break;
    case kContentApplicationData:
      if (record_len_ > 0) app_data_ = true;
      break;
    case kContentHeartbeat:
      heartbeats_.records++;
      heartbeats_.max_len = std::max<uint32_t>(heartbeats_.max_len, record_len_);
      if (!app_data_ && !peer_app_data) heartbeats_.early = true;
      if (record_len_ < kHeartbeatMinLen) heartbeats_.short_record = true;
      if (!cipher_changed_) {
        in_plain_heartbeat_ = true;
        hb_have_ = 0;
        if (record_len_ == 0) {
          heartbeats_.overlong = true;
          in_plain_heartbeat_ = false;
        }
      }
      break;
    case kContentAlert:
    case kContentHandshake:
    default:
      break;
  }
}

void TlsRecordWalker::HeartbeatHeader() {
  const uint32_t payload_len = be16(hb_ + 1);
  const uint32_t room = record_len_ < kHeartbeatMinLen ? record_len_ : record_len_ - kHeartbeatMinLen;
  if (hb_[0] == kHeartbeatRequest && payload_len > room) heartbeats_.overlong = true;
}

}  // namespace vigil
