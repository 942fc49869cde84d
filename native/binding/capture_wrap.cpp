// CaptureWrap: JS `Capture` class. Owns capture sessions; bridges the capture thread to JS through a bounded
// TypedThreadSafeFunction (live: NonBlockingCall, a full queue drops and counts the batch; offline: BlockingCall).
#include "binding/capture_wrap.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding/batch_encoder.h"
#include "binding/errors.h"
#include "capture/encode_stage.h"
#include "common/malloc_policy.h"

namespace vigil {

namespace {

constexpr size_t kQueueDepth = 16;  // batches in flight to JS before live capture starts dropping
// Recycled batch buffers kept per session: up to one per batch in flight, within a byte budget. Every buffer is reused
// rather than freed while it fits the budget: a fresh one has to be faulted in page by page as the batch is written
// (a new mapping when it is over malloc's mmap threshold, see common/malloc_policy.h).
constexpr size_t kSpareBuffers = kQueueDepth;
constexpr size_t kSpareBytes = size_t{8} << 20;
// A replay held to a lend limit has up to that many batches out, and they come back in bursts (a pipeline gives back
// what it scored in one go): the pool keeps one spare per batch the limit lets out, within a larger budget, so the
// burst's buffers serve the next ones rather than being unmapped and mapped in again. Only such replays (max speed,
// every consumer giving batches back) keep it; a live capture or a paced replay has a batch or two out. On the
// detection bench's pipeline, mapping in fresh batch buffers was the capture thread's largest kernel cost (a populate
// call per new buffer: ~70 per run over the bench input, ~100 MB, with 64 batches out).
constexpr size_t kLendSpareBytes = size_t{32} << 20;
static_assert(kLendSpareBytes >= kSpareBytes, "a replay held to a lend limit keeps at least the usual spares");
// With a lend limit (an offline session whose consumers give every batch back), how long the capture thread waits for
// a lent batch to come back before it hands over another anyway (a consumer that forgot one must not stall the replay
// for good), and how often it looks at its stop flag meanwhile.
constexpr auto kLendWaitMax = std::chrono::milliseconds(250);
constexpr auto kLendWaitSlice = std::chrono::milliseconds(10);

// JS gets each batch's own memory (an external ArrayBuffer over the BatchBuffer, no copy). The Float64 columns start
// at byte 16 of the batch, so JS's Float64Array views need the buffer 8-byte aligned: new[] gives at least this.
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= alignof(double), "batch buffers must be 8-byte aligned for JS");

// Process-wide counts for tests (`_batchBuffers()`): batches lent, lent buffers taken back when the callback returned
// (detach mode) and lent buffers the finalizer gave back.
std::atomic<uint64_t> g_lent{0};
std::atomic<uint64_t> g_reclaimed{0};
std::atomic<uint64_t> g_finalized{0};
std::atomic<uint64_t> g_released{0};
std::atomic<uint64_t> g_lend_waits{0};     // hand-overs that waited for a lent batch to come back
std::atomic<uint64_t> g_lend_timeouts{0};  // ... and went ahead after kLendWaitMax
std::atomic<uint64_t> g_fresh{0};          // batches for which no spare buffer fitted (the encoder allocated one)

// The spare batch buffers of one session, shared by the session and every batch buffer lent to JS (which may come
// back after the session is gone: V8 lets go of a buffer JS held when it collects it, at process or worker teardown
// at the latest). Any thread.
class SparePool {
 public:
  SparePool() = default;
  SparePool(const SparePool&) = delete;
  SparePool& operator=(const SparePool&) = delete;
  // The spares outlive the session: the next session in this process starts with them (Adopt).
  ~SparePool() {
    Stash& stash = TheStash();
    std::lock_guard<std::mutex> lock(stash.mutex);
    for (BatchBuffer& b : spare_) stash.buffers.push_back(std::move(b));
    Trim(&stash.buffers, max_buffers_, max_bytes_);
  }
  // Before the session starts, after SetBudget: takes the spares a finished session left, within this pool's budget.
  // A session that starts with none maps in and faults every batch buffer afresh: up to the lend limit's worth (~100 MB
  // of the detection bench's input, a populate call per batch) before the first one comes back.
  void Adopt() {
    Stash& stash = TheStash();
    std::lock_guard<std::mutex> lock_stash(stash.mutex);
    std::lock_guard<std::mutex> lock(mutex_);
    for (BatchBuffer& b : stash.buffers) spare_.push_back(std::move(b));
    stash.buffers.clear();
    spare_bytes_ = Trim(&spare_, max_buffers_, max_bytes_);
  }

