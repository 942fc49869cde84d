// FileWindow: read-only file windows whose lost pages read as zeros instead of raising SIGBUS.
#include "common/file_window.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace vigil {

namespace {

// One registered window. The handler reads the table without a lock (a signal handler can take none): `begin` is
// published last and cleared first, so a handler that sees a window's begin also sees its end.
struct Slot {
  std::atomic<bool> taken{false};
  std::atomic<uintptr_t> begin{0};  // 0: no window
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> lost{false};
};
static_assert(std::atomic<uintptr_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the SIGBUS handler needs lock-free atomics");

Slot g_slots[FileWindow::kMaxWindows];
struct sigaction g_previous;
uintptr_t g_page_mask = 0;
bool g_installed = false;
std::once_flag g_install_once;

// Passes a SIGBUS that is not ours on as if our handler had never been installed.
void ChainSigbus(int sig, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: restore it and raise again. SIGBUS is blocked in this handler, so the signal waits for the
  // return, where it ends the process (a fault's faulting access would also raise it again).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGBUS, &dfl, nullptr);
  raise(SIGBUS);
}

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // Only a fault the kernel raised (si_code > 0) has an address; a SIGBUS sent with kill() is never ours.
  if (info != nullptr && info->si_code > 0) {
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot& s : g_slots) {
      const uintptr_t begin = s.begin.load(std::memory_order_acquire);
      if (begin == 0 || addr < begin) continue;
      const uintptr_t end = s.end.load(std::memory_order_relaxed);
      if (addr >= end) continue;
      // The rest of the window, from the faulting page on, becomes zero pages: this read and every later one in it
      // succeed (mmap is a plain system call, safe here).
      const uintptr_t page = addr & g_page_mask;
      void* zero =
          mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (zero == MAP_FAILED) break;  // cannot recover: as if the window were not ours
      s.lost.store(true, std::memory_order_release);
      errno = saved_errno;
      return;
    }
  }
  errno = saved_errno;
  ChainSigbus(sig, info, context);
}

void Install() {
  g_page_mask = ~(static_cast<uintptr_t>(FileWindow::PageSize()) - 1);
  struct sigaction sa {};
  sa.sa_sigaction = OnSigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  g_installed = sigaction(SIGBUS, &sa, &g_previous) == 0;
}

}  // namespace

size_t FileWindow::PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

bool FileWindow::Map(int fd, int64_t offset, size_t length) {
  Unmap();
  std::call_once(g_install_once, Install);
  if (!g_installed) {
    errno = ENOTSUP;
    return false;
  }
  int slot = -1;
  for (int i = 0; i < kMaxWindows && slot < 0; ++i) {
    bool expected = false;
    if (g_slots[i].taken.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) slot = i;
  }
  if (slot < 0) {
    errno = EMFILE;
    return false;
  }
  void* p = mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED) {
    const int e = errno;
    g_slots[slot].taken.store(false, std::memory_order_release);
    errno = e;
    return false;
  }
  const size_t page = PageSize();
  data_ = static_cast<uint8_t*>(p);
  size_ = length;
  mapped_size_ = (length + page - 1) / page * page;
  slot_ = slot;
  Slot& s = g_slots[slot];
  s.lost.store(false, std::memory_order_relaxed);
  s.end.store(reinterpret_cast<uintptr_t>(p) + mapped_size_, std::memory_order_relaxed);
  s.begin.store(reinterpret_cast<uintptr_t>(p), std::memory_order_release);
  return true;
}

void FileWindow::Unmap() {
  if (data_ == nullptr) return;
  Slot& s = g_slots[slot_];
  s.begin.store(0, std::memory_order_release);
  s.end.store(0, std::memory_order_relaxed);
  munmap(data_, mapped_size_);
  s.lost.store(false, std::memory_order_relaxed);
  s.taken.store(false, std::memory_order_release);
  data_ = nullptr;
  size_ = 0;
  mapped_size_ = 0;
  slot_ = -1;
}

bool FileWindow::lost() const { return slot_ >= 0 && g_slots[slot_].lost.load(std::memory_order_acquire); }

}  // namespace vigil
