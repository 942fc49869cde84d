// ProcessResolver: the resolver thread and its bounded queue.
#include "process/process_resolver.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <time.h>

#include <chrono>
#include <cstring>

#include "process/proc_table.h"

namespace vigil {

namespace {
int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

ProcessResolver::ProcessResolver(const ProcessResolverConfig& config) : config_(config) {
  if (config_.queue_capacity == 0) config_.queue_capacity = 1;
  ring_.resize(config_.queue_capacity);
  stats_.enabled = false;
}

ProcessResolver::~ProcessResolver() { Stop(); }

bool ProcessResolver::Start() {
  if (thread_.joinable()) return true;
  diag_ = std::make_unique<SockDiag>();
  if (!diag_->ok()) return false;
  table_ = std::make_unique<ProcTable>(config_.proc);
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.enabled = true;
  }
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "vigil-process");
    Run();
  });
  return true;
}

void ProcessResolver::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<ProcessSlot> ProcessResolver::Submit(uint8_t protocol, bool ipv6, const uint8_t* a, uint16_t a_port,
                                                     const uint8_t* b, uint16_t b_port) {
  auto slot = std::make_shared<ProcessSlot>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_++;
    if (count_ == ring_.size() || stop_) {
      dropped_++;
      return nullptr;
    }
    Request& r = ring_[(head_ + count_) % ring_.size()];
    r.slot = slot;
    r.tuple.protocol = protocol;
    r.tuple.ipv6 = ipv6;
    std::memcpy(r.tuple.local, a, 16);
    std::memcpy(r.tuple.remote, b, 16);
    r.tuple.local_port = a_port;
    r.tuple.remote_port = b_port;
    count_++;
    if (!idle_) return slot;  // the thread takes it at its next round
  }
  cv_.notify_one();
  return slot;
}

ProcessResolverStats ProcessResolver::Stats() {
  ProcessResolverStats s;
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    s = stats_;
  }
  std::lock_guard<std::mutex> lock(mu_);
  s.requests = requests_;
  s.dropped = dropped_;
  return s;
}

void ProcessResolver::Run() {
  std::vector<Request> taken;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      for (;;) {
        if (stop_) return;
        if (count_ == 0) {
          idle_ = true;
          cv_.wait(lock, [this] { return stop_ || count_ > 0; });
          idle_ = false;
          continue;
        }
        const int64_t now = MonotonicNs();
        const int64_t due = NextRoundNs(now);
        if (now >= due) break;
        // Rate bound: sleep to the next round; lookups queued meanwhile join it (Submit does not wake us).
        cv_.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due)),
                       [this] { return stop_; });
      }
      while (count_ > 0) {
        taken.push_back(std::move(ring_[head_]));
        head_ = (head_ + 1) % ring_.size();
        count_--;
      }
    }
    const int64_t now = MonotonicNs();
    for (const Request& r : taken) Lookup(r, now);
    taken.clear();
    if (!pending_.empty()) Walk(now);
    const ProcTableStats& t = table_->stats();
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.walks = t.walks;
    stats_.fds = t.fds;
    stats_.cpu_ns = ThreadCpuNs();
  }
}

int64_t ProcessResolver::NextRoundNs(int64_t now_ns) {
  const uint64_t cpu = ThreadCpuNs();
  const double rate = static_cast<double>(config_.cpu_budget_ns) / 1e9;  // CPU ns earned per ns
  if (refilled_ns_ < 0) {
    tokens_ns_ = static_cast<double>(config_.cpu_burst_ns);
  } else {
    tokens_ns_ += static_cast<double>(now_ns - refilled_ns_) * rate;
    if (tokens_ns_ > static_cast<double>(config_.cpu_burst_ns)) tokens_ns_ = static_cast<double>(config_.cpu_burst_ns);
    tokens_ns_ -= static_cast<double>(cpu - charged_cpu_ns_);
  }
  refilled_ns_ = now_ns;
  charged_cpu_ns_ = cpu;
  if (tokens_ns_ >= 0 || rate <= 0) return now_ns;
  return now_ns + static_cast<int64_t>(-tokens_ns_ / rate) + 1;
}