  // Batch buffers go round trip (capture thread -> JS thread -> back) so steady state allocates nothing.
  // The smallest spare that holds `bytes`, or an empty buffer (the encoder allocates) when none does: a spare too
  // small for this batch stays for a later, smaller one.
  BatchBuffer Take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t best = spare_.size();
    for (size_t i = 0; i < spare_.size(); ++i) {
      if (spare_[i].capacity >= bytes && (best == spare_.size() || spare_[i].capacity < spare_[best].capacity)) {
        best = i;
      }
    }
    if (best == spare_.size()) return BatchBuffer();
    BatchBuffer b = std::move(spare_[best]);
    spare_[best] = std::move(spare_.back());
    spare_.pop_back();
    spare_bytes_ -= b.capacity;
    return b;
  }
  // Lent batches (lendBatches) handed to JS and not back yet: counted when the capture thread hands one over, and
  // when it comes back (given back, collected, or never lent after all).
  void Handed() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++lent_out_;
  }
  void Back() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (lent_out_ > 0) --lent_out_;
    }
    back_.notify_all();
  }
  // Capture thread: waits while `limit` lent batches are out, at most kLendWaitMax, or until `stopping()`.
  void WaitForRoom(size_t limit, const std::function<bool()>& stopping) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (lent_out_ < limit) return;
    g_lend_waits.fetch_add(1, std::memory_order_relaxed);
    const auto deadline = std::chrono::steady_clock::now() + kLendWaitMax;
    while (lent_out_ >= limit && !stopping()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        g_lend_timeouts.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      back_.wait_for(lock, kLendWaitSlice);
    }
  }

  // Before the session starts: keep up to `buffers` spares within `bytes` (kSpareBuffers and kSpareBytes otherwise).
  void SetBudget(size_t buffers, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    max_buffers_ = buffers;
    max_bytes_ = bytes;
  }

  // Keeps `b` for reuse; over the budget, the smallest spares are freed first (a large one fits every batch).
  void Recycle(BatchBuffer&& b) {
    if (b.data == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    spare_bytes_ += b.capacity;
    spare_.push_back(std::move(b));
    spare_bytes_ = Trim(&spare_, max_buffers_, max_bytes_, spare_bytes_);
  }

 private:
  // Spares of finished sessions, within the budget of the last one to finish: while no session runs, at most 8 MiB
  // (32 MiB after a replay held to a lend limit) stays allocated for the next one. Never destroyed (a pool may go after
  // static destruction began: V8 lets go of lent buffers at teardown).
  struct Stash {
    std::mutex mutex;
    std::vector<BatchBuffer> buffers;
  };
  static Stash& TheStash() {
    static Stash* stash = new Stash();
    return *stash;
  }
  // Frees the smallest buffers of `v` (a large one fits every batch) until at most `max_buffers` of at most
  // `max_bytes` are left; `bytes` is their capacity now when known. Returns the capacity kept.
  static size_t Trim(std::vector<BatchBuffer>* v, size_t max_buffers, size_t max_bytes, size_t bytes = SIZE_MAX) {
    if (bytes == SIZE_MAX) {
      bytes = 0;
      for (const BatchBuffer& b : *v) bytes += b.capacity;
    }
    while (v->size() > max_buffers || bytes > max_bytes) {
      size_t smallest = 0;
      for (size_t i = 1; i < v->size(); ++i) {
        if ((*v)[i].capacity < (*v)[smallest].capacity) smallest = i;
      }
      bytes -= (*v)[smallest].capacity;
      (*v)[smallest] = std::move(v->back());
      v->pop_back();
    }
    return bytes;
  }

  std::mutex mutex_;
  std::condition_variable back_;        // a lent batch came back
  std::vector<BatchBuffer> spare_;      // guarded by mutex_
  size_t spare_bytes_ = 0;              // capacity of the spares, guarded by mutex_
  size_t lent_out_ = 0;                 // guarded by mutex_
  size_t max_buffers_ = kSpareBuffers;  // guarded by mutex_
  size_t max_bytes_ = kSpareBytes;      // guarded by mutex_
};

// A batch buffer lent to JS as an external ArrayBuffer: the finalizer's hint. Node runs the finalizer on the JS
// thread, on an event-loop turn after V8 let go of the memory (Node 20: napi_create_external_arraybuffer makes a
// node::Buffer, whose tracked backing store's deleter queues the call: src/node_api.cc, src/node_buffer.cc
// CallbackInfo), or from its environment cleanup hook at teardown. It hands the buffer back to the pool (which frees
// it when over budget). When the memory came back when the callback returned (CallJs), `batch` is empty and only the
// hint goes.
struct LentBatch {
  BatchBuffer batch;
  std::shared_ptr<SparePool> pool;

  static void Finalize(napi_env, void*, void* hint) {
    std::unique_ptr<LentBatch> lent(static_cast<LentBatch*>(hint));
    if (lent->batch.data == nullptr) return;
    const bool counted = Forget(lent.get());
    g_finalized.fetch_add(1, std::memory_order_relaxed);
    lent->pool->Recycle(std::move(lent->batch));
    if (counted) lent->pool->Back();
  }

