// fuzz_http: libFuzzer target over the HTTP/1.x request and response parsers. The input is one payload (a request or
// response head, possibly cut), ending exactly at the end of libFuzzer's allocation so that AddressSanitizer flags
// any read past len. Besides memory safety, checks the parsers' invariants and aborts when one breaks.
#include <string.h>  // memmem (GNU)

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/http.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

template <size_t N>
void CheckText(const vigil::BoundedText<N>& t) {
  Check(t.len <= N);
  Check(!t.truncated || t.len == N);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > UINT32_MAX / 2) return -1;
  const uint32_t len = static_cast<uint32_t>(size);
  vigil::HttpRequest r;
  const vigil::HttpStatus s = vigil::ParseHttpRequest(data, len, &r);
  Check(s < vigil::HttpStatus::kCount);
  CheckText(r.method);
  CheckText(r.host);
  CheckText(r.uri);
  CheckText(r.user_agent);
  Check(r.version_minor <= 9);
  if (s == vigil::HttpStatus::kOk) Check(vigil::LooksLikeHttpRequest(data, len) && !r.method.empty() && !r.uri.empty());
  if (s == vigil::HttpStatus::kNotHttp) Check(!vigil::LooksLikeHttpRequest(data, len));
  // Every byte of the text fields comes from the input.
  if (!r.uri.empty()) Check(memmem(data, size, r.uri.data, r.uri.len) != nullptr);
  if (!r.host.empty()) Check(memmem(data, size, r.host.data, r.host.len) != nullptr);

  uint16_t code = 0;
  const vigil::HttpStatus rs = vigil::ParseHttpResponseStatus(data, len, &code);
  Check(rs < vigil::HttpStatus::kCount);
  if (rs == vigil::HttpStatus::kOk) Check(vigil::LooksLikeHttpResponse(data, len) && code <= 999);
  if (rs != vigil::HttpStatus::kOk) Check(code == 0);
  return 0;
}
