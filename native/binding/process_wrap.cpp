// Test-only exports of per-process attribution (native/process, Linux only): `_parseCgroup(text)` (the unit and
// container a /proc/<pid>/cgroup text names) and `_lookupProcess(protocol, initiatorIp, initiatorPort, responderIp,
// responderPort)` (one lookup through a resolver of its own, blocking the JS thread until it settles), so the
// resolver's parts can be tested without a live capture or root.
#include <arpa/inet.h>
#include <napi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#ifdef __linux__
#include "process/proc_table.h"
#include "process/process_resolver.h"
#endif

namespace vigil {
namespace {

#ifdef __linux__
Napi::Value OrNull(Napi::Env env, const std::string& s) { return s.empty() ? env.Null() : Napi::String::New(env, s); }

Napi::Value JsParseCgroup(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "_parseCgroup(text: string)");
  std::string unit;
  std::string container;
  ParseCgroup(info[0].As<Napi::String>().Utf8Value(), &unit, &container);
  Napi::Object o = Napi::Object::New(env);
  o.Set("unit", OrNull(env, unit));
  o.Set("container", OrNull(env, container));
  return o;
}

// Text address -> 16 bytes (IPv4 mapped); false when it is not an address.
bool ParseAddress(const std::string& text, uint8_t* out, bool* ipv6) {
  std::memset(out, 0, 16);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    out[10] = 0xff;
    out[11] = 0xff;
    std::memcpy(out + 12, &v4, 4);
    *ipv6 = false;
    return true;
  }
  *ipv6 = true;
  return inet_pton(AF_INET6, text.c_str(), out) == 1;
}

Napi::Value JsLookupProcess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 5 || !info[0].IsNumber() || !info[1].IsString() || !info[2].IsNumber() || !info[3].IsString() ||
      !info[4].IsNumber()) {
    throw Napi::TypeError::New(env,
                               "_lookupProcess(protocol: number, initiatorIp: string, initiatorPort: number, "
                               "responderIp: string, responderPort: number)");
  }
  uint8_t a[16];
  uint8_t b[16];
  bool a6 = false;
  bool b6 = false;
  if (!ParseAddress(info[1].As<Napi::String>().Utf8Value(), a, &a6) ||
      !ParseAddress(info[3].As<Napi::String>().Utf8Value(), b, &b6)) {
    throw Napi::TypeError::New(env, "_lookupProcess: initiatorIp and responderIp must be IP addresses");
  }
  ProcessResolverConfig config;
  config.cpu_budget_ns = 1'000'000'000;  // a test's one lookup is never held back
  ProcessResolver resolver(config);
  if (!resolver.Start()) throw Napi::Error::New(env, "_lookupProcess: netlink sock_diag is unavailable");
  auto slot = resolver.Submit(static_cast<uint8_t>(info[0].As<Napi::Number>().Uint32Value()), a6 || b6, a,
                              static_cast<uint16_t>(info[2].As<Napi::Number>().Uint32Value()), b,
                              static_cast<uint16_t>(info[4].As<Napi::Number>().Uint32Value()));
  for (int i = 0; i < 500 && slot && slot->state.load() == ProcessState::kPending; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const ProcessResolverStats stats = resolver.Stats();
  resolver.Stop();
  Napi::Object o = Napi::Object::New(env);
  Napi::Object counters = Napi::Object::New(env);
  counters.Set("foreign", Napi::Number::New(env, static_cast<double>(stats.foreign)));
  counters.Set("noSocket", Napi::Number::New(env, static_cast<double>(stats.no_socket)));
  counters.Set("noProcess", Napi::Number::New(env, static_cast<double>(stats.no_process)));
  o.Set("stats", counters);
  const ProcessInfo* p = ResolvedProcess(slot.get());
  if (p == nullptr) {
    o.Set("process", env.Null());
    return o;
  }
  Napi::Object proc = Napi::Object::New(env);
  proc.Set("pid", Napi::Number::New(env, p->pid));
  proc.Set("name", OrNull(env, p->name));
  proc.Set("exe", OrNull(env, p->exe));
  proc.Set("user", OrNull(env, p->user));
  proc.Set("uid", Napi::Number::New(env, p->uid));
  proc.Set("unit", OrNull(env, p->unit));
  proc.Set("container", OrNull(env, p->container));
  o.Set("process", proc);
  return o;
}
#endif

}  // namespace

void InitProcessWrap(Napi::Env env, Napi::Object exports) {
#ifdef __linux__
  exports.Set("_parseCgroup", Napi::Function::New<JsParseCgroup>(env, "_parseCgroup"));
  exports.Set("_lookupProcess", Napi::Function::New<JsLookupProcess>(env, "_lookupProcess"));
#else
  (void)env;
  (void)exports;
#endif
}

}  // namespace vigil