  // Batches lent with lendBatches and not yet given back, by their memory: releaseBatch() finds a batch's hint from
  // its ArrayBuffer here. Process-wide (a batch may be given back after its session, and its Capture, are gone), so
  // guarded: every Node environment (worker) has its own JS thread.
  static void Remember(LentBatch* lent) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry()[lent->batch.data.get()] = lent;
  }
  // The hint lending `data`, removed from the registry (null when none: not lent this way, or given back already).
  static LentBatch* Take(const void* data) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().find(data);
    if (it == registry().end()) return nullptr;
    LentBatch* lent = it->second;
    registry().erase(it);
    return lent;
  }
  // Removes `lent` if it is still registered (its memory may already be lent again under another hint); returns
  // whether it was (a lendBatches batch, counted out by its pool).
  static bool Forget(LentBatch* lent) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().find(lent->batch.data.get());
    if (it == registry().end() || it->second != lent) return false;
    registry().erase(it);
    return true;
  }

 private:
  static std::unordered_map<const void*, LentBatch*>& registry() {
    static auto* map = new std::unordered_map<const void*, LentBatch*>();  // never destroyed: finalizers run at exit
    return *map;
  }
  static std::mutex registry_mutex;
};
std::mutex LentBatch::registry_mutex;

// Batches are lent when the callback detaches them (detachBatches) or when JS gives each back itself (lendBatches,
// releaseBatch()); otherwise they are copied into an ArrayBuffer of their size and their buffer goes straight back to
// the pool. A lent buffer JS keeps and never gives back lives until V8 collects it: a scavenge does not
// free it (it is promoted, and goes at the next mark-compact), and V8 no longer runs the scavenge it runs when young
// ArrayBuffers it allocated itself pile up. Lending even one batch in five without detaching (while the pool had two
// spares) turned a raw replay's 3 scavenges into a scavenge and a mark-compact and raised its peak RSS from 136-145 to
// 157-169 MB; lending every batch moved the page faults from the JS thread's copy onto the capture thread (which had
// to allocate a fresh buffer for each batch: the pool keeps kSpareBytes of what comes back, and it comes back late)
// and made that replay 20-25% slower.
struct Message {
  enum Kind { kFlows, kStats, kEnd, kArp } kind = kFlows;
  BatchBuffer batch;
  std::vector<ArpBinding> arp;
  CaptureStats stats;
  CaptureError error = CaptureError::kNone;
  std::string text;
};

double GetNumber(const Napi::Object& o, const char* key, double fallback) {
  const Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}
std::string GetString(const Napi::Object& o, const char* key) {
  const Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
}
bool GetBool(const Napi::Object& o, const char* key, bool fallback) {
  const Napi::Value v = o.Get(key);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : fallback;
}
int64_t SecondsToNs(double s) { return static_cast<int64_t>(s * 1e9); }

std::string MacText(const uint8_t* m) {
  char text[18];
  std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return text;
}
std::string Ipv4Text(const uint8_t* a) {
  char text[16];
  std::snprintf(text, sizeof text, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
  return text;
}

// One ARP binding as JS sees it (`{senderMac, senderIp, targetIp, requests, replies, targetRuns, gratuitous, first/last
// Sec/Nsec}`: times as whole seconds and nanoseconds like the flow batch's, JS formats them).
Napi::Object ArpToObject(Napi::Env env, const ArpBinding& b) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("senderMac", MacText(b.sender_mac));
  o.Set("senderIp", Ipv4Text(b.sender_ip));
  o.Set("targetIp", Ipv4Text(b.target_ip));
  o.Set("requests", Napi::Number::New(env, static_cast<double>(b.requests)));
  o.Set("replies", Napi::Number::New(env, static_cast<double>(b.replies)));
  o.Set("targetRuns", Napi::Number::New(env, static_cast<double>(b.target_runs)));
  o.Set("newTargets", Napi::Number::New(env, static_cast<double>(b.new_targets)));
  // Capture times (ms since the epoch) of the new targets since the previous drain, oldest first.
  Napi::Array times = Napi::Array::New(env, b.new_target_times);
  for (uint32_t k = 0; k < b.new_target_times; ++k) times.Set(k, static_cast<double>(b.new_target_times_ns[k]) / 1e6);
  o.Set("newTargetTimesMs", times);
  o.Set("gratuitous", Napi::Number::New(env, static_cast<double>(b.gratuitous)));
  o.Set("firstSec", Napi::Number::New(env, static_cast<double>(b.first_ns / 1000000000LL)));
  o.Set("firstNsec", Napi::Number::New(env, static_cast<double>(b.first_ns % 1000000000LL)));
  o.Set("lastSec", Napi::Number::New(env, static_cast<double>(b.last_ns / 1000000000LL)));
  o.Set("lastNsec", Napi::Number::New(env, static_cast<double>(b.last_ns % 1000000000LL)));
  return o;
}

}  // namespace

void CallJs(Napi::Env env, Napi::Function callback, CaptureSession* session, Message* message);
using CaptureTsfn = Napi::TypedThreadSafeFunction<CaptureSession, Message, CallJs>;

