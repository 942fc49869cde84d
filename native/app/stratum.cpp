// Stratum recognition. Learned from nDPI `src/lib/protocols/mining.c` (JSON-RPC payloads naming `mining.subscribe`,
// `eth_submitLogin` or a Monero `login` with an `agent`) and jpalanco/ProtocolDetector `rules/stratum.yar` ("id",
// "method", "params" and a `mining.*` method); no code copied. A bounded prefix is searched, never past `len`.
#include "app/stratum.h"

#include <string.h>  // memmem (GNU, BSD)

#include <cstring>

namespace vigil {
namespace {

constexpr uint32_t kWindow = 512;  // bytes of the first message searched

// Mining methods; any one of them (with "method") makes the message Stratum.
constexpr const char* kMethods[] = {"\"mining.subscribe\"", "\"mining.authorize\"",  "\"mining.submit\"",
                                    "\"mining.notify\"",    "\"mining.set_target\"", "\"mining.set_difficulty\"",
                                    "\"eth_submitLogin\"",  "\"eth_getWork\"",       "\"eth_submitWork\""};

bool Contains(const uint8_t* data, uint32_t len, const char* needle) {
  return memmem(data, len, needle, std::strlen(needle)) != nullptr;
}

}  // namespace

bool LooksLikeStratum(const uint8_t* data, uint32_t len) {
  if (data == nullptr) return false;
  uint32_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
  if (i >= len || data[i] != '{') return false;
  const uint32_t n = len - i < kWindow ? len - i : kWindow;
  const uint8_t* p = data + i;
  if (!Contains(p, n, "\"method\"")) return false;
  for (const char* m : kMethods) {
    if (Contains(p, n, m)) return true;
  }
  // Monero pools (XMRig and its kind): {"method":"login","params":{"login":"<wallet>","pass":"x","agent":"XMRig/6.x"}}
  return Contains(p, n, "\"login\"") && Contains(p, n, "\"agent\"");
}

}  // namespace vigil
