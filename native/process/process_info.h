// ProcessInfo: the program that owns a flow's local socket, and the slot a flow holds while the resolver looks it up.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace vigil {

// One process as /proc shows it. Text values are empty when unknown (read by the batch encoder as null).
struct ProcessInfo {
  int32_t pid = 0;
  uint32_t uid = 0;       // real uid (/proc/<pid>/status "Uid:")
  std::string name;       // /proc/<pid>/comm (at most 15 bytes, set by the program)
  std::string exe;        // /proc/<pid>/exe target (empty when the kernel hides it, e.g. a kernel thread)
  std::string user;       // the uid's name (getpwuid_r); empty when the uid has none
  std::string unit;       // systemd unit or scope named by the cgroup path (e.g. "nginx.service")
  std::string container;  // container id named by the cgroup path (docker, podman, containerd, cri-o), 12..64 hex
};

// Resolution states of a ProcessSlot.
enum class ProcessState : uint8_t { kPending = 0, kResolved, kUnresolved };

// Shared by a flow (capture thread) and the resolver thread. The resolver writes `info` and then publishes `state`
// with release order; the capture thread reads `info` only after loading kResolved with acquire order.
struct ProcessSlot {
  std::atomic<ProcessState> state{ProcessState::kPending};
  std::shared_ptr<const ProcessInfo> info;
};

// The process of a flow's slot when resolved; nullptr while pending, unresolved, or for no slot. Any thread.
inline const ProcessInfo* ResolvedProcess(const ProcessSlot* slot) {
  if (slot == nullptr || slot->state.load(std::memory_order_acquire) != ProcessState::kResolved) return nullptr;
  return slot->info.get();
}

// Counters of a process resolver (monotonic since it started).
struct ProcessResolverStats {
  bool enabled = false;
  uint64_t requests = 0;    // lookups asked for (new TCP and UDP flows of a live capture)
  uint64_t resolved = 0;    // flows given a process
  uint64_t foreign = 0;     // neither end is an address of this host (traffic between other hosts): not asked
  uint64_t no_socket = 0;   // the kernel had no socket with an inode for the flow (already closed, or not ours)
  uint64_t no_process = 0;  // a socket, but no process held it by the time /proc was read
  uint64_t dropped = 0;     // lookups refused: the queue was full
  uint64_t walks = 0;       // passes over /proc/<pid>/fd
  uint64_t fds = 0;         // fd links read
  uint64_t cpu_ns = 0;      // CPU time of the resolver thread
};

}  // namespace vigil