// One capture session: the thread, its output (batches -> TSFN) and lifecycle flags. Created on the JS thread in
// start(); deleted by the TSFN finalizer (JS thread) after the capture thread released it.
//
// A fast replay encodes on a thread of its own (EncodeStage): the capture thread hands finished flows and flush
// requests over, and everything else (snapshots, ARP, stats, the end) first waits for the stage to run what it holds,
// so JS sees every message in the order the capture thread produced it. Otherwise the capture thread encodes.
struct CaptureSession : public CaptureOutput, public EncodeStage::Consumer {
  explicit CaptureSession(size_t batch_flows) : encoder(batch_flows) {}

  // Before the capture thread starts: encode on a thread of its own.
  void UseEncodeStage() { stage = std::make_unique<EncodeStage>(this); }

  // --- CaptureOutput (capture thread) ---
  void OnFlow(const FlowEntry& flow, EndReason reason) override {
    // A snapshot: the flow lives on, so its record is encoded here, after the stage ran what it holds.
    if (stage) {
      stage->Drain();
      ++staged;
    }
    encoder.Add(flow, reason);
  }
  void OnFinished(FlowEntry& flow, EndReason reason) override {
    if (!stage) {
      encoder.Add(flow, reason);
      return;
    }
    stage->PushFinished(flow, reason);
    ++staged;
  }
  size_t pending() const override { return stage ? staged : encoder.size(); }
  void Discard() override {
    if (!stage) return DiscardNow();
    staged = 0;
    stage->PushDiscard();
  }
  bool Flush(bool blocking) override {
    if (!stage) return FlushNow(blocking);
    if (staged == 0) return true;
    staged = 0;
    stage->PushFlush(blocking);
    return stage->consumer_alive();
  }
  void TakeReturnedAppStates(std::vector<AppState*>* out) override {
    if (stage) stage->TakeReturned(out);
  }
  void Drain() override {
    if (stage) stage->Drain();
  }

  // --- EncodeStage::Consumer (the stage's thread) ---
  void EncodeFlow(const FlowEntry& flow, EndReason reason) override { encoder.Add(flow, reason); }
  bool FlushBatch(bool blocking) override { return FlushNow(blocking); }
  void DiscardBatch() override { DiscardNow(); }

  void DiscardNow() {
    BatchBuffer drop = pool->Take(encoder.EncodedBytes());
    encoder.TakeBuffer(&drop);
    pool->Recycle(std::move(drop));
  }
  bool FlushNow(bool blocking) {
    if (encoder.size() == 0) return true;
    // A replay lending to consumers that give every batch back runs at most lend_limit batches ahead of them: it waits
    // here (bounded) for one to come back, rather than piling batches up in JS.
    if (blocking && lend_limit > 0) pool->WaitForRoom(lend_limit, [this] { return thread->stop_requested(); });
    auto* m = new Message();
    m->kind = Message::kFlows;
    m->batch = pool->Take(encoder.EncodedBytes());
    if (m->batch.data == nullptr) g_fresh.fetch_add(1, std::memory_order_relaxed);
    encoder.TakeBuffer(&m->batch);
    if (lends()) pool->Handed();  // before the call: JS may give it back before BlockingCall returns
    const napi_status st = blocking ? tsfn.BlockingCall(m) : tsfn.NonBlockingCall(m);
    if (st == napi_ok) {
      batches_delivered++;
      return true;
    }
    if (lends()) pool->Back();
    pool->Recycle(std::move(m->batch));
    delete m;
    if (st == napi_queue_full) {
      batches_dropped++;
      return true;
    }
    return false;  // napi_closing: JS is going away
  }
  void OnArp(std::vector<ArpBinding>& bindings) override {
    if (stage) stage->Drain();
    auto* m = new Message();
    m->kind = Message::kArp;
    m->arp.swap(bindings);
    if (tsfn.BlockingCall(m) != napi_ok) delete m;
  }
  void OnStats(const CaptureStats& stats) override {
    if (stage) stage->Drain();
    // Once per stats tick: give the arenas' free pages back (freed batches, on both sides of the TSFN).
    TrimMallocArenas();
    auto* m = new Message();
    m->kind = Message::kStats;
    m->stats = stats;
    if (tsfn.NonBlockingCall(m) != napi_ok) delete m;
  }
  void OnEnd(const CaptureStats& stats, CaptureError error, const std::string& text) override {
    if (stage) stage->Stop();  // it ran everything: the end is the last message
    auto* m = new Message();
    m->kind = Message::kEnd;
    m->stats = stats;
    m->error = error;
    m->text = text;
    if (tsfn.BlockingCall(m) != napi_ok) delete m;
    tsfn.Release();
  }

  static void Cleanup(void* arg) {
    // Environment teardown (process/worker exit) while capturing: stop and join without JS.
    auto* s = static_cast<CaptureSession*>(arg);
    s->hook_registered = false;
    s->thread->RequestStop();
    s->tsfn.Abort();
    s->thread->Join();
  }

