// EncodeStage: the batch encoder on a thread of its own, behind a bounded single-producer ring.
//
// In a fast replay the capture thread is the critical path, and encoding finished flows into batches (and handing
// them to JS) was about a quarter of its work. The stage takes that over: the capture thread copies each finished
// flow into the ring (the entry, with its application-layer state moved, not copied) and queues flush and discard
// requests in the same order; the stage's thread runs them through the consumer (BatchEncoder and the TSFN). Batches
// hold the same flows in the same order as when encoding ran inline.
//
// The stage's thread sleeps when it has nothing urgent: the producer wakes it for a flush, a discard or a drain, or
// when the ring is half full, so a replay costs a wake-up per batch rather than per flow. Application-layer states
// go back to the capture thread (TakeReturned), which owns their pool. Not copyable; one producer thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "flow/flow_record.h"

namespace vigil {

class EncodeStage {
 public:
  // Runs on the stage's thread, in the order the producer queued the calls.
  class Consumer {
   public:
    virtual ~Consumer() = default;
    virtual void EncodeFlow(const FlowEntry& flow, EndReason reason) = 0;
    virtual bool FlushBatch(bool blocking) = 0;  // false: the consumer is gone (the producer then stops)
    virtual void DiscardBatch() = 0;
  };

  // Three busy threads (capture, read-ahead, this one) share two cores in a replay, so this thread is often not
  // running when the capture thread publishes: the ring must hold what piles up meanwhile, or the capture thread
  // waits for half of it to drain. At 512 slots it did so 133 times in a replay of the capture bench's second input;
  // at 2,048 twice. Replay into JS, interleaved medians of 13-15 runs on that input: 392 ms at 512 slots, 368 at 1,024,
  // 332 at 2,048, 346 at 4,096 (a slot is ~0.85 KB: 1.7 MiB in all); on the first input 343 against 329.
  static constexpr size_t kSlots = 2048;

  explicit EncodeStage(Consumer* consumer);
  ~EncodeStage();  // stops the thread (after the queued work)
  EncodeStage(const EncodeStage&) = delete;
  EncodeStage& operator=(const EncodeStage&) = delete;

  // --- producer (one thread) ---
  // A finished flow: copies the entry and takes its application-layer state (flow.app becomes nullptr).
  void PushFinished(FlowEntry& flow, EndReason reason);
  void PushFlush(bool blocking);
  void PushDiscard();
  // Waits until everything queued so far was run, and its states were handed back. The consumer may then be used
  // directly on the producer's thread until the next push.
  void Drain();
  // Drain, then end the thread. Idempotent; later pushes start it again.
  void Stop();
  // False once a flush reported the consumer gone.
  bool consumer_alive() const { return !gone_.load(std::memory_order_acquire); }
  // Moves the application-layer states the stage is done with into *out (appends).
  void TakeReturned(std::vector<AppState*>* out);

 private:
  enum class Kind : uint8_t { kFlow, kFlush, kDiscard, kQuit };
  struct Slot {
    Kind kind = Kind::kFlow;
    EndReason reason = EndReason::kIdle;
    bool blocking = false;
    FlowEntry flow;
  };

  Slot& Claim();              // waits for a free slot; starts the thread if needed
  void Publish(bool urgent);  // makes the claimed slot visible; wakes the thread when urgent or half full
  void WakeConsumer();        // producer: wakes the thread if it sleeps
  void WaitUntilRun();        // producer: until head == tail
  void Run();                 // the stage's thread
  void HandBack(std::vector<AppState*>* local);

  Consumer* consumer_;
  std::unique_ptr<Slot[]> slots_;
  std::thread thread_;
  // tail_: slots published by the producer; head_: slots the thread finished. Both only grow.
  std::atomic<uint64_t> tail_{0};
  std::atomic<uint64_t> head_{0};
  std::atomic<bool> consumer_sleeping_{false};  // the thread is (about to be) waiting for wake_
  std::atomic<bool> producer_waiting_{false};   // the producer is (about to be) waiting for head_ to move
  std::atomic<bool> gone_{false};
  std::mutex mutex_;
  std::condition_variable wake_cv_;   // the thread waits here (wake_)
  std::condition_variable space_cv_;  // the producer waits here (head_)
  bool wake_ = false;
  std::mutex returned_mutex_;
  std::vector<AppState*> returned_;
};

}  // namespace vigil
