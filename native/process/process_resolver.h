// ProcessResolver: a thread that maps new flows to the program owning their local socket (sock_diag for the socket,
// /proc for the process), off the capture thread, through a bounded queue. Linux only.
#pragma once

#include <array>
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
  // Cost bound: a token bucket of the thread's own CPU time. It fills at `cpu_budget_ns` per second up to
  // `cpu_burst_ns`, and everything the thread spends is taken from it. While it holds any, each lookup goes at once
  // (a short-lived socket is gone within a round trip); in debt, the thread waits until it is paid off, and the
  // lookups queued meanwhile share one round (netlink, then one /proc walk for the sockets the cache does not know).
  // Their sockets may close while they wait (counted as no_socket / no_process); a full queue refuses (dropped).
  // Long-run CPU share: cpu_budget_ns per second (default 1% of a core).
  int64_t cpu_budget_ns = 10'000'000;
  int64_t cpu_burst_ns = 20'000'000;
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

  // Queues a lookup for a TCP or UDP connection between `a` and `b` (initiator first: of the ends that are this
  // host's addresses, it is asked for first). Returns the slot the flow keeps, or nullptr when the queue is full
  // (counted). Capture thread: takes a mutex only to push (and wakes the resolver only when it is idle), allocates one
  // slot.
  std::shared_ptr<ProcessSlot> Submit(uint8_t protocol, bool ipv6, const uint8_t* a, uint16_t a_port, const uint8_t* b,
                                      uint16_t b_port);

  ProcessResolverStats Stats();  // any thread

 private:
  struct Request {
    std::shared_ptr<ProcessSlot> slot;
    SocketTuple tuple;  // local = the initiator, remote = the responder (Lookup tries each end that is local)
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
  // Whether `addr` (16 bytes, IPv4 mapped) is an address of this host (getifaddrs, in the resolver's network
  // namespace; re-read at most every 100 ms when an address is not found, since addresses come and go).
  bool IsLocal(const uint8_t* addr, int64_t now_ns);

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

  std::vector<Pending> pending_;                      // resolver thread: sockets of this round the cache did not know
  std::vector<std::array<uint8_t, 16>> local_addrs_;  // resolver thread: this host's addresses
  int64_t local_addrs_ns_ = -1;                       // when they were read
  double tokens_ns_ = 0;                              // the CPU bucket (negative: in debt)
  int64_t refilled_ns_ = -1;                          // monotonic time of the last refill
  uint64_t charged_cpu_ns_ = 0;                       // thread CPU time already taken from the bucket
  // The earliest monotonic time the next round may start (see ProcessResolverConfig's cost bound).
  int64_t NextRoundNs(int64_t now_ns);

  std::mutex stats_mu_;
  ProcessResolverStats stats_;  // written by the resolver thread (requests and dropped: see requests_, dropped_)
};

}  // namespace vigil
