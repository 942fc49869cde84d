// ProcessResolver: a thread that maps new flows to the program owning their local socket (sock_diag for the socket,
// /proc for the process), off the capture thread, through a bounded queue. Linux only.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "process/process_info.h"
#include "process/sock_diag.h"

namespace vigil {

class ProcTable;

struct ProcessResolverConfig {
  size_t queue_capacity = 4096;  // lookups waiting; a full queue refuses (counted), never blocks capture
  // Cost bound. While the thread has used less than `cpu_budget_ns` of CPU in the current second, each lookup goes
  // at once (a short-lived socket is gone within a round trip). Past the budget, at most one round of lookups
  // (netlink, then one /proc walk for the sockets the cache does not know) per interval: lookups arriving within it
  // wait and share the round.
  int64_t round_interval_ns = 50'000'000;
  int64_t cpu_budget_ns = 10'000'000;  // 1% of a core
  std::string proc = "/proc";
};

class ProcessResolver {
 public:
  explicit ProcessResolver(const ProcessResolverConfig& config);
  ~ProcessResolver();  // Stop()s
  ProcessResolver(const ProcessResolver&) = delete;
  ProcessResolver& operator=(const ProcessResolver&) = delete;

  // Opens the netlink socket in the calling thread's network namespace and starts the thread. False when netlink
  // is unavailable (the resolver then stays off).
  bool Start();
  // Any thread; idempotent. Joins the thread; lookups still queued stay pending (their flows get no process).
  void Stop();

  // Queues a lookup for a TCP or UDP connection between `a` and `b` (initiator first: it is tried as the local end
  // first). Returns the slot the flow keeps, or nullptr when the queue is full (counted). Capture thread: takes a
  // mutex only to push, allocates one slot.
  std::shared_ptr<ProcessSlot> Submit(uint8_t protocol, bool ipv6, const uint8_t* a, uint16_t a_port, const uint8_t* b,
                                      uint16_t b_port);

  ProcessResolverStats Stats();  // any thread

 private:
  struct Request {
    std::shared_ptr<ProcessSlot> slot;
    SocketTuple tuple;  // local = the initiator; tried reversed when that finds nothing
  };
  struct Pending {
    std::shared_ptr<ProcessSlot> slot;
    uint32_t inode;
    uint32_t uid;
  };
  void Run();
  // Resolver thread: asks the kernel for the socket of `r`; keeps it for this round's walk, or settles it at once.
  void Lookup(const Request& r, int64_t now_ns);
  void Settle(const std::shared_ptr<ProcessSlot>& slot, int32_t pid, int64_t now_ns);
  void Walk(int64_t now_ns);

  ProcessResolverConfig config_;
  std::unique_ptr<SockDiag> diag_;
  std::unique_ptr<ProcTable> table_;
  std::thread thread_;

  std::mutex mu_;  // guards the queue and stop_
  std::condition_variable cv_;
  std::vector<Request> ring_;
  size_t head_ = 0;
  size_t count_ = 0;
  bool stop_ = false;
  uint64_t requests_ = 0;  // under mu_
  uint64_t dropped_ = 0;   // under mu_

  bool idle_ = false;  // under mu_: the thread waits for work (Submit wakes it); else it sleeps to its next round

  std::vector<Pending> pending_;  // resolver thread: sockets of this round the cache did not know
  int64_t last_round_ns_ = -1;
  int64_t window_start_ns_ = -1;  // the current one-second budget window
  uint64_t window_cpu_ns_ = 0;    // thread CPU time at its start
  bool UnderBudget(int64_t now_ns);

  std::mutex stats_mu_;
  ProcessResolverStats stats_;  // written by the resolver thread (requests and dropped: see requests_, dropped_)
};

}  // namespace vigil
