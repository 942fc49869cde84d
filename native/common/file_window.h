// FileWindow: a read-only mapping of part of a file that survives the file shrinking under it.
//
// A replay reads its capture through windows of the file mapped into memory rather than with read(2): the kernel then
// no longer copies every byte out of the page cache (on the second capture bench input that copy was ~9% of the whole
// replay's CPU). The price of a mapping is that a page past the file's end, after another process truncated the file,
// cannot be read: the read raises SIGBUS, which would end the process. So every window is registered with a SIGBUS
// handler (installed once, chained to whatever handler was there before): a fault inside a registered window replaces
// the window's pages from the faulting one on with zero pages, marks the window lost and returns, and the read goes on
// with zeros. Whoever reads a window checks lost() and reports the file as changed under the replay; nothing crashes.
// A SIGBUS outside every window goes to the previous handler (by default: the process ends, as before).
//
// POSIX (Linux): mmap, sigaction. Map/Unmap on any thread; lost() on any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vigil {

class FileWindow {
 public:
  FileWindow() = default;
  ~FileWindow() { Unmap(); }
  FileWindow(const FileWindow&) = delete;
  FileWindow& operator=(const FileWindow&) = delete;

  // Maps `length` bytes of the open file `fd` from `offset` (a multiple of PageSize()), read-only, with its pages
  // populated now (on the calling thread, not at each first read). Unmaps the previous window first. Returns false,
  // with errno set, when mmap fails or kMaxWindows windows are mapped at once in the process (EMFILE).
  bool Map(int fd, int64_t offset, size_t length);
  void Unmap();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool mapped() const { return data_ != nullptr; }
  // True once a read in the window met a page the file no longer has (truncated, or an I/O error): that read and
  // every later read of the window from that page on gave zeros. Reset by Map/Unmap.
  bool lost() const;

  static size_t PageSize();
  // Windows that can be mapped at once in the whole process.
  static constexpr int kMaxWindows = 256;

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_size_ = 0;  // size_ rounded up to whole pages
  int slot_ = -1;           // the window's entry in the SIGBUS handler's table
};

}  // namespace vigil