  static void Finalize(Napi::Env env, void*, CaptureSession* s) {
    s->thread->Join();
    if (s->owner != nullptr) s->owner->SessionEnded(s, s->thread->Latest());
    if (s->hook_registered) napi_remove_env_cleanup_hook(env, &CaptureSession::Cleanup, s);
    delete s;
  }

  CaptureTsfn tsfn;
  std::unique_ptr<CaptureThread> thread;
  BatchEncoder encoder;
  CaptureWrap* owner = nullptr;  // cleared if the JS object is collected first
  bool hook_registered = false;
  bool detach_batches = false;  // set before the capture thread starts, then read-only
  bool lend_batches = false;    // likewise: lend every batch, JS gives each back with releaseBatch()
  size_t lend_limit = 0;        // likewise: lent batches out at most (offline sessions), 0 = no limit
  bool lends() const { return lend_batches && !detach_batches; }
  const std::shared_ptr<SparePool> pool = std::make_shared<SparePool>();
  // Declared last: destroyed first, while what its thread uses still exists (it has ended by then: OnEnd).
  std::unique_ptr<EncodeStage> stage;  // a fast replay's encoder thread; nullptr: the capture thread encodes
  size_t staged = 0;                   // with a stage: flows handed over since the last flush (capture thread)
};

namespace {

// The batch of `m` as an ArrayBuffer of its size: with detachBatches or lendBatches its own memory, lent (`*lent` is
// then the finalizer's hint, which owns the buffer from here on), else a copy (the buffer goes back to the pool,
// `*lent` null).
Napi::ArrayBuffer BatchToJs(Napi::Env env, CaptureSession* session, Message* m, LentBatch** lent) {
  *lent = nullptr;
  if (session->detach_batches || session->lend_batches) {
    auto* hint = new LentBatch{std::move(m->batch), session->pool};
    napi_value value = nullptr;
    const napi_status st = napi_create_external_arraybuffer(env, hint->batch.data.get(), hint->batch.size,
                                                            &LentBatch::Finalize, hint, &value);
    if (st == napi_ok) {
      g_lent.fetch_add(1, std::memory_order_relaxed);
      if (session->lends()) LentBatch::Remember(hint);
      *lent = hint;
      return Napi::ArrayBuffer(env, value);
    }
    // External buffers refused (a runtime with V8's sandbox): copy instead.
    m->batch = std::move(hint->batch);
    delete hint;
    if (session->lends()) session->pool->Back();
  }
  Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(env, m->batch.size);
  PrefaultForWrite(ab.Data(), m->batch.size);
  std::memcpy(ab.Data(), m->batch.data.get(), m->batch.size);
  session->pool->Recycle(std::move(m->batch));
  return ab;
}

}  // namespace

void CallJs(Napi::Env env, Napi::Function callback, CaptureSession* session, Message* message) {
  std::unique_ptr<Message> m(message);
  if (env == nullptr || callback.IsEmpty()) {
    if (m->kind == Message::kFlows && session->lends()) session->pool->Back();  // never lent: JS is going away
    return;
  }
  try {
    switch (m->kind) {
      case Message::kFlows: {
        LentBatch* lent = nullptr;
        Napi::ArrayBuffer ab = BatchToJs(env, session, m.get(), &lent);
        callback.Call({Napi::String::New(env, "flows"), ab});
        // The consumer decoded the batch synchronously: take its memory back now rather than at the next GC. While
        // `ab` is attached it holds the memory, so the finalizer has not been queued and `lent` is alive. If JS
        // detached it itself (transferred it, where the runtime allows it), or the callback threw, JS may still reach
        // the memory: the finalizer recycles it once V8 lets go.
        if (session->detach_batches && !ab.IsDetached()) {
          ab.Detach();
          if (lent != nullptr) {
            g_reclaimed.fetch_add(1, std::memory_order_relaxed);
            session->pool->Recycle(std::move(lent->batch));
          }
        }
        break;
      }
      case Message::kStats:
        callback.Call({Napi::String::New(env, "stats"), StatsToObject(env, m->stats)});
        break;
      case Message::kArp: {
        Napi::Array arr = Napi::Array::New(env, m->arp.size());
        for (size_t i = 0; i < m->arp.size(); ++i) arr.Set(static_cast<uint32_t>(i), ArpToObject(env, m->arp[i]));
        callback.Call({Napi::String::New(env, "arp"), arr});
        break;
      }
      case Message::kEnd: {
        if (session->owner != nullptr) {
          session->owner->SessionEnded(session, m->stats);
          // The owner no longer points at this session, so it will not clear `owner` when it is collected, which
          // may be before the TSFN finalizer (Finalize) runs: that must not call into it.
          session->owner = nullptr;
        }
        Napi::Value err = env.Undefined();
        if (m->error != CaptureError::kNone) err = MakeCaptureError(env, m->error, m->text).Value();
        callback.Call({Napi::String::New(env, "end"), StatsToObject(env, m->stats), err});
        break;
      }
    }
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();  // a listener threw: surface it as an uncaught exception, never cross threads
  }
}

