// Test-only exports for the DNS, DHCP and DNS-name-cache parsers: `_parseDns(bytes)`, `_parseDhcp(bytes)` and
// `_dnsCacheTest(capacity, ops)`. Each runs the real C++ on the JS thread and returns a plain object.
#include <arpa/inet.h>
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/app_layer.h"
#include "app/dhcp.h"
#include "app/dns.h"
#include "app/dns_cache.h"

namespace vigil {
namespace {

Napi::String Text(Napi::Env env, const NameText& t) { return Napi::String::New(env, t.data, t.len); }

// The address as the flow batch's DNS answers carry it (AddressText), so the tests of _parseDns check that text.
Napi::String AddressString(Napi::Env env, const uint8_t (&addr)[16]) {
  return Napi::String::New(env, AddressText(addr));
}

// Parses "a.b.c.d" (stored IPv4-mapped) or an IPv6 text address; false when it is neither.
bool ParseAddress(const std::string& s, uint8_t out[16]) {
  std::memset(out, 0, 16);
  if (inet_pton(AF_INET, s.c_str(), out + 12) == 1) {
    out[10] = out[11] = 0xff;
    return true;
  }
  return inet_pton(AF_INET6, s.c_str(), out) == 1;
}

Napi::Uint8Array BytesArg(const Napi::CallbackInfo& info, const char* usage) {
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(info.Env(), usage);
  }
  return info[0].As<Napi::Uint8Array>();
}

Napi::Value JsParseDns(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, "_parseDns(bytes: Uint8Array)");
  DnsMessage m;
  const DnsStatus status = ParseDns(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &m);

  Napi::Object o = Napi::Object::New(env);
  o.Set("status", Napi::String::New(env, DnsStatusName(status)));
  o.Set("id", m.id);
  o.Set("response", m.response);
  o.Set("opcode", m.opcode);
  o.Set("rcode", m.rcode);
  o.Set("qtype", m.qtype);
  o.Set("qclass", m.qclass);
  o.Set("query", Text(env, m.query));
  o.Set("queryTruncated", m.query.truncated);
  o.Set("answerCount", m.answer_count);
  Napi::Array answers = Napi::Array::New(env, m.kept);
  for (uint32_t i = 0; i < m.kept; ++i) {
    const DnsAnswer& a = m.answers[i];
    Napi::Object ao = Napi::Object::New(env);
    ao.Set("type", a.type);
    ao.Set("ttl", a.ttl);
    ao.Set("name", Text(env, a.name));
    ao.Set("address", a.type == 5 ? Napi::String::New(env, "") : AddressString(env, a.addr));
    ao.Set("cname", Text(env, a.cname));
    answers.Set(i, ao);
  }
  o.Set("answers", answers);
  o.Set("looksLikeDns", LooksLikeDns(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
  return o;
}

Napi::Value JsParseDhcp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, "_parseDhcp(bytes: Uint8Array)");
  DhcpMessage m;
  const DhcpStatus status = ParseDhcp(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &m);
  char mac[18];
  std::snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", m.client_mac[0], m.client_mac[1], m.client_mac[2],
                m.client_mac[3], m.client_mac[4], m.client_mac[5]);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", Napi::String::New(env, DhcpStatusName(status)));
  o.Set("op", m.op);
  o.Set("messageType", m.message_type);
  o.Set("clientMac", Napi::String::New(env, mac));
  o.Set("hostname", Text(env, m.hostname));
  o.Set("looksLikeDhcp", LooksLikeDhcp(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
  return o;
}

// `_dnsCacheTest(capacity, ops)`: runs ops in order on one DnsNameCache. An op is
// {op: 'insert', client, addr, name, ttl, ts} or {op: 'lookup', client, addr, ts} (addresses as text, ts in
// seconds). Returns {results: (string | null)[] (one per lookup), stats: {inserts, hits, misses, evictions}}.
Napi::Value JsDnsCacheTest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsArray()) {
    throw Napi::TypeError::New(env, "_dnsCacheTest(capacity: number, ops: DnsCacheOp[])");
  }
  DnsNameCache cache(info[0].As<Napi::Number>().Uint32Value());
  Napi::Array ops = info[1].As<Napi::Array>();
  Napi::Array results = Napi::Array::New(env);
  uint32_t n_results = 0;
  for (uint32_t i = 0; i < ops.Length(); ++i) {
    Napi::Value v = ops.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(env, "each op must be an object");
    Napi::Object op = v.As<Napi::Object>();
    const std::string kind = op.Get("op").ToString().Utf8Value();
    uint8_t client[16], addr[16];
    if (!ParseAddress(op.Get("client").ToString().Utf8Value(), client) ||
        !ParseAddress(op.Get("addr").ToString().Utf8Value(), addr)) {
      throw Napi::TypeError::New(env, "client and addr must be IP addresses");
    }
    const int64_t ts_ns = static_cast<int64_t>(std::llround(op.Get("ts").ToNumber().DoubleValue() * 1e9));
    if (kind == "insert") {
      NameText name;
      name.Assign(op.Get("name").ToString().Utf8Value());
      cache.Insert(client, addr, name, op.Get("ttl").ToNumber().Uint32Value(), ts_ns);
    } else if (kind == "lookup") {
      const NameText* got = cache.Lookup(client, addr, ts_ns);
      results.Set(n_results++, got ? Text(env, *got) : env.Null());
    } else {
      throw Napi::TypeError::New(env, "op must be 'insert' or 'lookup'");
    }
  }
  const DnsCacheStats& st = cache.stats();
  Napi::Object stats = Napi::Object::New(env);
  stats.Set("inserts", static_cast<double>(st.inserts));
  stats.Set("hits", static_cast<double>(st.hits));
  stats.Set("misses", static_cast<double>(st.misses));
  stats.Set("evictions", static_cast<double>(st.evictions));
  Napi::Object o = Napi::Object::New(env);
  o.Set("results", results);
  o.Set("stats", stats);
  o.Set("capacity", cache.capacity());
  return o;
}

}  // namespace

// Registers `_parseDns`, `_parseDhcp` and `_dnsCacheTest`. Called once from addon.cpp Init on the JS thread.
void InitAppDnsWrap(Napi::Env env, Napi::Object exports) {
  exports.Set("_parseDns", Napi::Function::New(env, JsParseDns, "_parseDns"));
  exports.Set("_parseDhcp", Napi::Function::New(env, JsParseDhcp, "_parseDhcp"));
  exports.Set("_dnsCacheTest", Napi::Function::New(env, JsDnsCacheTest, "_dnsCacheTest"));
}

}  // namespace vigil
