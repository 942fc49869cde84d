// HTTP/1.x request and response heads (RFC 9112): the request line, Host and User-Agent, the status code, the
// response's Content-Type, and the magic bytes its body starts with.
#include "app/http.h"

#include <cstring>
#include <string_view>

namespace vigil {
namespace {

// Request methods recognised by content: RFC 9110 §9, PATCH (RFC 5789), WebDAV (RFC 4918, RFC 3253, RFC 5323,
// RFC 4791) and the UPnP ones (SSDP's M-SEARCH/NOTIFY over UDP, GENA's SUBSCRIBE/UNSUBSCRIBE/NOTIFY over TCP), which
// tshark also dissects as HTTP.
constexpr std::string_view kMethods[] = {
    "GET",         "POST",       "HEAD",       "PUT",      "DELETE",          "OPTIONS",
    "CONNECT",     "PATCH",      "TRACE",      "PROPFIND", "PROPPATCH",       "MKCOL",
    "COPY",        "MOVE",       "LOCK",       "UNLOCK",   "SEARCH",          "REPORT",
    "MKACTIVITY",  "CHECKOUT",   "CHECKIN",    "MERGE",    "VERSION-CONTROL", "UNCHECKOUT",
    "MKWORKSPACE", "LABEL",      "UPDATE",     "BIND",     "UNBIND",          "REBIND",
    "ACL",         "ORDERPATCH", "MKCALENDAR", "M-SEARCH", "NOTIFY",          "SUBSCRIBE",
    "UNSUBSCRIBE"};

constexpr char kResponsePrefix[] = "HTTP/1.";
constexpr uint32_t kResponsePrefixLen = sizeof kResponsePrefix - 1;

enum class Prefix { kMatch, kPartial, kNoMatch };

// Whether data starts with a known method and a space (kMatch, *method_len set), could still become one when more
// bytes come (kPartial), or cannot (kNoMatch).
Prefix MatchMethod(const uint8_t* data, uint32_t len, uint32_t* method_len) {
  if (len > 0 && (data[0] < 'A' || data[0] > 'Z')) return Prefix::kNoMatch;  // the common case: not a method
  bool partial = false;
  for (std::string_view m : kMethods) {
    const uint32_t n = static_cast<uint32_t>(m.size());
    if (len > n) {
      if (std::memcmp(data, m.data(), n) == 0 && data[n] == ' ') {
        *method_len = n;
        return Prefix::kMatch;
      }
    } else if (std::memcmp(data, m.data(), len) == 0) {
      partial = true;  // data is "GE" or "GET" without the space yet
    }
  }
  return partial ? Prefix::kPartial : Prefix::kNoMatch;
}

bool IsOws(uint8_t c) { return c == ' ' || c == '\t'; }

// RFC 9110 §5.6.2 tchar: the bytes allowed in a header field name.
bool IsTokenChar(uint8_t c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

// Position of the first LF in data[from..len), or len when there is none.
uint32_t FindLf(const uint8_t* data, uint32_t len, uint32_t from) {
  const void* p = from < len ? std::memchr(data + from, '\n', len - from) : nullptr;
  return p ? static_cast<uint32_t>(static_cast<const uint8_t*>(p) - data) : len;
}

// Parses the field line data[begin..end) (end excludes the LF; a CR before it is dropped) into out when it is Host or
// User-Agent. False when the line is not "name: value".
bool ParseFieldLine(const uint8_t* data, uint32_t begin, uint32_t end, HttpRequest* out, bool* have_host,
                    bool* have_ua) {
  if (end > begin && data[end - 1] == '\r') --end;
  if (IsOws(data[begin])) return true;  // obsolete line folding (RFC 9112 §5.2): a continuation, not a field
  uint32_t colon = begin;
  while (colon < end && data[colon] != ':') {
    if (!IsTokenChar(data[colon])) return false;
    ++colon;
  }
  if (colon == end || colon == begin) return false;
  uint32_t v = colon + 1;
  uint32_t v_end = end;
  while (v < v_end && IsOws(data[v])) ++v;
  while (v_end > v && IsOws(data[v_end - 1])) --v_end;
  const char* value = reinterpret_cast<const char*>(data + v);
  const uint32_t name_len = colon - begin;
  if (!*have_host && EqualsIgnoreCase(data + begin, name_len, "host")) {
    out->host.Assign(value, v_end - v);
    *have_host = true;
  } else if (!*have_ua && EqualsIgnoreCase(data + begin, name_len, "user-agent")) {
    out->user_agent.Assign(value, v_end - v);
    *have_ua = true;
  }
  return true;
}

}  // namespace

bool EqualsIgnoreCase(const uint8_t* a, uint32_t n, const char* lower) {
  if (std::strlen(lower) != n) return false;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<uint8_t>(c | 0x20);
    if (c != static_cast<uint8_t>(lower[i])) return false;
  }
  return true;
}

const char* HttpStatusName(HttpStatus s) {
  switch (s) {
    case HttpStatus::kOk:
      return "http_ok";
    case HttpStatus::kNeedMore:
      return "http_need_more";
    case HttpStatus::kNotHttp:
      return "http_not_http";
    case HttpStatus::kBadRequestLine:
      return "http_bad_request_line";
    case HttpStatus::kBadHeader:
      return "http_bad_header";
    case HttpStatus::kCount:
      break;
  }
  return "http_unknown";
}

bool LooksLikeHttpRequest(const uint8_t* data, uint32_t len) {
  uint32_t n = 0;
  return data != nullptr && MatchMethod(data, len, &n) == Prefix::kMatch;
}

bool LooksLikeHttpResponse(const uint8_t* data, uint32_t len) {
  return data != nullptr && len >= kResponsePrefixLen && std::memcmp(data, kResponsePrefix, kResponsePrefixLen) == 0;
}

HttpStatus ParseHttpRequest(const uint8_t* data, uint32_t len, HttpRequest* out) {
  out->method.Clear();
  out->host.Clear();
  out->uri.Clear();
  out->user_agent.Clear();
  out->version_minor = 1;
  if (data == nullptr || len == 0) return HttpStatus::kNeedMore;

  // Request line: method SP request-target SP HTTP/1.x CRLF (RFC 9112 §3). As in Wireshark, the target is the first
  // word after the method and the version the last word of the line, so a target with unencoded spaces (seen in
  // attack tools' requests) still yields its first word and the request; extra spaces between the parts are allowed.
  uint32_t method_len = 0;
  const Prefix p = MatchMethod(data, len, &method_len);
  if (p == Prefix::kPartial) return HttpStatus::kNeedMore;
  if (p == Prefix::kNoMatch) return HttpStatus::kNotHttp;
  out->method.Assign(reinterpret_cast<const char*>(data), method_len);

  const uint32_t line_end = FindLf(data, len, method_len);
  const bool line_cut = line_end == len;
  uint32_t content_end = line_end;  // the line without its CR
  if (content_end > method_len && data[content_end - 1] == '\r') --content_end;
  for (uint32_t i = method_len; i < content_end; ++i) {
    if (data[i] < 0x20 || data[i] == 0x7f) return HttpStatus::kBadRequestLine;
  }
  uint32_t pos = method_len;
  while (pos < content_end && data[pos] == ' ') ++pos;
  const uint32_t target = pos;
  while (pos < content_end && data[pos] != ' ') ++pos;
  if (pos == content_end) {
    // No space after the target yet: cut inside it (wait), or a line without a version (HTTP/0.9: not parsed).
    return line_cut ? HttpStatus::kNeedMore : HttpStatus::kBadRequestLine;
  }
  if (pos == target) return HttpStatus::kBadRequestLine;
  out->uri.Assign(reinterpret_cast<const char*>(data + target), pos - target);
  if (line_cut) return HttpStatus::kNeedMore;  // the version (the line's last word) is not known yet

  // Version: the last word, "HTTP/1." and one digit.
  uint32_t version = content_end;
  while (version > pos && data[version - 1] != ' ') --version;
  const uint32_t version_len = kResponsePrefixLen + 1;
  if (content_end - version != version_len || std::memcmp(data + version, kResponsePrefix, kResponsePrefixLen) != 0) {
    return HttpStatus::kBadRequestLine;
  }
  const uint8_t minor = data[version + kResponsePrefixLen];
  if (minor < '0' || minor > '9') return HttpStatus::kBadRequestLine;
  out->version_minor = static_cast<uint8_t>(minor - '0');

  // Header fields until the empty line (RFC 9112 §5). A line cut by the end of the buffer is left unread.
  bool have_host = false;
  bool have_ua = false;
  pos = line_end + 1;
  while (pos < len) {
    const uint32_t end = FindLf(data, len, pos);
    if (end == len) return HttpStatus::kNeedMore;
    if (end == pos || (end == pos + 1 && data[pos] == '\r')) return HttpStatus::kOk;
    if (!ParseFieldLine(data, pos, end, out, &have_host, &have_ua)) return HttpStatus::kBadHeader;
    pos = end + 1;
  }
  return HttpStatus::kNeedMore;
}

HttpStatus ParseHttpResponseStatus(const uint8_t* data, uint32_t len, uint16_t* status) {
  *status = 0;
  if (data == nullptr) return HttpStatus::kNeedMore;
  // "HTTP/1.x" SP 3DIGIT (SP reason-phrase)? CRLF (RFC 9112 §4).
  const uint32_t cmp = len < kResponsePrefixLen ? len : kResponsePrefixLen;
  if (std::memcmp(data, kResponsePrefix, cmp) != 0) return HttpStatus::kNotHttp;
  constexpr uint32_t kCodeAt = kResponsePrefixLen + 2;  // after the minor digit and the space
  for (uint32_t i = kResponsePrefixLen; i < len && i < kCodeAt + 3; ++i) {
    const uint8_t c = data[i];
    const bool ok = (i == kCodeAt - 1) ? c == ' ' : (c >= '0' && c <= '9');
    if (!ok) return HttpStatus::kBadRequestLine;
  }
  if (len < kCodeAt + 3) return HttpStatus::kNeedMore;
  if (len > kCodeAt + 3) {
    const uint8_t after = data[kCodeAt + 3];
    if (after != ' ' && after != '\r' && after != '\n') return HttpStatus::kBadRequestLine;
  }
  *status =
      static_cast<uint16_t>((data[kCodeAt] - '0') * 100 + (data[kCodeAt + 1] - '0') * 10 + (data[kCodeAt + 2] - '0'));
  return HttpStatus::kOk;
}

HttpStatus ParseHttpResponseHead(const uint8_t* data, uint32_t len, HttpResponse* out) {
  out->status = 0;
  out->content_type.Clear();
  out->chunked = false;
  out->head_len = 0;
  const HttpStatus line = ParseHttpResponseStatus(data, len, &out->status);
  if (line != HttpStatus::kOk) return line;
  // Header fields until the empty line (RFC 9112 §5), as for a request; a line cut by the end is left unread.
  bool have_type = false;
  uint32_t pos = FindLf(data, len, 0);
  if (pos == len) return HttpStatus::kNeedMore;
  ++pos;
  while (pos < len) {
    const uint32_t end = FindLf(data, len, pos);
    if (end == len) return HttpStatus::kNeedMore;
    if (end == pos || (end == pos + 1 && data[pos] == '\r')) {
      out->head_len = end + 1;
      return HttpStatus::kOk;
    }
    uint32_t stop = end;
    if (data[stop - 1] == '\r') --stop;
    // Only Content-Type and Transfer-Encoding are read (and their lines checked); other lines are stepped over.
    const uint8_t first = static_cast<uint8_t>(data[pos] | 0x20);
    if (first == 'c' || first == 't') {
      uint32_t colon = pos;
      while (colon < stop && data[colon] != ':') {
        if (!IsTokenChar(data[colon])) return HttpStatus::kBadHeader;
        ++colon;
      }
      if (colon == stop || colon == pos) return HttpStatus::kBadHeader;
      uint32_t v = colon + 1;
      uint32_t v_end = stop;
      while (v < v_end && IsOws(data[v])) ++v;
      while (v_end > v && IsOws(data[v_end - 1])) --v_end;
      const uint32_t name_len = colon - pos;
      if (!have_type && EqualsIgnoreCase(data + pos, name_len, "content-type")) {
        out->content_type.Assign(reinterpret_cast<const char*>(data + v), v_end - v);
        have_type = true;
      } else if (EqualsIgnoreCase(data + pos, name_len, "transfer-encoding")) {
        // The last coding is the one applied last (RFC 9112 §6.1): chunked, when present, is always last.
        out->chunked = v_end - v >= 7 && EqualsIgnoreCase(data + v_end - 7, 7, "chunked");
      }
    }
    pos = end + 1;
  }
  return HttpStatus::kNeedMore;
}

const char* HttpBodyMagicName(HttpBodyMagic m) {
  static const char* const kNames[] = {"",   "other", "pe",  "elf", "macho", "zip",  "gzip", "rar",
                                       "7z", "cab",   "ole", "pdf", "png",   "jpeg", "gif",  "script"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(HttpBodyMagic::kCount), "one per type");
  const size_t i = static_cast<size_t>(m);
  return i < static_cast<size_t>(HttpBodyMagic::kCount) ? kNames[i] : "";
}

namespace {

struct MagicSignature {
  const char* bytes;
  uint8_t len;
  HttpBodyMagic type;
};
// Signatures at offset 0 (file(1)'s magic database and Suricata's filemagic use the same prefixes). PE is apart: it
// needs its header offset checked.
constexpr MagicSignature kSignatures[] = {
    {"\x7f"
     "ELF",
     4, HttpBodyMagic::kElf},
    {"\xfe\xed\xfa\xce", 4, HttpBodyMagic::kMachO},
    {"\xfe\xed\xfa\xcf", 4, HttpBodyMagic::kMachO},
    {"\xce\xfa\xed\xfe", 4, HttpBodyMagic::kMachO},
    {"\xcf\xfa\xed\xfe", 4, HttpBodyMagic::kMachO},
    {"PK\x03\x04", 4, HttpBodyMagic::kZip},
    {"\x1f\x8b\x08", 3, HttpBodyMagic::kGzip},
    {"Rar!\x1a\x07", 6, HttpBodyMagic::kRar},
    {"7z\xbc\xaf\x27\x1c", 6, HttpBodyMagic::kSevenZip},
    {"MSCF", 4, HttpBodyMagic::kCab},
    {"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8, HttpBodyMagic::kOle},
    {"%PDF-", 5, HttpBodyMagic::kPdf},
    {"\x89PNG\r\n\x1a\n", 8, HttpBodyMagic::kPng},
    {"\xff\xd8\xff", 3, HttpBodyMagic::kJpeg},
    {"GIF87a", 6, HttpBodyMagic::kGif},
    {"GIF89a", 6, HttpBodyMagic::kGif},
    {"#!", 2, HttpBodyMagic::kScript},
};

// The PE offset field (e_lfanew, little-endian at 60) points at "PE\0\0" (Microsoft PE format, "MS-DOS Stub"; the
// ET POLICY rule checks the same). Beyond the bytes at hand, an offset within the usual stub size is accepted.
constexpr uint32_t kPeOffsetAt = 60;
constexpr uint32_t kPeOffsetMaxUnchecked = 1024;

}  // namespace

HttpBodyMagic ClassifyBodyMagic(const uint8_t* body, uint32_t len, bool complete) {
  if (body == nullptr || len == 0) return HttpBodyMagic::kNone;
  if (body[0] == 'M' && (len < 2 || body[1] == 'Z')) {
    if (len < kHttpMagicBytes) return complete ? HttpBodyMagic::kOther : HttpBodyMagic::kNone;
    const uint32_t at = static_cast<uint32_t>(body[kPeOffsetAt]) | (static_cast<uint32_t>(body[kPeOffsetAt + 1]) << 8) |
                        (static_cast<uint32_t>(body[kPeOffsetAt + 2]) << 16) |
                        (static_cast<uint32_t>(body[kPeOffsetAt + 3]) << 24);
    if (at < kHttpMagicBytes) return HttpBodyMagic::kOther;
    if (at <= len - 4) return std::memcmp(body + at, "PE\0\0", 4) == 0 ? HttpBodyMagic::kPe : HttpBodyMagic::kOther;
    return at <= kPeOffsetMaxUnchecked ? HttpBodyMagic::kPe : HttpBodyMagic::kOther;
  }
  bool could_grow = false;
  for (const MagicSignature& m : kSignatures) {
    const uint32_t n = len < m.len ? len : m.len;
    if (std::memcmp(body, m.bytes, n) != 0) continue;
    if (n == m.len) return m.type;
    could_grow = true;  // a prefix of the signature so far
  }
  return could_grow && !complete ? HttpBodyMagic::kNone : HttpBodyMagic::kOther;
}

HttpStatus SkipChunkSize(const uint8_t* data, uint32_t len, uint32_t* skip) {
  *skip = 0;
  uint32_t i = 0;
  auto hex = [](uint8_t c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); };
  while (i < len && i < 16 && hex(data[i])) ++i;
  if (i == len) return HttpStatus::kNeedMore;
  if (i == 0 || i == 16) return HttpStatus::kBadHeader;
  // chunk-ext (RFC 9112 §7.1.1) up to the line end, bounded.
  const uint32_t end = FindLf(data, len < i + 256 ? len : i + 256, i);
  if (end == (len < i + 256 ? len : i + 256)) return len < i + 256 ? HttpStatus::kNeedMore : HttpStatus::kBadHeader;
  *skip = end + 1;
  return HttpStatus::kOk;
}

}  // namespace vigil
