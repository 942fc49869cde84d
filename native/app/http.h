// HTTP/1.x: the first request's method, Host, URI and User-Agent, the response status, and request counting.
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

}  // namespace vigil
