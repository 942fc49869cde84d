// EncodeStage: see encode_stage.h. Synchronisation: tail_ and head_ are the ring's indices (release/acquire for the
// slots' contents). Each side announces that it is about to wait (consumer_sleeping_, producer_waiting_) and then
// re-reads the other side's index, all sequentially consistent, so that of a waiter and a publisher at least one sees
// the other: a wake-up is never lost. The waits themselves are on one mutex with two condition variables.
#include "capture/encode_stage.h"

#include <utility>

#include "capture/capture_thread.h"

namespace vigil {

namespace {
constexpr size_t kHandBackEvery = 64;  // application-layer states the thread collects before handing them back
}  // namespace

EncodeStage::EncodeStage(Consumer* consumer) : consumer_(consumer), slots_(new Slot[kSlots]) {}

EncodeStage::~EncodeStage() { Stop(); }

EncodeStage::Slot& EncodeStage::Claim() {
  if (!thread_.joinable()) {
    thread_ = std::thread([this] {
      NameThisThread("vigil-encode");
      Run();
    });
  }
  const uint64_t t = tail_.load(std::memory_order_relaxed);
  if (t - head_.load(std::memory_order_acquire) >= kSlots) {
    // Full. The thread was woken when the ring passed half full; make sure, then wait until half of it is free
    // (one wake-up, not one per slot).
    WakeConsumer();
    std::unique_lock<std::mutex> lock(mutex_);
    producer_waiting_.store(true, std::memory_order_seq_cst);
    space_cv_.wait(lock, [&] { return t - head_.load(std::memory_order_seq_cst) <= kSlots / 2; });
    producer_waiting_.store(false, std::memory_order_relaxed);
  }
  return slots_[t % kSlots];
}

void EncodeStage::Publish(bool urgent) {
  const uint64_t t = tail_.load(std::memory_order_relaxed) + 1;
  tail_.store(t, std::memory_order_seq_cst);
  // Flows wait in the ring until something urgent comes or it is half full: one wake-up per batch, not per flow.
  if (urgent || t - head_.load(std::memory_order_relaxed) >= kSlots / 2) WakeConsumer();
}

void EncodeStage::WakeConsumer() {
  if (!consumer_sleeping_.load(std::memory_order_seq_cst)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_ = true;
  }
  wake_cv_.notify_one();
}

void EncodeStage::PushFinished(FlowEntry& flow, EndReason reason) {
  Slot& s = Claim();
  s.kind = Kind::kFlow;
  s.reason = reason;
  // The state and the process slot move with the record; the rest of the entry is copied (the table reuses it).
  AppState* app = flow.app;
  flow.app = nullptr;
  std::shared_ptr<ProcessSlot> process = std::move(flow.process);
  s.flow = flow;
  s.flow.app = app;
  s.flow.process = std::move(process);
  Publish(false);
}

void EncodeStage::PushFlush(bool blocking) {
  Slot& s = Claim();
  s.kind = Kind::kFlush;
  s.blocking = blocking;
  Publish(true);
}

void EncodeStage::PushDiscard() {
  Slot& s = Claim();
  s.kind = Kind::kDiscard;
  Publish(true);
}

void EncodeStage::WaitUntilRun() {
  const uint64_t t = tail_.load(std::memory_order_relaxed);
  if (head_.load(std::memory_order_acquire) == t) return;
  WakeConsumer();
  std::unique_lock<std::mutex> lock(mutex_);
  producer_waiting_.store(true, std::memory_order_seq_cst);
  space_cv_.wait(lock, [&] { return head_.load(std::memory_order_seq_cst) == t; });
  producer_waiting_.store(false, std::memory_order_relaxed);
}

void EncodeStage::Drain() {
  if (thread_.joinable()) WaitUntilRun();
}

void EncodeStage::Stop() {
  if (!thread_.joinable()) return;
  Slot& s = Claim();
  s.kind = Kind::kQuit;
  Publish(true);
  thread_.join();
}

void EncodeStage::TakeReturned(std::vector<AppState*>* out) {
  std::lock_guard<std::mutex> lock(returned_mutex_);
  if (returned_.empty()) return;
  out->insert(out->end(), returned_.begin(), returned_.end());
  returned_.clear();
}

void EncodeStage::HandBack(std::vector<AppState*>* local) {
  if (local->empty()) return;
  std::lock_guard<std::mutex> lock(returned_mutex_);
  returned_.insert(returned_.end(), local->begin(), local->end());
  local->clear();
}

void EncodeStage::Run() {
  std::vector<AppState*> local;
  local.reserve(kHandBackEvery);
  uint64_t h = head_.load(std::memory_order_relaxed);
  for (;;) {
    if (h == tail_.load(std::memory_order_acquire)) {
      // Nothing queued: sleep until the producer wakes us (or something arrived while we got here).
      std::unique_lock<std::mutex> lock(mutex_);
      consumer_sleeping_.store(true, std::memory_order_seq_cst);
      if (h == tail_.load(std::memory_order_seq_cst)) wake_cv_.wait(lock, [&] { return wake_; });
      wake_ = false;
      consumer_sleeping_.store(false, std::memory_order_relaxed);
      continue;
    }
    Slot& s = slots_[h % kSlots];
    bool quit = false;
    switch (s.kind) {
      case Kind::kFlow:
        consumer_->EncodeFlow(s.flow, s.reason);
        if (s.flow.app != nullptr) local.push_back(s.flow.app);
        s.flow.app = nullptr;
        s.flow.process.reset();
        if (local.size() >= kHandBackEvery) HandBack(&local);
        break;
      case Kind::kFlush:
        // Once the consumer is gone a flush drops the batch, as the failed flush did.
        if (gone_.load(std::memory_order_relaxed)) {
          consumer_->DiscardBatch();
        } else if (!consumer_->FlushBatch(s.blocking)) {
          gone_.store(true, std::memory_order_release);
        }
        break;
      case Kind::kDiscard:
        consumer_->DiscardBatch();
        break;
      case Kind::kQuit:
        quit = true;
        break;
    }
    ++h;
    // Hand the states back before the last queued slot counts as run, so that a drain finds them all.
    if (quit || h == tail_.load(std::memory_order_acquire)) HandBack(&local);
    head_.store(h, std::memory_order_seq_cst);
    // The producer waits for half the ring (Claim) or all of it (WaitUntilRun) to be free.
    if (producer_waiting_.load(std::memory_order_seq_cst) && tail_.load(std::memory_order_relaxed) - h <= kSlots / 2) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      space_cv_.notify_one();
    }
    if (quit) return;
  }
}

}  // namespace vigil