Napi::Object StatsToObject(Napi::Env env, const CaptureStats& s) {
  Napi::Object o = Napi::Object::New(env);
  auto num = [&](uint64_t v) { return Napi::Number::New(env, static_cast<double>(v)); };
  o.Set("packets", num(s.packets));
  o.Set("bytes", num(s.bytes));
  o.Set("flows", num(s.flows_finished));
  o.Set("flowsActive", num(s.flows_active));
  o.Set("flowsEvicted", num(s.flows_evicted));
  o.Set("snapshots", num(s.snapshots));
  o.Set("fragmentsAttributed", num(s.fragments_attributed));
  Napi::Object protos = Napi::Object::New(env);
  for (int i = 0; i < kProtoCount; ++i) {
    Napi::Object p = Napi::Object::New(env);
    p.Set("packets", num(s.proto[i].packets));
    p.Set("bytes", num(s.proto[i].bytes));
    p.Set("flows", num(s.proto[i].flows));
    protos.Set(ProtoName(i), p);
  }
  o.Set("protocols", protos);
  Napi::Object errors = Napi::Object::New(env);
  for (int i = 0; i < static_cast<int>(DecodeStatus::kCount); ++i) {
    const auto st = static_cast<DecodeStatus>(i);
    if (st == DecodeStatus::kOk || st == DecodeStatus::kNonIp) continue;
    errors.Set(DecodeStatusName(st), num(s.decode_errors[i]));
  }
  o.Set("decodeErrors", errors);
  Napi::Object pcap = Napi::Object::New(env);
  pcap.Set("received", num(s.pcap.received));
  pcap.Set("dropped", num(s.pcap.dropped));
  pcap.Set("ifDropped", num(s.pcap.if_dropped));
  o.Set("pcap", pcap);
  o.Set("batchesDelivered", num(s.batches_delivered));
  o.Set("batchesDropped", num(s.batches_dropped));
  o.Set("linkType", Napi::Number::New(env, s.link_type));
  o.Set("tsDigits", Napi::Number::New(env, s.ts_digits));
  Napi::Object app = Napi::Object::New(env);
  Napi::Object app_errors = Napi::Object::New(env);
  for (int i = 0; i < AppErrorSlotCount(); ++i) {
    if (AppErrorName(i) != nullptr) app_errors.Set(AppErrorName(i), num(s.app.errors[i]));
  }
  app.Set("errors", app_errors);
  Napi::Object counters = Napi::Object::New(env);
  for (int i = 0; i < kAppCounterCount; ++i) counters.Set(AppCounterName(i), num(s.app.counters[i]));
  app.Set("counters", counters);
  Napi::Object by_app = Napi::Object::New(env);
  for (int i = 1; i < static_cast<int>(AppProto::kCount); ++i) {
    if (s.app.flows_by_app[i] > 0) by_app.Set(AppProtoName(static_cast<AppProto>(i)), num(s.app.flows_by_app[i]));
  }
  app.Set("flowsByApp", by_app);
  Napi::Object cache = Napi::Object::New(env);
  cache.Set("inserts", num(s.app.dns_cache.inserts));
  cache.Set("hits", num(s.app.dns_cache.hits));
  cache.Set("misses", num(s.app.dns_cache.misses));
  cache.Set("evictions", num(s.app.dns_cache.evictions));
  app.Set("dnsCache", cache);
  app.Set("arpBindings", num(s.app.arp_bindings));
  app.Set("arpEvictions", num(s.app.arp_evictions));
  o.Set("appLayer", app);
  Napi::Object proc = Napi::Object::New(env);
  proc.Set("enabled", Napi::Boolean::New(env, s.process.enabled));
  proc.Set("requests", num(s.process.requests));
  proc.Set("resolved", num(s.process.resolved));
  proc.Set("foreign", num(s.process.foreign));
  proc.Set("noSocket", num(s.process.no_socket));
  proc.Set("noProcess", num(s.process.no_process));
  proc.Set("dropped", num(s.process.dropped));
  proc.Set("walks", num(s.process.walks));
  proc.Set("fds", num(s.process.fds));
  proc.Set("cpuMs", Napi::Number::New(env, static_cast<double>(s.process.cpu_ns) / 1e6));
  o.Set("process", proc);
  return o;
}

void CaptureWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Capture",
                                    {
                                        InstanceMethod<&CaptureWrap::JsStart>("start"),
                                        InstanceMethod<&CaptureWrap::JsStop>("stop"),
                                        InstanceMethod<&CaptureWrap::JsStats>("stats"),
                                        InstanceAccessor<&CaptureWrap::JsRunning>("running"),
                                        StaticMethod<&CaptureWrap::JsReleaseBatch>("releaseBatch"),
                                    });
  exports.Set("Capture", ctor);
}

CaptureWrap::CaptureWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CaptureWrap>(info) {}

CaptureWrap::~CaptureWrap() {
  if (session_ != nullptr) {
    session_->owner = nullptr;
    session_->thread->RequestStop();
  }
}

