// HTTP/1.x: the first request's method, Host, URI and User-Agent, the first response's status and Content-Type, the
// file type its body starts with (magic bytes), and request counting.
#pragma once

#include <cstdint>

#include "app/bounded_text.h"

namespace vigil {

enum class HttpStatus : uint8_t { kOk = 0, kNeedMore, kNotHttp, kBadRequestLine, kBadHeader, kCount };
const char* HttpStatusName(HttpStatus s);  // "http_bad_request_line", ...

struct HttpRequest {
  BoundedText<16> method;
  NameText host;  // Host header value (port included as sent, like tshark's http.host)
  LongText uri;   // request target as sent (tshark's http.request.uri)
  LongText user_agent;
  uint8_t version_minor = 1;
};

// True when a[0..n) equals `lower` (ASCII, lower case) compared without case: header names, URI schemes.
bool EqualsIgnoreCase(const uint8_t* a, uint32_t n, const char* lower);

// True when data starts with an HTTP/1.x request method token and a space (GET, POST, HEAD, PUT, DELETE, OPTIONS,
// CONNECT, PATCH, TRACE, PROPFIND, ...).
bool LooksLikeHttpRequest(const uint8_t* data, uint32_t len);
// True when data starts with "HTTP/1.".
bool LooksLikeHttpResponse(const uint8_t* data, uint32_t len);

// Parses a request head from data[0..len). kNeedMore when the head is cut before the blank line but what is there
// parses (fields read so far are filled in: the caller may keep them if no more data comes).
HttpStatus ParseHttpRequest(const uint8_t* data, uint32_t len, HttpRequest* out);
// Reads the status code of a response line ("HTTP/1.1 200 OK").
HttpStatus ParseHttpResponseStatus(const uint8_t* data, uint32_t len, uint16_t* status);

// The first response's head: status code, Content-Type, and where the body starts.
struct HttpResponse {
  uint16_t status = 0;
  BoundedText<128> content_type;  // as sent, parameters included ("image/png", "text/html; charset=utf-8")
  bool chunked = false;           // Transfer-Encoding ends in "chunked": the body starts with a chunk-size line
  uint32_t head_len = 0;          // bytes of the head, blank line included (kOk only)
};

// Parses a response head from data[0..len): the status line, Content-Type and Transfer-Encoding. kNeedMore when the
// blank line has not come yet (what was read is filled in); kNotHttp / kBadRequestLine for the status line as
// ParseHttpResponseStatus; kBadHeader for a field line starting with 'c' or 't' (the two names read) that is not
// "name: value" (other lines are only stepped over, to keep the cost per response to one scan for line ends).
HttpStatus ParseHttpResponseHead(const uint8_t* data, uint32_t len, HttpResponse* out);

// The file type a body starts with, by its magic bytes (what Suricata's filemagic and the ET POLICY executable rules
// look at). Values are part of the batch layout (the httpBodyMagic column); names are HttpBodyMagicName's.
enum class HttpBodyMagic : uint8_t {
  kNone = 0,  // no body bytes seen
  kOther,     // a body that starts with none of the types below
  kPe,        // "MZ" and, where the bytes reach, "PE\0\0" at e_lfanew: a Windows executable or DLL
  kElf,       // 7f 'E' 'L' 'F'
  kMachO,     // Mach-O (fe ed fa ce/cf, either byte order)
  kZip,       // "PK\3\4": zip, jar, apk, docx...
  kGzip,      // 1f 8b 08
  kRar,       // "Rar!\x1a\x07"
  kSevenZip,  // "7z\xbc\xaf\x27\x1c"
  kCab,       // "MSCF"
  kOle,       // d0 cf 11 e0 a1 b1 1a e1: OLE2 (legacy Office documents, MSI)
  kPdf,       // "%PDF-"
  kPng,       // 89 "PNG" 0d 0a 1a 0a
  kJpeg,      // ff d8 ff
  kGif,       // "GIF87a" / "GIF89a"
  kScript,    // "#!" (a shell or interpreter script)
  kCount
};
const char* HttpBodyMagicName(HttpBodyMagic m);  // "pe", "elf", ...; "" for kNone

// The body bytes magic detection needs: enough for a PE's e_lfanew (offset 60, 4 bytes).
constexpr uint32_t kHttpMagicBytes = 64;

// Classifies the first bytes of a body. `complete`: no more body bytes will come (a short body is judged as it is);
// otherwise a body shorter than a type's signature that could still become it gives kNone (ask again with more).
HttpBodyMagic ClassifyBodyMagic(const uint8_t* body, uint32_t len, bool complete);

// In a chunked body, the length of the first chunk-size line (hex digits, optional extensions, CRLF) that precedes
// the data. kOk with *skip set; kNeedMore when the line is not complete; kBadHeader when it is not a chunk size.
HttpStatus SkipChunkSize(const uint8_t* data, uint32_t len, uint32_t* skip);

}  // namespace vigil
