// Test-only exports `_parseTls(bytes, quic?)`: feeds one direction of a TCP stream (TLS records; one buffer, or an
// array of segments fed in order) to a TlsHandshakeAssembler, parses the first handshake message as a ClientHello or
// ServerHello by its type, and returns the fields and fingerprints as a plain object for tests in TypeScript (after a
// ServerHello that chose TLS <= 1.2, the assembler goes on to the Certificate as the app layer does); and
// `_tlsRecords(segments, peerAppData?)`: the same stream through a TlsRecordWalker (records, heartbeats).
#include <napi.h>

#include <cstdint>
#include <vector>

#include "app/tls.h"

namespace vigil {
namespace {

Napi::Array U16Array(Napi::Env env, const uint16_t* values, uint16_t count) {
  Napi::Array a = Napi::Array::New(env);
  for (uint32_t i = 0; i < count && i < static_cast<uint32_t>(kTlsMaxList); ++i) a.Set(i, values[i]);
  return a;
}

template <size_t N>
Napi::Value Text(Napi::Env env, const BoundedText<N>& t) {
  return Napi::String::New(env, t.data, t.len);
}

bool IsBytes(const Napi::Value& v) {
  return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array;
}

Napi::Object CertName(Napi::Env env, const TlsCertName& n) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("cn", Text(env, n.cn));
  o.Set("o", Text(env, n.o));
  o.Set("ou", Text(env, n.ou));
  return o;
}

// The Certificate after a ServerHello that ended in segments[at]: the rest of that segment, then the later ones.
Napi::Object CertificateAfter(Napi::Env env, TlsHandshakeAssembler* as, const std::vector<Napi::Uint8Array>& segments,
                              size_t at) {
  const uint32_t used = as->consumed();
  as->NextCertificate();
  TlsStatus st = TlsStatus::kNeedMore;
  for (size_t k = at; k < segments.size() && st == TlsStatus::kNeedMore; ++k) {
    const uint32_t skip = k == at ? used : 0;
    const uint32_t len = static_cast<uint32_t>(segments[k].ElementLength());
    if (len > skip) st = as->Feed(segments[k].Data() + skip, len - skip);
  }
  Napi::Object o = Napi::Object::New(env);
  if (st == TlsStatus::kOk) {
    o.Set("type", as->message()[0]);
    o.Set("messageBytes", as->message_len());
    TlsCertificate cert;
    st = ParseCertificate(as->message(), as->message_len(), &cert);
    if (st == TlsStatus::kOk) {
      o.Set("subject", CertName(env, cert.subject));
      o.Set("issuer", CertName(env, cert.issuer));
      o.Set("selfSigned", cert.self_signed);
      if (cert.has_validity) {
        o.Set("notBefore", static_cast<double>(cert.not_before));
        o.Set("notAfter", static_cast<double>(cert.not_after));
      }
    }
  }
  o.Set("status", TlsStatusName(st));
  return o;
}

Napi::Value JsParseTls(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "_parseTls(bytes: Uint8Array | Uint8Array[], quic?: boolean)";
  if (info.Length() < 1 || !(IsBytes(info[0]) || info[0].IsArray())) throw Napi::TypeError::New(env, usage);
  bool quic = false;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsBoolean()) throw Napi::TypeError::New(env, "quic must be a boolean");
    quic = info[1].As<Napi::Boolean>().Value();
  }
  // One buffer, or the segments of the stream in order (each fed separately).
  std::vector<Napi::Uint8Array> segments;
  if (info[0].IsArray()) {
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Value v = a.Get(i);
      if (!IsBytes(v)) throw Napi::TypeError::New(env, usage);
      segments.push_back(v.As<Napi::Uint8Array>());
    }
  } else {
    segments.push_back(info[0].As<Napi::Uint8Array>());
  }

  Napi::Object o = Napi::Object::New(env);
  TlsHandshakeAssembler assembler;
  TlsStatus status = TlsStatus::kNeedMore;
  size_t at = 0;  // the segment the message ended in
  for (; at < segments.size(); ++at) {
    status = assembler.Feed(segments[at].Data(), static_cast<uint32_t>(segments[at].ElementLength()));
    if (status != TlsStatus::kNeedMore) break;
  }
  const bool looks = !segments.empty() &&
                     LooksLikeTlsHandshake(segments[0].Data(), static_cast<uint32_t>(segments[0].ElementLength()));
  o.Set("looksLikeTls", looks);
  if (status != TlsStatus::kOk) {
    o.Set("status", TlsStatusName(status));
    return o;
  }
  const uint8_t* msg = assembler.message();
  const uint32_t len = assembler.message_len();
  o.Set("type", msg[0]);
  o.Set("messageBytes", len);
  if (msg[0] == 1) {
    TlsClientHello ch;
    status = ParseClientHello(msg, len, &ch);
    o.Set("legacyVersion", ch.legacy_version);
    o.Set("version", ch.max_version);
    o.Set("ciphers", U16Array(env, ch.ciphers, ch.cipher_count));
    o.Set("cipherCount", ch.cipher_count);
    o.Set("extensions", U16Array(env, ch.extensions, ch.extension_count));
    o.Set("extensionCount", ch.extension_count);
    o.Set("groups", U16Array(env, ch.groups, ch.group_count));
    Napi::Array formats = Napi::Array::New(env);
    for (uint32_t i = 0; i < ch.point_format_count && i < sizeof ch.point_formats; ++i)
      formats.Set(i, ch.point_formats[i]);
    o.Set("pointFormats", formats);
    o.Set("sigAlgs", U16Array(env, ch.sig_algs, ch.sig_alg_count));
    o.Set("sni", Text(env, ch.sni));
    o.Set("alpnFirst", Text(env, ch.alpn_first));
    o.Set("alpn", Text(env, ch.alpn));
    if (status == TlsStatus::kOk) {
      char ja3[33];
      char ja4[40];
      Ja3(ch, ja3);
      Ja4(ch, quic, ja4);
      o.Set("ja3", ja3);
      o.Set("ja4", ja4);
    }
  } else if (msg[0] == 2) {
    TlsServerHello sh;
    status = ParseServerHello(msg, len, &sh);
    o.Set("legacyVersion", sh.legacy_version);
    o.Set("version", sh.selected_version);
    o.Set("cipher", sh.cipher);
    o.Set("extensions", U16Array(env, sh.extensions, sh.extension_count));
    o.Set("extensionCount", sh.extension_count);
    o.Set("alpn", Text(env, sh.alpn));
    if (status == TlsStatus::kOk) {
      char ja4s[32];
      Ja4s(sh, quic, ja4s);
      o.Set("ja4s", ja4s);
    }
    if (status == TlsStatus::kOk && !quic && sh.selected_version >= 0x0300 && sh.selected_version <= 0x0303) {
      o.Set("certificate", CertificateAfter(env, &assembler, segments, at));
    }
  } else {
    status = TlsStatus::kBadHandshake;
  }
  o.Set("status", TlsStatusName(status));
  return o;
}

