// Addon entry point: registers each binding module's exports. Init only; no logic here.
#include <dlfcn.h>
#include <napi.h>

#include "common/version.h"

namespace vigil {
// Each binding module defines its own Init; add the declaration and the call below.
void InitDecodeWrap(Napi::Env env, Napi::Object exports);      // decode_wrap.cpp: test-only _decodePacket
void InitCaptureBinding(Napi::Env env, Napi::Object exports);  // capture_wrap.cpp: Capture, listInterfaces, layout
void InitAppTlsWrap(Napi::Env env, Napi::Object exports);      // app_tls_wrap.cpp: test-only _parseTls
void InitAppQuicWrap(Napi::Env env, Napi::Object exports);     // app_quic_wrap.cpp: test-only _parseQuic
void InitAppMiscWrap(Napi::Env env, Napi::Object exports);     // app_misc_wrap.cpp: test-only HTTP/SSH/ARP/Community ID
void InitAppDnsWrap(Napi::Env env, Napi::Object exports);      // app_dns_wrap.cpp: _parseDns, _parseDhcp, _dnsCacheTest
void InitMallocWrap(Napi::Env env,
                    Napi::Object exports);  // malloc_wrap.cpp: policy, _mallocPolicy, _mallocChurn, _mallocTrim
void InitProcessWrap(Napi::Env env, Napi::Object exports);  // process_wrap.cpp: _parseCgroup, _lookupProcess
}  // namespace vigil

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // The addon does not link libcrypto: its OpenSSL 3 calls resolve to the copy Node itself exports (CMakeLists.txt).
  // A Node without one would fail at the first hash, far from here; say so at load instead.
  if (dlsym(RTLD_DEFAULT, "EVP_KDF_fetch") == nullptr) {
    throw Napi::Error::New(
        env, "this Node.js exports no OpenSSL 3 libcrypto (built without crypto?): the capture core needs it");
  }
  exports.Set("coreVersion", Napi::String::New(env, vigil::kCoreVersion));
  vigil::InitDecodeWrap(env, exports);
  vigil::InitCaptureBinding(env, exports);
  vigil::InitAppTlsWrap(env, exports);
  vigil::InitAppQuicWrap(env, exports);
  vigil::InitAppMiscWrap(env, exports);
  vigil::InitAppDnsWrap(env, exports);
  vigil::InitMallocWrap(env, exports);
  vigil::InitProcessWrap(env, exports);
  return exports;
}

NODE_API_MODULE(vigil, Init)
