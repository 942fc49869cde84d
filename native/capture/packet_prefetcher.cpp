// PacketPrefetcher: helper-thread file reading into a bounded set of reusable chunks.
#include "capture/packet_prefetcher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "capture/capture_thread.h"
#include "flow/flow_key.h"

namespace vigil {

namespace {
// A classic pcap record header: uint32 seconds, uint32 fraction (µs or ns), uint32 caplen, uint32 wirelen.
constexpr size_t kRecordHeader = 16;

// The error of a replay whose file lost bytes [from, to) under a mapped window (FileWindow::lost).
std::string ChangedUnderReplay(const std::string& path, int64_t from, int64_t to) {
  return "capture file " + path + " changed while it was being read: it no longer has bytes from " +
         std::to_string(from) + " to " + std::to_string(to) +
         " (truncated, or a read failed): what was read from there on may be zeros";
}

uint32_t Load32(const uint8_t* p, bool swapped) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return swapped ? __builtin_bswap32(v) : v;
}

// Closes a file descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};
}  // namespace

PacketPrefetcher::PacketPrefetcher(PcapSource* source, uint64_t flow_hash_seed)
    : source_(source), link_type_(source->link_type()), flow_hash_seed_(flow_hash_seed) {
  full_.reserve(kChunks);
  for (size_t i = 0; i < kChunks; ++i) {
    auto c = std::make_unique<Chunk>();
    free_.push_back(c.get());
    storage_.push_back(std::move(c));
  }
  ClassicFileLayout layout;
  if (source_->classic_layout(&layout)) path_ = layout.path;
}

PacketPrefetcher::~PacketPrefetcher() {
  Stop();
  if (thread_.joinable()) thread_.join();
}

void PacketPrefetcher::Start() {
  thread_ = std::thread([this] {
    NameThisThread("vigil-read");
    ReaderLoop();
  });
}

void PacketPrefetcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

PacketPrefetcher::Chunk* PacketPrefetcher::TakeFree() {
  Chunk* c;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_ || !free_.empty(); });
    if (stop_) return nullptr;
    c = free_.back();
    free_.pop_back();
  }
  c->window.Unmap();  // the consumer is done with it: out of the process's memory now, not at the next Map
  c->used = 0;
  c->last = false;
  c->frame_count = 0;
  c->next_frame = 0;
  return c;
}

void PacketPrefetcher::DecodeInto(Chunk* c, const uint8_t* frame, uint32_t caplen, uint32_t wirelen, int64_t ts_ns) {
  if (c->frame_count == c->frames.size()) c->frames.emplace_back();
  Chunk::Frame& f = c->frames[c->frame_count++];
  f.data = frame;
  f.ts_ns = ts_ns;
  f.caplen = caplen;
  f.wirelen = wirelen;
  f.status = DecodePacket(link_type_, frame, caplen, wirelen, f.view);
  // As CaptureThread::HandleDecoded and FlowTable::Process go: a decoded packet is keyed unless it is a later fragment.
  f.keyed = f.status == DecodeStatus::kOk && !(f.view.is_fragment && !f.view.is_first_fragment);
  if (f.keyed) MakePacketKey(f.view, flow_hash_seed_, &f.key);
}

void PacketPrefetcher::PushFull(Chunk* chunk) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    full_.push_back(chunk);
  }
  cv_.notify_all();
}

void PacketPrefetcher::Release(Chunk* chunk) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(chunk);
  }
  cv_.notify_all();
}

void PacketPrefetcher::FinishWithError(Chunk* c, CaptureError error, std::string message) {
  error_ = error;
  message_ = std::move(message);
  c->last = true;
  PushFull(c);
}

void PacketPrefetcher::ReaderLoop() {
  Chunk* c = TakeFree();
  if (c == nullptr) return;
  if (MappedLoop(&c)) return;
  if (c != nullptr) LibpcapLoop(c);
}