Napi::Value JsTlsRecords(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "_tlsRecords(segments: Uint8Array[], peerAppData?: boolean)";
  if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, usage);
  bool peer_app_data = false;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsBoolean()) throw Napi::TypeError::New(env, usage);
    peer_app_data = info[1].As<Napi::Boolean>().Value();
  }
  Napi::Array a = info[0].As<Napi::Array>();
  TlsRecordWalker walker;
  TlsStatus status = TlsStatus::kNeedMore;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value v = a.Get(i);
    if (!IsBytes(v)) throw Napi::TypeError::New(env, usage);
    Napi::Uint8Array seg = v.As<Napi::Uint8Array>();
    status = walker.Feed(seg.Data(), static_cast<uint32_t>(seg.ElementLength()), peer_app_data);
  }
  const TlsHeartbeats& hb = walker.heartbeats();
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", TlsStatusName(status));
  o.Set("done", walker.done());
  o.Set("records", walker.records());
  o.Set("appData", walker.app_data());
  o.Set("heartbeats", hb.records);
  o.Set("maxLen", hb.max_len);
  o.Set("early", hb.early);
  o.Set("overlong", hb.overlong);
  o.Set("short", hb.short_record);
  return o;
}

}  // namespace

// Registers `_parseTls` and `_tlsRecords` on the addon's exports. Called once from addon.cpp Init on the JS thread.
void InitAppTlsWrap(Napi::Env env, Napi::Object exports) {
  exports.Set("_parseTls", Napi::Function::New(env, JsParseTls, "_parseTls"));
  exports.Set("_tlsRecords", Napi::Function::New(env, JsTlsRecords, "_tlsRecords"));
}

}  // namespace vigil
