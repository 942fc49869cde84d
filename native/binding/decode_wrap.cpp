// Test-only export `_decodePacket(linkType, frame, wirelen?)`: runs DecodePacket on one frame on the JS thread and
// returns the PacketView as a plain object, so decoder unit tests can drive hand-built packets from TypeScript.
#include <arpa/inet.h>
#include <napi.h>

#include <cstdint>

#include "decode/packet_view.h"

namespace vigil {
namespace {

// Text form of a PacketView address: dotted quad for IPv4 (stored IPv4-mapped), RFC 5952 for IPv6, "" when absent.
Napi::String AddressString(Napi::Env env, const uint8_t (&addr)[16], uint8_t ip_version) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (ip_version == 4) {
    inet_ntop(AF_INET, addr + 12, text, sizeof text);
  } else if (ip_version == 6) {
    inet_ntop(AF_INET6, addr, text, sizeof text);
  }
  return Napi::String::New(env, text);
}

Napi::Value JsDecodePacket(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(env, "_decodePacket(linkType: number, frame: Uint8Array, wirelen?: number)");
  }
  const int link_type = info[0].As<Napi::Number>().Int32Value();
  Napi::Uint8Array frame = info[1].As<Napi::Uint8Array>();
  const uint32_t caplen = static_cast<uint32_t>(frame.ElementLength());
  uint32_t wirelen = caplen;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!info[2].IsNumber()) throw Napi::TypeError::New(env, "wirelen must be a number");
    wirelen = info[2].As<Napi::Number>().Uint32Value();
  }

  PacketView v;
  const DecodeStatus status = DecodePacket(link_type, frame.Data(), caplen, wirelen, v);

  Napi::Object o = Napi::Object::New(env);
  o.Set("status", Napi::String::New(env, DecodeStatusName(status)));
  Napi::Array vlan = Napi::Array::New(env);
  for (uint32_t i = 0; i < static_cast<uint32_t>(kMaxVlanTags) && i < v.vlan_depth; ++i) vlan.Set(i, v.vlan[i]);
  o.Set("vlan", vlan);
  o.Set("vlanDepth", v.vlan_depth);
  o.Set("ipVersion", v.ip_version);
  o.Set("src", AddressString(env, v.src, v.ip_version));
  o.Set("dst", AddressString(env, v.dst, v.ip_version));
  o.Set("protocol", v.protocol);
  o.Set("ttl", v.ttl);
  o.Set("ipBytes", v.ip_bytes);
  o.Set("l3HeaderBytes", v.l3_header_bytes);
  o.Set("ipv6OptionHeaders", v.ipv6_option_headers);
  o.Set("ipv6Anomalies", v.ipv6_anomalies);
  o.Set("ipv6CovertBytes", v.ipv6_covert_bytes);
  o.Set("isFragment", v.is_fragment);
  o.Set("isFirstFragment", v.is_first_fragment);
  o.Set("fragId", v.frag_id);
  o.Set("hasPorts", v.has_ports);
  o.Set("srcPort", v.src_port);
  o.Set("dstPort", v.dst_port);
  o.Set("tcpFlags", v.tcp_flags);
  o.Set("tcpWindow", v.tcp_window);
  o.Set("l4HeaderBytes", v.l4_header_bytes);
  o.Set("payloadBytes", v.payload_bytes);
  o.Set("caplen", v.caplen);
  o.Set("wirelen", v.wirelen);
  return o;
}

}  // namespace

// Registers `_decodePacket` on the addon's exports. Called once from addon.cpp Init on the JS thread.
void InitDecodeWrap(Napi::Env env, Napi::Object exports) {
  exports.Set("_decodePacket", Napi::Function::New(env, JsDecodePacket, "_decodePacket"));
}

}  // namespace vigil