bool ProcessResolver::IsLocal(const uint8_t* addr, int64_t now_ns) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& a : local_addrs_)
      if (std::memcmp(a.data(), addr, 16) == 0) return true;
    if (pass == 1 || (local_addrs_ns_ >= 0 && now_ns - local_addrs_ns_ < 100'000'000)) return false;
    local_addrs_ns_ = now_ns;
    local_addrs_.clear();
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return false;
    for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr) continue;
      std::array<uint8_t, 16> a{};
      if (i->ifa_addr->sa_family == AF_INET) {
        a[10] = 0xff;
        a[11] = 0xff;
        std::memcpy(a.data() + 12, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
      } else if (i->ifa_addr->sa_family == AF_INET6) {
        std::memcpy(a.data(), &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr, 16);
      } else {
        continue;
      }
      local_addrs_.push_back(a);
    }
    freeifaddrs(list);
  }
  return false;
}

void ProcessResolver::Lookup(const Request& r, int64_t now_ns) {
  // Only an end that is this host's can be a socket of ours. Asking for the responder's end of an outbound flow would
  // find a local server listening on the same port (the kernel's listener lookup does not check the address).
  const bool initiator_local = IsLocal(r.tuple.local, now_ns);
  const bool responder_local = IsLocal(r.tuple.remote, now_ns);
  if (!initiator_local && !responder_local) {
    r.slot->state.store(ProcessState::kUnresolved, std::memory_order_release);
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.foreign++;
    return;
  }
  SocketOwner owner;
  DiagResult res = initiator_local ? diag_->Lookup(r.tuple, &owner) : DiagResult::kNotFound;
  if (res != DiagResult::kFound && responder_local) {
    SocketTuple reversed;
    reversed.protocol = r.tuple.protocol;
    reversed.ipv6 = r.tuple.ipv6;
    std::memcpy(reversed.local, r.tuple.remote, 16);
    std::memcpy(reversed.remote, r.tuple.local, 16);
    reversed.local_port = r.tuple.remote_port;
    reversed.remote_port = r.tuple.local_port;
    res = diag_->Lookup(reversed, &owner);
  }
  if (res != DiagResult::kFound) {
    r.slot->state.store(ProcessState::kUnresolved, std::memory_order_release);
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.no_socket++;
    return;
  }
  // The cache alone (no walk): a process already known to hold this socket.
  const int32_t pid = table_->CachedPid(owner.inode);
  if (pid != 0) {
    Settle(r.slot, pid, now_ns);
    return;
  }
  pending_.push_back(Pending{r.slot, owner.inode, owner.uid});
}

void ProcessResolver::Walk(int64_t now_ns) {
  std::vector<ProcTable::Want> wants(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) {
    wants[i].inode = pending_[i].inode;
    wants[i].uid = pending_[i].uid;
  }
  table_->Find(&wants, now_ns);
  for (size_t i = 0; i < pending_.size(); ++i) Settle(pending_[i].slot, wants[i].pid, now_ns);
  pending_.clear();
}

void ProcessResolver::Settle(const std::shared_ptr<ProcessSlot>& slot, int32_t pid, int64_t now_ns) {
  std::shared_ptr<const ProcessInfo> info = pid != 0 ? table_->Info(pid, now_ns) : nullptr;
  if (info == nullptr) {
    slot->state.store(ProcessState::kUnresolved, std::memory_order_release);
    std::lock_guard<std::mutex> lock(stats_mu_);
    stats_.no_process++;
    return;
  }
  slot->info = std::move(info);
  slot->state.store(ProcessState::kResolved, std::memory_order_release);
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.resolved++;
}

}  // namespace vigil
