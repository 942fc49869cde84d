// process_bench: the process resolver's cost at a steady rate of new connections. Opens TCP connections to a
// listener in a child process on 127.0.0.1 (each connection = one lookup, as the capture thread would ask at a flow's
// first packet), keeps the newest `--open` of them open (both ends), and reports the resolver thread's CPU time and
// how many lookups found this process (not the server's). Linux only.
// Usage: process_bench [--rate N/s] [--seconds S] [--open N] [--cpu-percent P]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "process/process_resolver.h"

using vigil::ProcessResolver;
using vigil::ProcessResolverConfig;
using vigil::ProcessSlot;
using vigil::ProcessState;

namespace {
void Mapped(uint32_t addr_be, uint8_t* out) {
  std::memset(out, 0, 16);
  out[10] = 0xff;
  out[11] = 0xff;
  std::memcpy(out + 12, &addr_be, 4);
}
}  // namespace

int main(int argc, char** argv) {
  double rate = 1000;
  double seconds = 5;
  size_t keep_open = 64;
  double cpu_percent = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rate") rate = std::atof(argv[i + 1]);
    if (a == "--seconds") seconds = std::atof(argv[i + 1]);
    if (a == "--open") keep_open = static_cast<size_t>(std::atoi(argv[i + 1]));
    if (a == "--cpu-percent") cpu_percent = std::atof(argv[i + 1]);
  }
  // The server end lives in a child process, so a lookup that finds the listener or an accepted socket (the server's
  // end) names another pid and does not count as attributed.
  int port_pipe[2];
  if (pipe(port_pipe) != 0) {
    std::perror("pipe");
    return 1;
  }
  const pid_t server = fork();
  if (server == 0) {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t a_len = sizeof a;
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener, 4096) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&a), &a_len) != 0)
      _exit(1);
    if (write(port_pipe[1], &a.sin_port, sizeof a.sin_port) != sizeof a.sin_port) _exit(1);
    std::deque<int> accepted;
    for (;;) {
      const int c = accept(listener, nullptr, nullptr);
      if (c < 0) continue;
      accepted.push_back(c);
      while (accepted.size() > keep_open) {
        close(accepted.front());
        accepted.pop_front();
      }
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (server < 0 || read(port_pipe[0], &addr.sin_port, sizeof addr.sin_port) != sizeof addr.sin_port) {
    std::fprintf(stderr, "process_bench: the server process did not start\n");
    return 1;
  }
  ProcessResolverConfig config;
  config.cpu_budget_ns = static_cast<int64_t>(cpu_percent * 1e7);
  config.cpu_burst_ns = 2 * config.cpu_budget_ns;
  ProcessResolver resolver{config};
  if (!resolver.Start()) {
    std::fprintf(stderr, "process_bench: netlink sock_diag unavailable\n");
    return 1;
  }
  std::vector<std::shared_ptr<ProcessSlot>> slots;
  std::deque<int> open;
  const auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / rate));
  const auto start = std::chrono::steady_clock::now();
  const size_t total = static_cast<size_t>(rate * seconds);
  auto next = start;
  // The steady state: from 2 s in (past the budget's initial burst) to the end.
  const size_t steady_from = static_cast<size_t>(rate * 2) < total / 2 ? static_cast<size_t>(rate * 2) : total / 2;
  uint64_t steady_cpu0 = 0;
  auto steady_t0 = start;
  for (size_t n = 0; n < total; ++n) {
    if (n == steady_from) {
      steady_cpu0 = resolver.Stats().cpu_ns;
      steady_t0 = std::chrono::steady_clock::now();
    }
    std::this_thread::sleep_until(next);
    next += period;
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    if (c < 0 || connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      std::perror("connect");
      return 1;
    }
    sockaddr_in local{};
    socklen_t local_len = sizeof local;
    getsockname(c, reinterpret_cast<sockaddr*>(&local), &local_len);
    uint8_t a[16];
    uint8_t b[16];
    Mapped(local.sin_addr.s_addr, a);
    Mapped(addr.sin_addr.s_addr, b);
    slots.push_back(resolver.Submit(6, false, a, ntohs(local.sin_port), b, ntohs(addr.sin_port)));
    open.push_back(c);
    while (open.size() > keep_open) {
      close(open.front());
      open.pop_front();
    }
  }
  // Let the last lookups settle (bounded wait); the resolver's CPU share is over the whole span, settling included.
  for (int i = 0; i < 300; ++i) {
    bool pending = false;
    for (const auto& slot : slots)
      if (slot && slot->state.load() == ProcessState::kPending) pending = true;
    if (!pending) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto end = std::chrono::steady_clock::now();
  const double wall_s = std::chrono::duration<double>(end - start).count();
  const double steady_s = std::chrono::duration<double>(end - steady_t0).count();
  size_t right = 0;
  size_t wrong = 0;
  for (const auto& slot : slots) {
    const vigil::ProcessInfo* p = vigil::ResolvedProcess(slot.get());
    if (p != nullptr) (p->pid == getpid() ? right : wrong)++;
  }
  const vigil::ProcessResolverStats st = resolver.Stats();
  resolver.Stop();
  std::printf(
      "{\"connections\":%zu,\"ratePerSec\":%.0f,\"keptOpen\":%zu,\"cpuBudgetPercent\":%.2f,\"wallSec\":%.3f,"
      "\"attributed\":%zu,\"wrongPid\":%zu,"
      "\"resolverCpuMs\":%.3f,\"resolverCpuPercentOfCore\":%.3f,\"steadyCpuPercentOfCore\":%.3f,\"cpuUsPerConnection\":"
      "%.2f,\"walks\":%llu,"
      "\"fdLinksRead\":%llu,\"noSocket\":%llu,\"noProcess\":%llu,\"dropped\":%llu}\n",
      total, rate, keep_open, cpu_percent, wall_s, right, wrong, st.cpu_ns / 1e6, st.cpu_ns / 1e9 / wall_s * 100.0,
      (st.cpu_ns - steady_cpu0) / 1e9 / steady_s * 100.0, total ? st.cpu_ns / 1e3 / total : 0.0,
      static_cast<unsigned long long>(st.walks), static_cast<unsigned long long>(st.fds),
      static_cast<unsigned long long>(st.no_socket), static_cast<unsigned long long>(st.no_process),
      static_cast<unsigned long long>(st.dropped));
  for (const int c : open) close(c);
  kill(server, SIGKILL);
  waitpid(server, nullptr, 0);
  return 0;
}
