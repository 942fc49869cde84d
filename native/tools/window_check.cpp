// window_check: a file shrinking under a mapped window (common/file_window.h) is an error the reader sees, not the end
// of the process; and a SIGBUS that is not about a window still does what it did before the handler was installed.
// Checks, each printed as a JSON field, all true for exit 0:
//   zeros_after_truncation - a window over a file cut to a third: the first third reads the file's bytes, every byte
//                            after it reads 0, and lost() turns true (only) after the first read past the cut;
//   remap_fresh            - the next window of the same slot reads the file and is not lost;
//   slots_reused           - 3 x kMaxWindows windows mapped and unmapped in turn (the table does not leak);
//   other_sigbus_kills     - in a child, a SIGBUS from a plain mapping (not a window) ends it with SIGBUS;
//   sent_sigbus_kills      - in a child, kill(getpid(), SIGBUS) ends it with SIGBUS.
// Meant for test/native/file-window.test.ts and for the sanitizers (scripts/asan.sh).
// Usage: window_check DIR   (a directory to write scratch files in)
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/file_window.h"

namespace {

bool WriteFile(const std::string& path, size_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(1 + i % 251);  // never 0
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool ok = write(fd, data.data(), bytes) == static_cast<ssize_t>(bytes);
  close(fd);
  return ok;
}

bool ZerosAfterTruncation(const std::string& path, bool* remap_fresh) {
  const size_t page = vigil::FileWindow::PageSize();
  const size_t bytes = 48 * page;
  const size_t cut = 16 * page;
  if (!WriteFile(path, bytes)) return false;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  vigil::FileWindow w;
  bool ok = w.Map(fd, 0, bytes) && !w.lost();
  if (ok && truncate(path.c_str(), static_cast<off_t>(cut)) != 0) ok = false;
  // Read the kept part: the file's bytes, nothing lost.
  const volatile uint8_t* p = w.data();
  for (size_t i = 0; ok && i < cut; ++i) ok = p[i] == 1 + i % 251;
  ok = ok && !w.lost();
  // Past the cut: zeros, and the window is lost from the first read on.
  for (size_t i = cut; ok && i < bytes; ++i) {
    ok = p[i] == 0;
    if (ok && !w.lost()) ok = false;
  }
  // A new window over what the file still has is read as it is.
  *remap_fresh = false;
  if (ok && WriteFile(path, bytes)) {
    *remap_fresh = w.Map(fd, static_cast<int64_t>(page), 4 * page) && !w.lost() && w.data()[0] == 1 + page % 251 &&
                   w.data()[4 * page - 1] == 1 + (5 * page - 1) % 251 && !w.lost();
  }
  w.Unmap();
  close(fd);
  return ok;
}

bool SlotsReused(const std::string& path) {
  const size_t page = vigil::FileWindow::PageSize();
  if (!WriteFile(path, 2 * page)) return false;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = true;
  for (int i = 0; ok && i < 3 * vigil::FileWindow::kMaxWindows; ++i) {
    vigil::FileWindow w;
    ok = w.Map(fd, 0, 2 * page) && w.data()[page] == 1 + page % 251;
  }
  // And at most kMaxWindows at once.
  std::vector<vigil::FileWindow> all(vigil::FileWindow::kMaxWindows + 1);
  int mapped = 0;
  for (auto& w : all) mapped += w.Map(fd, 0, page) ? 1 : 0;
  ok = ok && mapped == vigil::FileWindow::kMaxWindows;
  close(fd);
  return ok;
}

// Runs `body` in a child process; true when the child ended by SIGBUS.
template <typename F>
bool ChildDiesOfSigbus(F body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    body();
    _exit(0);  // survived
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: window_check DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::string a = dir + "/window_check_a.bin";
  const std::string b = dir + "/window_check_b.bin";
  const std::string c = dir + "/window_check_c.bin";
  bool remap_fresh = false;
  const bool zeros = ZerosAfterTruncation(a, &remap_fresh);
  const bool slots = SlotsReused(b);
  // The handler is installed by now (the windows above). A plain mapping's lost page is not ours.
  const size_t page = vigil::FileWindow::PageSize();
  const bool other = WriteFile(c, 4 * page) && ChildDiesOfSigbus([&] {
                       const int fd = open(c.c_str(), O_RDONLY | O_CLOEXEC);
                       void* m = mmap(nullptr, 4 * page, PROT_READ, MAP_PRIVATE, fd, 0);
                       if (m == MAP_FAILED || ftruncate(open(c.c_str(), O_WRONLY | O_CLOEXEC), 0) != 0) return;
                       const volatile uint8_t* p = static_cast<const uint8_t*>(m);
                       (void)p[2 * page];
                     });
  const bool sent = ChildDiesOfSigbus([] { kill(getpid(), SIGBUS); });
  unlink(a.c_str());
  unlink(b.c_str());
  unlink(c.c_str());
  const bool all = zeros && remap_fresh && slots && other && sent;
  std::printf(
      "{\"zeros_after_truncation\":%s,\"remap_fresh\":%s,\"slots_reused\":%s,\"other_sigbus_kills\":%s,"
      "\"sent_sigbus_kills\":%s}\n",
      zeros ? "true" : "false", remap_fresh ? "true" : "false", slots ? "true" : "false", other ? "true" : "false",
      sent ? "true" : "false");
  return all ? 0 : 1;
}
