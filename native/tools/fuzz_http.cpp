// fuzz_http: libFuzzer target over the HTTP/1.x request and response parsers (status line, response head), the
// chunk-size skip and the body magic classifier. The input is one payload (a request or
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

  vigil::HttpResponse head;
  const vigil::HttpStatus hs = vigil::ParseHttpResponseHead(data, len, &head);
  Check(hs < vigil::HttpStatus::kCount);
  CheckText(head.content_type);
  if (!head.content_type.empty()) Check(memmem(data, size, head.content_type.data, head.content_type.len) != nullptr);
  if (hs == vigil::HttpStatus::kOk) Check(rs == vigil::HttpStatus::kOk && head.status == code && head.head_len <= len);
  if (hs != vigil::HttpStatus::kOk) Check(head.head_len == 0);
  uint32_t skip = 0;
  const vigil::HttpStatus cs = vigil::SkipChunkSize(data, len, &skip);
  Check(cs == vigil::HttpStatus::kOk ? skip > 0 && skip <= len : skip == 0);
  for (const bool complete : {false, true}) {
    const vigil::HttpBodyMagic m = vigil::ClassifyBodyMagic(data, len, complete);
    Check(m < vigil::HttpBodyMagic::kCount && (len > 0 || m == vigil::HttpBodyMagic::kNone));
    if (complete && len > 0) Check(m != vigil::HttpBodyMagic::kNone);
    Check(vigil::HttpBodyMagicName(m) != nullptr);
  }
  return 0;
}
