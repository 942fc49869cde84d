// The malloc policy (common/malloc_policy.h) from JS: applied when the addon loads; test-only exports report it and
// measure what a thread's freed memory leaves behind in the arenas.
#include <napi.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/malloc_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vigil {
namespace {

// `_mallocPolicy()`: what ApplyMallocPolicy() did when the addon loaded.
Napi::Value JsMallocPolicy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const MallocPolicy p = CurrentMallocPolicy();
  Napi::Object o = Napi::Object::New(env);
  o.Set("applied", p.applied);
  o.Set("skipped", p.skipped == nullptr ? env.Null() : Napi::String::New(env, p.skipped));
  o.Set("mmapThresholdBytes", Napi::Number::New(env, static_cast<double>(p.mmap_threshold_bytes)));
  o.Set("trimThresholdBytes", Napi::Number::New(env, static_cast<double>(p.trim_threshold_bytes)));
  return o;
}

// `_mallocChurn(bytes)`: on a new thread, mallocs and frees a block of twice `bytes` and then one of `bytes`, as a
// capture session's thread does with its large buffers; returns how many bytes the arenas (non-mmapped malloc memory,
// all arenas) grew by across it, or null without glibc. With glibc's dynamic thresholds, freeing the first block lets
// the second come from the thread's arena and stay there after it is freed.
Napi::Value JsMallocChurn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "_mallocChurn(bytes: number)");
  const double requested = info[0].As<Napi::Number>().DoubleValue();
  if (!(requested >= 1 && requested <= (64 << 20))) throw Napi::RangeError::New(env, "bytes: 1 to 64 MiB");
#if defined(__GLIBC__) && defined(__GLIBC_MINOR__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const size_t bytes = static_cast<size_t>(requested);
  const size_t before = mallinfo2().arena;
  std::thread t([bytes] {
    for (size_t size : {2 * bytes, bytes}) {
      void* p = std::malloc(size);
      if (p == nullptr) return;
      std::memset(p, 1, size);  // touch every page, as a real buffer would
      std::free(p);
    }
  });
  t.join();
  const size_t after = mallinfo2().arena;
  return Napi::Number::New(env, after > before ? static_cast<double>(after - before) : 0.0);
#else
  return env.Null();
#endif
}

// `_mallocTrim()`: TrimMallocArenas(), as a capture session calls it at each stats tick; whether it trimmed.
Napi::Value JsMallocTrim(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), TrimMallocArenas()); }

}  // namespace

// Applies the malloc policy and registers `_mallocPolicy`, `_mallocChurn` and `_mallocTrim`. Called once from addon.cpp
// Init.
void InitMallocWrap(Napi::Env env, Napi::Object exports) {
  ApplyMallocPolicy();
  exports.Set("_mallocPolicy", Napi::Function::New(env, JsMallocPolicy, "_mallocPolicy"));
  exports.Set("_mallocChurn", Napi::Function::New(env, JsMallocChurn, "_mallocChurn"));
  exports.Set("_mallocTrim", Napi::Function::New(env, JsMallocTrim, "_mallocTrim"));
}

}  // namespace vigil
