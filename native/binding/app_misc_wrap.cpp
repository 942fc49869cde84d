// Test-only exports for the HTTP, SSH, ARP and Community ID code in native/app: each runs one parser (or the ARP
// table, or the hash) on the JS thread and returns plain objects, so unit tests can drive them from TypeScript.
#include <arpa/inet.h>
#include <napi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/arp.h"
#include "app/community_id.h"
#include "app/http.h"
#include "app/ssh.h"

namespace vigil {
namespace {

// The bytes of a Uint8Array argument, or a TypeError naming the call.
Napi::Uint8Array BytesArg(const Napi::CallbackInfo& info, size_t index, const char* usage) {
  if (info.Length() <= index || !info[index].IsTypedArray() ||
      info[index].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(info.Env(), usage);
  }
  return info[index].As<Napi::Uint8Array>();
}

template <size_t N>
Napi::String Text(Napi::Env env, const BoundedText<N>& t) {
  return Napi::String::New(env, std::string(t.data, t.len));
}

std::string MacText(const uint8_t mac[6]) {
  char s[18];
  std::snprintf(s, sizeof s, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  return s;
}

std::string Ipv4Text(const uint8_t ip[4]) {
  char s[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, ip, s, sizeof s);
  return s;
}

Napi::Value JsParseHttpRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, 0, "_parseHttpRequest(bytes: Uint8Array)");
  HttpRequest r;
  const HttpStatus s = ParseHttpRequest(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &r);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", HttpStatusName(s));
  o.Set("looksLikeRequest", LooksLikeHttpRequest(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
  o.Set("method", Text(env, r.method));
  o.Set("host", Text(env, r.host));
  o.Set("hostTruncated", r.host.truncated);
  o.Set("uri", Text(env, r.uri));
  o.Set("uriTruncated", r.uri.truncated);
  o.Set("userAgent", Text(env, r.user_agent));
  o.Set("userAgentTruncated", r.user_agent.truncated);
  o.Set("versionMinor", r.version_minor);
  return o;
}

Napi::Value JsParseHttpResponse(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, 0, "_parseHttpResponse(bytes: Uint8Array)");
  uint16_t code = 0;
  const HttpStatus s = ParseHttpResponseStatus(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &code);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", HttpStatusName(s));
  o.Set("looksLikeResponse", LooksLikeHttpResponse(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
  o.Set("code", code);
  return o;
}

Napi::Value JsParseHttpResponseHead(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, 0, "_parseHttpResponseHead(bytes: Uint8Array)");
  HttpResponse r;
  const HttpStatus s = ParseHttpResponseHead(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &r);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", HttpStatusName(s));
  o.Set("code", r.status);
  o.Set("contentType", Text(env, r.content_type));
  o.Set("contentTypeTruncated", r.content_type.truncated);
  o.Set("chunked", r.chunked);
  o.Set("headLen", r.head_len);
  return o;
}

// _httpBodyMagic(bytes, complete): ClassifyBodyMagic's label; with `chunked`, the chunk-size line is skipped first
// (SkipChunkSize's status is returned as `chunk`).
Napi::Value JsHttpBodyMagic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "_httpBodyMagic(bytes: Uint8Array, complete: boolean, chunked?: boolean)";
  Napi::Uint8Array bytes = BytesArg(info, 0, usage);
  if (info.Length() < 2 || !info[1].IsBoolean()) throw Napi::TypeError::New(env, usage);
  const bool chunked = info.Length() > 2 && info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  const uint8_t* body = bytes.Data();
  uint32_t len = static_cast<uint32_t>(bytes.ElementLength());
  Napi::Object o = Napi::Object::New(env);
  if (chunked) {
    uint32_t skip = 0;
    const HttpStatus cs = SkipChunkSize(body, len, &skip);
    o.Set("chunk", HttpStatusName(cs));
    body += skip;
    len -= skip;
  }
  o.Set("magic", HttpBodyMagicName(ClassifyBodyMagic(body, len, info[1].As<Napi::Boolean>().Value())));
  return o;
}

Napi::Value JsParseSsh(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, 0, "_parseSsh(bytes: Uint8Array)");
  NameText banner;
  const SshStatus s = ParseSshBanner(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &banner);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", SshStatusName(s));
  o.Set("looksLikeSsh", LooksLikeSsh(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
  o.Set("banner", Text(env, banner));
  o.Set("truncated", banner.truncated);
  return o;
}

Napi::Value JsParseArp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array bytes = BytesArg(info, 0, "_parseArp(bytes: Uint8Array)");
  ArpMessage m;
  const ArpStatus s = ParseArp(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &m);
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", ArpStatusName(s));
  o.Set("op", m.op);
  o.Set("senderMac", MacText(m.sender_mac));
  o.Set("senderIp", Ipv4Text(m.sender_ip));
  o.Set("targetMac", MacText(m.target_mac));
  o.Set("targetIp", Ipv4Text(m.target_ip));
  return o;
}

Napi::Object BindingObject(Napi::Env env, const ArpBinding& b) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("senderMac", MacText(b.sender_mac));
  o.Set("senderIp", Ipv4Text(b.sender_ip));
  o.Set("targetIp", Ipv4Text(b.target_ip));
  o.Set("requests", static_cast<double>(b.requests));
  o.Set("replies", static_cast<double>(b.replies));
  o.Set("targetRuns", static_cast<double>(b.target_runs));
  o.Set("newTargets", static_cast<double>(b.new_targets));
  Napi::Array times = Napi::Array::New(env, b.new_target_times);
  for (uint32_t k = 0; k < b.new_target_times; ++k) times.Set(k, Napi::BigInt::New(env, b.new_target_times_ns[k]));
  o.Set("newTargetTimesNs", times);
  o.Set("gratuitous", static_cast<double>(b.gratuitous));
  o.Set("firstNs", Napi::BigInt::New(env, b.first_ns));
  o.Set("lastNs", Napi::BigInt::New(env, b.last_ns));
  return o;
}

// _arpTableTest(capacity, steps): steps are {arp: Uint8Array, tsNs: bigint} (parsed, and added when it parses) or
// {drain: number} (at most that many bindings). Returns the ParseArp statuses, each drain's bindings, the evictions
// and the final size.
Napi::Value JsArpTableTest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "_arpTableTest(capacity: number, steps: ({arp: Uint8Array, tsNs: bigint} | {drain: number})[])";
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsArray()) throw Napi::TypeError::New(env, usage);
  const uint32_t capacity = info[0].As<Napi::Number>().Uint32Value();
  Napi::Array steps = info[1].As<Napi::Array>();
  ArpTable table(capacity);
  Napi::Array statuses = Napi::Array::New(env);
  Napi::Array drains = Napi::Array::New(env);
  std::vector<ArpBinding> out;
  for (uint32_t i = 0; i < steps.Length(); ++i) {
    Napi::Value v = steps.Get(i);
    if (!v.IsObject()) throw Napi::TypeError::New(env, usage);
    Napi::Object step = v.As<Napi::Object>();
    if (step.Has("drain")) {
      if (!step.Get("drain").IsNumber()) throw Napi::TypeError::New(env, usage);
      out.clear();
      table.Drain(&out, step.Get("drain").As<Napi::Number>().Uint32Value());
      Napi::Array list = Napi::Array::New(env, out.size());
      for (uint32_t j = 0; j < out.size(); ++j) list.Set(j, BindingObject(env, out[j]));
      drains.Set(drains.Length(), list);
      continue;
    }
    Napi::Value arp = step.Get("arp");
    Napi::Value ts = step.Get("tsNs");
    if (!arp.IsTypedArray() || arp.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array || !ts.IsBigInt()) {
      throw Napi::TypeError::New(env, usage);
    }
    Napi::Uint8Array bytes = arp.As<Napi::Uint8Array>();
    bool lossless = false;
    const int64_t ts_ns = ts.As<Napi::BigInt>().Int64Value(&lossless);
    ArpMessage m;
    const ArpStatus s = ParseArp(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()), &m);
    statuses.Set(statuses.Length(), ArpStatusName(s));
    if (s == ArpStatus::kOk) table.Add(m, ts_ns);
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("statuses", statuses);
  o.Set("drains", drains);
  o.Set("evictions", static_cast<double>(table.evictions()));
  o.Set("size", static_cast<double>(table.size()));
  return o;
}

