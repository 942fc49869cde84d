// Test-only export `_parseQuic(datagrams, fromServer?, odcid?)`: feeds UDP payloads, in order, to one
// QuicInitialReader on the JS thread and returns what it reassembled (plus LooksLikeQuicInitial per datagram), so
// QUIC unit tests can drive RFC vectors and captured datagrams from TypeScript.
#include <napi.h>

#include <cstdint>
#include <cstring>

#include "app/quic.h"

namespace vigil {
namespace {

// A Uint8Array copy of data[0, len), or null when data is null.
Napi::Value CopyOrNull(Napi::Env env, const uint8_t* data, uint32_t len) {
  if (data == nullptr) return env.Null();
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, len);
  if (len > 0) std::memcpy(buffer.Data(), data, len);
  return Napi::Uint8Array::New(env, len, buffer, 0);
}

bool IsBytes(const Napi::Value& v) {
  return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array;
}

Napi::Value JsParseQuic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "_parseQuic(datagrams: Uint8Array[], fromServer?: boolean, odcid?: Uint8Array)";
  if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, usage);
  Napi::Array datagrams = info[0].As<Napi::Array>();
  bool from_server = false;
  if (info.Length() > 1 && !info[1].IsUndefined()) {
    if (!info[1].IsBoolean()) throw Napi::TypeError::New(env, usage);
    from_server = info[1].As<Napi::Boolean>().Value();
  }
  QuicInitialReader reader(from_server);
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!IsBytes(info[2]) || info[2].As<Napi::Uint8Array>().ElementLength() > 20) {
      throw Napi::TypeError::New(env, "odcid must be a Uint8Array of at most 20 bytes");
    }
    Napi::Uint8Array odcid = info[2].As<Napi::Uint8Array>();
    reader.SetOriginalDcid(odcid.Data(), static_cast<uint8_t>(odcid.ElementLength()));
  }

  Napi::Array statuses = Napi::Array::New(env, datagrams.Length());
  Napi::Array looks = Napi::Array::New(env, datagrams.Length());
  QuicStatus status = QuicStatus::kNotInitial;
  for (uint32_t i = 0; i < datagrams.Length(); ++i) {
    Napi::Value d = datagrams.Get(i);
    if (!IsBytes(d)) throw Napi::TypeError::New(env, usage);
    Napi::Uint8Array bytes = d.As<Napi::Uint8Array>();
    looks.Set(i, LooksLikeQuicInitial(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength())));
    status = reader.Feed(bytes.Data(), static_cast<uint32_t>(bytes.ElementLength()));
    statuses.Set(i, Napi::String::New(env, QuicStatusName(status)));
  }

  Napi::Object o = Napi::Object::New(env);
  o.Set("status", Napi::String::New(env, QuicStatusName(status)));
  o.Set("statuses", statuses);
  o.Set("looksLikeInitial", looks);
  o.Set("version", reader.version());
  const uint8_t* msg = reader.handshake();
  o.Set("handshakeType", msg != nullptr ? Napi::Number::New(env, msg[0]).As<Napi::Value>() : env.Null());
  o.Set("handshakeLength", reader.handshake_len());
  o.Set("handshake", CopyOrNull(env, msg, reader.handshake_len()));
  o.Set("odcid", reader.original_dcid_len() > 0 ? CopyOrNull(env, reader.original_dcid(), reader.original_dcid_len())
                                                : env.Null());
  return o;
}

}  // namespace

// Registers `_parseQuic` on the addon's exports. Called once from addon.cpp Init on the JS thread.
void InitAppQuicWrap(Napi::Env env, Napi::Object exports) {
  exports.Set("_parseQuic", Napi::Function::New(env, JsParseQuic, "_parseQuic"));
}

}  // namespace vigil