void CaptureWrap::SessionEnded(CaptureSession* session, const CaptureStats& stats) {
  if (session_ == session) {
    session_ = nullptr;
    last_stats_ = stats;
  }
}

Napi::Value CaptureWrap::JsStart(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction()) {
    throw Napi::TypeError::New(env, "start(options, onEvent): options must be an object and onEvent a function");
  }
  if (session_ != nullptr) return Napi::Boolean::New(env, false);
  const Napi::Object o = info[0].As<Napi::Object>();
  const std::string kind = GetString(o, "kind");
  const std::string filter = GetString(o, "filter");

  auto source = std::make_unique<PcapSource>();
  CaptureError err;
  if (kind == "file") {
    err = source->OpenFile(GetString(o, "path"), filter);
  } else if (kind == "live") {
    LiveOptions lo;
    lo.device = GetString(o, "interface");
    lo.snaplen = static_cast<int>(GetNumber(o, "snaplen", 262144));
    lo.promiscuous = GetBool(o, "promiscuous", true);
    lo.buffer_size = static_cast<int>(GetNumber(o, "bufferSize", 0));
    lo.immediate = GetBool(o, "immediate", true);
    err = source->OpenLive(lo, filter);
  } else {
    throw Napi::TypeError::New(env, "options.kind must be 'live' or 'file'");
  }
  if (err != CaptureError::kNone) throw MakeCaptureError(env, err, source->message());

  CaptureConfig cfg;
  cfg.speed = GetNumber(o, "speed", 0);
  cfg.flows.idle_timeout_ns = SecondsToNs(GetNumber(o, "idleTimeoutSec", 120));
  cfg.flows.active_timeout_ns = SecondsToNs(GetNumber(o, "activeTimeoutSec", 1800));
  cfg.flows.max_flows = static_cast<uint32_t>(GetNumber(o, "maxFlows", 1 << 20));
  cfg.flows.snapshot_interval_ns = SecondsToNs(GetNumber(o, "snapshotIntervalSec", 0));
  cfg.flows.tcp_linger_ns = SecondsToNs(GetNumber(o, "tcpLingerSec", 1));
  cfg.flows.activity_timeout_ns = SecondsToNs(GetNumber(o, "activityTimeoutSec", 5));
  cfg.stats_interval_ns = static_cast<int64_t>(GetNumber(o, "statsIntervalMs", 1000) * 1e6);
  cfg.batch_flows = static_cast<size_t>(GetNumber(o, "batchFlows", 1024));
  if (cfg.batch_flows == 0) cfg.batch_flows = 1;
  cfg.app.enabled = GetBool(o, "appLayer", true);
  cfg.app.community_id_seed = static_cast<uint16_t>(GetNumber(o, "communityIdSeed", 0));
  cfg.app.dns_cache_entries = static_cast<uint32_t>(GetNumber(o, "dnsCacheEntries", 16384));
  cfg.processes = GetBool(o, "processes", false);
  cfg.process_cpu_budget_ns = static_cast<int64_t>(GetNumber(o, "processCpuPercent", 1) * 1e7);  // % of 1 s

  auto* session = new CaptureSession(cfg.batch_flows);
  session->owner = this;
  session->detach_batches = GetBool(o, "detachBatches", false);
  session->lend_batches = GetBool(o, "lendBatches", false);
  if (kind == "file") session->lend_limit = static_cast<size_t>(GetNumber(o, "lendLimit", 0));
  if (session->lend_limit > 0) {
    session->pool->SetBudget(std::max(kSpareBuffers, session->lend_limit), kLendSpareBytes);
  }
  session->pool->Adopt();
  session->encoder.SetAppLayer(cfg.app.enabled, cfg.app.community_id_seed);
  // A fast replay's capture thread is its critical path: encoding moves to a thread of its own. Live capture and
  // paced replay keep it inline (they wait for packets anyway, and a live batch goes out within its interval).
  if (kind == "file" && cfg.speed <= 0) session->UseEncodeStage();
  session->thread = std::make_unique<CaptureThread>(std::move(source), cfg, session);
  // `_queueDepth` (test-only) shrinks the queue so tests can make live capture drop batches.
  const size_t depth = static_cast<size_t>(GetNumber(o, "_queueDepth", static_cast<double>(kQueueDepth)));
  session->tsfn = CaptureTsfn::New(env, info[1].As<Napi::Function>(), "vigil-capture", depth == 0 ? 1 : depth, 1,
                                   session, &CaptureSession::Finalize, static_cast<void*>(nullptr));
  if (napi_add_env_cleanup_hook(env, &CaptureSession::Cleanup, session) == napi_ok) session->hook_registered = true;
  session_ = session;
  session->thread->Start();
  return Napi::Boolean::New(env, true);
}

Napi::Value CaptureWrap::JsStop(const Napi::CallbackInfo& info) {
  if (session_ == nullptr) return Napi::Boolean::New(info.Env(), false);
  session_->thread->RequestStop();
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value CaptureWrap::JsStats(const Napi::CallbackInfo& info) {
  return StatsToObject(info.Env(), session_ != nullptr ? session_->thread->Latest() : last_stats_);
}

Napi::Value CaptureWrap::JsRunning(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), session_ != nullptr);
}

