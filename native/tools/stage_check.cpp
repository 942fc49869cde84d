// stage_check: drives the encoder stage (capture/encode_stage.h) as the capture thread does, with a consumer that
// checks what arrives: every finished flow once, in order, with the application-layer state it was handed over
// with; flushes and discards between the same flows as queued; every state handed back once; a drain leaves
// nothing behind. Rounds vary the consumer's speed (a slow one fills the ring and makes the producer wait) and how
// often the producer flushes, discards and drains. Meant for the sanitizers (scripts/asan.sh runs it under ASan and
// UBSan; `-fsanitize=thread` builds check the ring's synchronisation) and test/native/encode-stage.test.ts.
// Usage: stage_check [FLOWS_PER_ROUND] [SEED]   Prints one JSON line; exit 0 when every check held, 1 otherwise.
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/app_layer.h"
#include "capture/encode_stage.h"

namespace {

// What the consumer saw, as events the producer's own log must equal.
struct Event {
  char kind;    // 'f' flow, 'F' flush, 'B' blocking flush, 'D' discard
  uint64_t id;  // flow id (0 for the others)
  void* app;    // the flow's state
  int reason;
};

class CheckingConsumer : public vigil::EncodeStage::Consumer {
 public:
  void EncodeFlow(const vigil::FlowEntry& flow, vigil::EndReason reason) override {
    Work();
    seen.push_back({'f', flow.id, flow.app, static_cast<int>(reason)});
    // The copy must carry the entry as it was at hand-over.
    if (flow.f.packets[0] != flow.id * 3 || flow.key.port_lo != static_cast<uint16_t>(flow.id)) ++bad_copies;
  }
  bool FlushBatch(bool blocking) override {
    Work();
    seen.push_back({blocking ? 'B' : 'F', 0, nullptr, 0});
    return !gone_after || ++flushes < gone_after;
  }
  void DiscardBatch() override { seen.push_back({'D', 0, nullptr, 0}); }

  void Work() {
    if (slow_every != 0 && (++calls % slow_every) == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }

  std::vector<Event> seen;
  uint64_t bad_copies = 0;
  uint64_t slow_every = 0;  // sleep every Nth call (0: never)
  uint64_t calls = 0;
  uint64_t gone_after = 0;  // report the consumer gone at this flush (0: never)
  uint64_t flushes = 0;
};

struct RoundResult {
  bool ok = true;
  std::string why;
  // Records the first failure only.
  void Fail(const std::string& reason) {
    if (!ok) return;
    ok = false;
    why = reason;
  }
};

RoundResult Round(uint64_t flows, uint64_t seed, uint64_t slow_every, uint64_t gone_after) {
  std::mt19937_64 rng(seed);
  CheckingConsumer consumer;
  consumer.slow_every = slow_every;
  consumer.gone_after = gone_after;
  std::vector<Event> expected;
  std::vector<vigil::AppState> states(flows);
  std::vector<int> returned(flows, 0);
  RoundResult r;
  {
    vigil::EncodeStage stage(&consumer);
    vigil::FlowEntry e;
    std::vector<vigil::AppState*> back;
    uint64_t handed_total = 0;
    uint64_t returned_total = 0;
    auto take_back = [&] {
      stage.TakeReturned(&back);
      for (vigil::AppState* s : back) returned[static_cast<size_t>(s - states.data())]++;
      returned_total += back.size();
      back.clear();
    };
    for (uint64_t i = 1; i <= flows; ++i) {
      e.id = i;
      e.key.port_lo = static_cast<uint16_t>(i);
      e.f.packets[0] = i * 3;
      const bool with_state = (rng() & 3) != 0;
      e.app = with_state ? &states[i - 1] : nullptr;
      handed_total += with_state ? 1 : 0;
      const auto reason = static_cast<vigil::EndReason>(rng() % 6);
      expected.push_back({'f', i, e.app, static_cast<int>(reason)});
      stage.PushFinished(e, reason);
      if (e.app != nullptr) r.Fail("the entry kept its state after hand-over");
      const uint64_t roll = rng() % 1000;
      if (roll < 20) {
        const bool blocking = (roll & 1) != 0;
        expected.push_back({blocking ? 'B' : 'F', 0, nullptr, 0});
        stage.PushFlush(blocking);
      } else if (roll < 23) {
        expected.push_back({'D', 0, nullptr, 0});
        stage.PushDiscard();
      } else if (roll < 26) {
        stage.Drain();
        // Drained: the consumer saw everything queued, and may be used from here (the capture thread encodes a
        // snapshot this way).
        if (consumer.seen.size() != expected.size()) r.Fail("a drain returned before the stage ran everything");
        take_back();
        if (returned_total != handed_total) r.Fail("a drain returned before every state came back");
      }
      if ((i & 255) == 0) take_back();
    }
    stage.Stop();
    take_back();
    if (gone_after != 0 && stage.consumer_alive()) r.Fail("the consumer's going away was not reported");
  }
  // A flush after the consumer went away drops the batch instead.
  if (gone_after != 0) {
    uint64_t n = 0;
    for (Event& ev : expected) {
      if ((ev.kind == 'F' || ev.kind == 'B') && ++n > gone_after) ev = {'D', 0, nullptr, 0};
    }
  }
  if (consumer.seen.size() != expected.size())
    r.Fail("saw " + std::to_string(consumer.seen.size()) + " events, queued " + std::to_string(expected.size()));
  for (size_t k = 0; r.ok && k < expected.size(); ++k) {
    const Event& a = consumer.seen[k];
    const Event& b = expected[k];
    if (a.kind != b.kind || a.id != b.id || a.app != b.app || a.reason != b.reason)
      r.Fail("event " + std::to_string(k) + " differs");
  }
  if (consumer.bad_copies != 0) r.Fail(std::to_string(consumer.bad_copies) + " flows arrived with other contents");
  for (const Event& ev : expected) {
    if (ev.kind != 'f' || ev.app == nullptr) continue;
    const size_t k = static_cast<size_t>(static_cast<vigil::AppState*>(ev.app) - states.data());
    if (returned[k] != 1)
      r.Fail("flow " + std::to_string(ev.id) + "'s state came back " + std::to_string(returned[k]) + " times");
  }
  for (uint64_t k = 0; r.ok && k < flows; ++k) {
    if (returned[k] > 1) r.Fail("a state came back twice");
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t flows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  struct Config {
    uint64_t slow_every;
    uint64_t gone_after;
  };
  // A fast consumer (the ring mostly empty, the thread asleep between wake-ups), a slow one (the ring full, the
  // producer waiting), and one that goes away half-way (JS shutting down).
  const Config configs[] = {{0, 0}, {97, 0}, {0, 25}};
  int failed = 0;
  std::string report;
  for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); ++c) {
    const uint64_t n = configs[c].slow_every != 0 ? flows / 10 : flows;
    const RoundResult r = Round(n, seed + c, configs[c].slow_every, configs[c].gone_after);
    if (!r.ok) {
      ++failed;
      std::fprintf(stderr, "stage_check: round %zu (slow every %" PRIu64 ", gone after %" PRIu64 "): %s\n", c,
                   configs[c].slow_every, configs[c].gone_after, r.why.c_str());
    }
    report += (c == 0 ? "" : ",") + std::string(r.ok ? "true" : "false");
  }
  std::printf("{\"flows\":%" PRIu64 ",\"seed\":%" PRIu64 ",\"rounds\":[%s],\"ok\":%s}\n", flows, seed, report.c_str(),
              failed == 0 ? "true" : "false");
  return failed == 0 ? 0 : 1;
}