// Parses a text address into the 16-byte form CommunityId takes (IPv4 mapped); returns 4 or 6, or 0 when invalid.
int ParseAddress(const std::string& text, uint8_t out[16]) {
  std::memset(out, 0, 16);
  if (inet_pton(AF_INET6, text.c_str(), out) == 1) return 6;
  if (inet_pton(AF_INET, text.c_str(), out + 12) == 1) {
    out[10] = out[11] = 0xff;
    return 4;
  }
  return 0;
}

// _communityId({seed, src, dst, protocol, srcPort, dstPort}): addresses as text, both of one family; for ICMP the
// ports are the type and code.
Napi::Value JsCommunityId(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage =
      "_communityId({seed?: number, src: string, dst: string, protocol: number, srcPort?: number, dstPort?: number})";
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, usage);
  Napi::Object a = info[0].As<Napi::Object>();
  if (!a.Get("src").IsString() || !a.Get("dst").IsString() || !a.Get("protocol").IsNumber()) {
    throw Napi::TypeError::New(env, usage);
  }
  auto number = [&](const char* key) -> uint32_t {
    Napi::Value v = a.Get(key);
    if (v.IsUndefined() || v.IsNull()) return 0;
    if (!v.IsNumber()) throw Napi::TypeError::New(env, usage);
    return v.As<Napi::Number>().Uint32Value();
  };
  uint8_t src[16];
  uint8_t dst[16];
  const int fs = ParseAddress(a.Get("src").As<Napi::String>().Utf8Value(), src);
  const int fd = ParseAddress(a.Get("dst").As<Napi::String>().Utf8Value(), dst);
  if (fs == 0 || fd == 0 || fs != fd) throw Napi::TypeError::New(env, "src and dst must be addresses of one family");
  char id[64];
  CommunityId(static_cast<uint16_t>(number("seed")), fs == 4, src, dst, static_cast<uint8_t>(number("protocol")),
              static_cast<uint16_t>(number("srcPort")), static_cast<uint16_t>(number("dstPort")), id);
  return Napi::String::New(env, id);
}

}  // namespace

// Registers the HTTP, SSH, ARP and Community ID test exports. Called once from addon.cpp Init on the JS thread.
void InitAppMiscWrap(Napi::Env env, Napi::Object exports) {
  exports.Set("_parseHttpRequest", Napi::Function::New(env, JsParseHttpRequest, "_parseHttpRequest"));
  exports.Set("_parseHttpResponse", Napi::Function::New(env, JsParseHttpResponse, "_parseHttpResponse"));
  exports.Set("_parseHttpResponseHead", Napi::Function::New(env, JsParseHttpResponseHead, "_parseHttpResponseHead"));
  exports.Set("_httpBodyMagic", Napi::Function::New(env, JsHttpBodyMagic, "_httpBodyMagic"));
  exports.Set("_parseSsh", Napi::Function::New(env, JsParseSsh, "_parseSsh"));
  exports.Set("_parseArp", Napi::Function::New(env, JsParseArp, "_parseArp"));
  exports.Set("_arpTableTest", Napi::Function::New(env, JsArpTableTest, "_arpTableTest"));
  exports.Set("_communityId", Napi::Function::New(env, JsCommunityId, "_communityId"));
}

}  // namespace vigil