Napi::Value CaptureWrap::JsReleaseBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArrayBuffer())
    throw Napi::TypeError::New(env, "releaseBatch(batch): batch must be an ArrayBuffer");
  Napi::ArrayBuffer ab = info[0].As<Napi::ArrayBuffer>();
  if (ab.IsDetached() || ab.ByteLength() == 0) return Napi::Boolean::New(env, false);
  // While `ab` is attached it holds the memory, so its finalizer has not been queued and the hint is alive.
  // Only the lent batch itself can be attached over that memory.
  LentBatch* lent = LentBatch::Take(ab.Data());
  if (lent == nullptr) return Napi::Boolean::New(env, false);
  ab.Detach();
  g_released.fetch_add(1, std::memory_order_relaxed);
  lent->pool->Recycle(std::move(lent->batch));  // the finalizer, when it runs, finds the hint empty
  lent->pool->Back();
  return Napi::Boolean::New(env, true);
}

namespace {
Napi::Value JsListInterfaces(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<DeviceInfo> devices;
  std::string error;
  if (!ListDevices(&devices, &error))
    throw MakeCaptureError(env, CaptureError::kDeviceFailure, "cannot list capture devices: " + error);
  Napi::Array arr = Napi::Array::New(env, devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", d.name);
    o.Set("description", d.description);
    Napi::Array addrs = Napi::Array::New(env, d.addresses.size());
    for (size_t j = 0; j < d.addresses.size(); ++j) addrs.Set(static_cast<uint32_t>(j), d.addresses[j]);
    o.Set("addresses", addrs);
    o.Set("loopback", d.loopback);
    o.Set("up", d.up);
    o.Set("running", d.running);
    o.Set("wireless", d.wireless);
    arr.Set(static_cast<uint32_t>(i), o);
  }
  return arr;
}
// `_batchBuffers()` (test-only): the process's counts of batches lent to JS without a copy (`lent`), of lent buffers
// taken back when the callback returned (`reclaimed`, detach mode), of lent buffers JS gave back with releaseBatch()
// (`released`, lend mode) and of lent buffers given back by the finalizer after V8 let go of them (`finalized`); and
// how often a replay with a lend limit waited for a lent batch to come back (`lendWaits`) and went ahead after
// kLendWaitMax without one (`lendTimeouts`); and how many batches got a new buffer because no spare fitted (`fresh`).
Napi::Value JsBatchBuffers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("lent", Napi::Number::New(env, static_cast<double>(g_lent.load())));
  o.Set("reclaimed", Napi::Number::New(env, static_cast<double>(g_reclaimed.load())));
  o.Set("finalized", Napi::Number::New(env, static_cast<double>(g_finalized.load())));
  o.Set("released", Napi::Number::New(env, static_cast<double>(g_released.load())));
  o.Set("lendWaits", Napi::Number::New(env, static_cast<double>(g_lend_waits.load())));
  o.Set("lendTimeouts", Napi::Number::New(env, static_cast<double>(g_lend_timeouts.load())));
  o.Set("fresh", Napi::Number::New(env, static_cast<double>(g_fresh.load())));
  return o;
}
}  // namespace

void InitDevices(Napi::Env env, Napi::Object exports) {
  exports.Set("listInterfaces", Napi::Function::New<JsListInterfaces>(env, "listInterfaces"));
  exports.Set("batchLayoutVersion", Napi::Number::New(env, kBatchLayoutVersion));
  exports.Set("batchHeaderBytes", Napi::Number::New(env, static_cast<double>(kBatchHeaderBytes)));
  Napi::Array cols = Napi::Array::New(env, kF64ColumnCount);
  for (uint32_t i = 0; i < static_cast<uint32_t>(kF64ColumnCount); ++i) cols.Set(i, kF64ColumnNames[i]);
  exports.Set("flowColumns", cols);
  Napi::Array text_cols = Napi::Array::New(env, kStrColumnCount);
  for (uint32_t i = 0; i < static_cast<uint32_t>(kStrColumnCount); ++i) text_cols.Set(i, kStrColumnNames[i]);
  exports.Set("flowTextColumns", text_cols);
  Napi::Array apps = Napi::Array::New(env, static_cast<size_t>(AppProto::kCount));
  for (uint32_t i = 0; i < static_cast<uint32_t>(AppProto::kCount); ++i) {
    apps.Set(i, AppProtoName(static_cast<AppProto>(i)));
  }
  exports.Set("appNames", apps);
}

void InitCaptureBinding(Napi::Env env, Napi::Object exports) {
  CaptureWrap::Init(env, exports);
  InitDevices(env, exports);
  exports.Set("_batchBuffers", Napi::Function::New<JsBatchBuffers>(env, "_batchBuffers"));
}

}  // namespace vigil