bool PacketPrefetcher::MappedLoop(Chunk** chunk) {
  ClassicFileLayout layout;
  std::FILE* rfile = source_->offline_file();
  if (!source_->classic_layout(&layout) || rfile == nullptr) return false;
  FdCloser fd{open(layout.path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st;
  if (fd.fd < 0 || fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;  // e.g. a pipe: libpcap reads it
  posix_fadvise(fd.fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // a file not in the page cache yet: read ahead further
  const auto page = static_cast<int64_t>(FileWindow::PageSize());
  int64_t file_size = st.st_size;
  int64_t pos = layout.first_record;  // file offset of the next record
  Chunk* c = *chunk;
  // Leaves the records from `pos` on to libpcap: it reports a truncated or oversized record as it always has.
  auto hand_to_libpcap = [&]() -> bool {
    if (std::fseek(rfile, static_cast<long>(pos), SEEK_SET) != 0) {
      FinishWithError(c, CaptureError::kReadFailure,
                      "cannot seek in capture file " + layout.path + ": " + std::strerror(errno));
      *chunk = nullptr;
      return true;
    }
    if (c->frame_count > 0) {
      PushFull(c);
      c = TakeFree();
    } else {
      c->window.Unmap();  // libpcap fills the chunk's own bytes
    }
    *chunk = c;  // nullptr when stopped
    return c == nullptr;
  };
  for (;;) {
    if (pos + static_cast<int64_t>(kRecordHeader) > file_size && fstat(fd.fd, &st) == 0) file_size = st.st_size;
    if (pos >= file_size) {  // every record read, the last one complete
      c->last = true;
      PushFull(c);
      *chunk = nullptr;
      return true;
    }
    // The window starts at the page of the next record.
    const int64_t start = pos / page * page;
    const auto length = static_cast<size_t>(std::min<int64_t>(kWindowBytes, file_size - start));
    if (!c->window.Map(fd.fd, start, length)) return hand_to_libpcap();
    c->window_offset = start;
    const uint8_t* b = c->window.data();
    auto off = static_cast<size_t>(pos - start);
    bool oversized = false;
    while (off + kRecordHeader <= length && c->frame_count < kMaxFrames) {
      const uint32_t caplen = Load32(b + off + 8, layout.swapped);
      if (caplen > layout.snaplen) {
        oversized = true;
        break;
      }
      if (off + kRecordHeader + caplen > length) break;
      const int64_t sec = static_cast<int32_t>(Load32(b + off, layout.swapped));
      const int64_t frac = static_cast<int32_t>(Load32(b + off + 4, layout.swapped));
      const uint32_t wirelen = Load32(b + off + 12, layout.swapped);
      const int64_t ts_ns = sec * 1000000000LL + (layout.nanos ? frac : frac * 1000);  // as libpcap scales it
      DecodeInto(c, b + off + kRecordHeader, caplen, wirelen, ts_ns);
      if (c->window.lost()) {  // the file shrank under the window: this record read (partly) zeros
        --c->frame_count;
        FinishWithError(c, CaptureError::kReadFailure,
                        ChangedUnderReplay(layout.path, pos, pos + static_cast<int64_t>(kRecordHeader + caplen)));
        *chunk = nullptr;
        return true;
      }
      off += kRecordHeader + caplen;
      pos = start + static_cast<int64_t>(off);
    }
    const bool window_at_end = start + static_cast<int64_t>(length) >= file_size;
    // A record larger than the snaplen, or one the file's end cuts short (unless the file has grown since): libpcap.
    if (oversized || c->frame_count == 0) {
      if (!oversized && window_at_end && fstat(fd.fd, &st) == 0 && st.st_size > file_size) {
        file_size = st.st_size;
        continue;
      }
      return hand_to_libpcap();
    }
    // Hand the window over; the next one starts at the next record.
    PushFull(c);
    c = TakeFree();
    *chunk = c;
    if (c == nullptr) return true;  // stopped: the consumer no longer waits for chunks
  }
}

void PacketPrefetcher::LibpcapLoop(Chunk* c) {
  RawPacket pkt;
  for (;;) {
    const ReadResult r = source_->Next(&pkt);
    if (r != ReadResult::kPacket) {
      if (r == ReadResult::kError) {
        error_ = source_->error();
        message_ = source_->message();
      }
      break;
    }
    if (c->used + pkt.caplen > kChunkBytes || c->frame_count == kMaxFrames) {
      PushFull(c);
      c = TakeFree();
      if (c == nullptr) return;  // stopped: the consumer no longer waits for chunks
    }
    if (c->bytes == nullptr) c->bytes.reset(new uint8_t[kChunkBytes]);
    uint8_t* p = c->bytes.get() + c->used;
    if (pkt.caplen > 0) std::memcpy(p, pkt.data, pkt.caplen);
    DecodeInto(c, p, pkt.caplen, pkt.wirelen, pkt.ts_ns);
    c->used += pkt.caplen;
  }
  c->last = true;
  PushFull(c);
}

ReadResult PacketPrefetcher::Next(RawPacket* out) {
  for (;;) {
    if (finished_) return lost_ || error_ != CaptureError::kNone ? ReadResult::kError : ReadResult::kEnd;
    if (current_ != nullptr) {
      const size_t k = current_->next_frame;
      if (k < current_->frame_count) {
        current_->next_frame = k + 1;
        const Chunk::Frame& f = current_->frames[k];
        out->ts_ns = f.ts_ns;
        out->caplen = f.caplen;
        out->wirelen = f.wirelen;
        out->data = f.data;
        out->decoded = &f.view;
        out->decode_status = f.status;
        out->key = f.keyed ? &f.key : nullptr;
        out->next_keyed = k + 1 < current_->frame_count && current_->frames[k + 1].keyed;
        if (out->next_keyed) out->next_hash = current_->frames[k + 1].key.hash;
        out->far_keyed = false;
        if (k + RawPacket::kAheadFar < current_->frame_count) {
          const Chunk::Frame& far = current_->frames[k + RawPacket::kAheadFar];
          out->far_keyed = far.keyed;
          if (far.keyed) out->far_hash = far.key.hash;
          // The frames were written on the reader's core: start moving a later one here.
          const auto* later = reinterpret_cast<const char*>(&far);
          for (size_t off = 0; off < sizeof(Chunk::Frame); off += 64) __builtin_prefetch(later + off);
        }
        // Start loading the next packet's first headers (link, IP, transport) now, while this one is handled.
        // Without this, the first read of each record was a cache miss and a fifth of the capture thread's time.
        if (k + 1 < current_->frame_count) {
          const uint8_t* next = current_->frames[k + 1].data;
          __builtin_prefetch(next);
          __builtin_prefetch(next + 64);
        }
        return ReadResult::kPacket;
      }
      const bool last = current_->last;
      // A page of the window was gone when this thread or the helper read it: the records read zeros from there.
      if (current_->window.lost()) {
        lost_ = true;
        lost_message_ = ChangedUnderReplay(path_, current_->window_offset,
                                           current_->window_offset + static_cast<int64_t>(current_->window.size()));
      }
      Release(current_);
      current_ = nullptr;
      if (last || lost_) {
        finished_ = true;  // error_ was written before the last chunk was pushed (ordered by mu_)
        continue;
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_ || full_head_ < full_.size(); });
    if (full_head_ == full_.size()) return ReadResult::kEnd;  // stopped with nothing left
    current_ = full_[full_head_++];
    if (full_head_ == full_.size()) {
      full_.clear();
      full_head_ = 0;
    }
  }
}

}  // namespace vigil
