// fuzz_dns: libFuzzer target over ParseDns and LooksLikeDns, feeding what a message yields to a small DnsNameCache
// as the dispatcher does. Input: one DNS message (no TCP length prefix), ending exactly at the end of libFuzzer's
// allocation so that AddressSanitizer flags any read past it. Besides memory safety, checks the parser's and the
// cache's invariants and aborts when one breaks.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/dns.h"
#include "app/dns_cache.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

// The text handed to JS must be well-formed UTF-8 (the parser escapes or replaces everything else).
bool IsUtf8(const vigil::NameText& t) {
  const auto* s = reinterpret_cast<const uint8_t*>(t.data);
  for (uint32_t i = 0; i < t.len;) {
    const uint8_t c = s[i];
    uint32_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > t.len) return false;
    for (uint32_t k = 1; k < n; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65535 + 2) return -1;  // larger than any DNS message (TCP length is 16 bits)
  const uint32_t len = static_cast<uint32_t>(size);
  vigil::LooksLikeDns(data, len);
  vigil::DnsMessage m;
  const vigil::DnsStatus s = vigil::ParseDns(data, len, &m);
  Check(s < vigil::DnsStatus::kCount);
  Check(m.kept <= vigil::kDnsMaxAnswers && m.kept <= m.answer_count);
  Check(m.query.len <= vigil::NameText::kCapacity && IsUtf8(m.query));
  if (s == vigil::DnsStatus::kOk) Check(!m.query.empty());

  vigil::DnsNameCache cache(16);
  uint8_t client[16] = {};
  client[10] = client[11] = 0xff;
  std::memcpy(client + 12, data, size < 4 ? size : 4);
  const int64_t ts_ns = static_cast<int64_t>(m.id) * 1000000000;
  for (int i = 0; i < m.kept; ++i) {
    const vigil::DnsAnswer& a = m.answers[i];
    Check(a.type == 1 || a.type == 28 || a.type == 5);
    Check(IsUtf8(a.name) && IsUtf8(a.cname));
    Check(a.type == 5 || a.cname.empty());
    if (a.type == 5) continue;
    cache.Insert(client, a.addr, a.name, a.ttl, ts_ns);
    const vigil::NameText* got = cache.Lookup(client, a.addr, ts_ns);
    Check(got != nullptr && got->view() == a.name.view());
    uint8_t other[16] = {};
    cache.Lookup(other, a.addr, ts_ns + static_cast<int64_t>(a.ttl) * 1000000000);
  }
  const vigil::DnsCacheStats& st = cache.stats();
  Check(st.hits + st.misses >= st.inserts && st.evictions <= st.inserts);
  return 0;
}
