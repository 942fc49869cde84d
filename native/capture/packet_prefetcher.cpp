// PacketPrefetcher: helper-thread file reading into a bounded set of reusable chunks.
#include "capture/packet_prefetcher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "capture/capture_thread.h"
#include "flow/flow_key.h"

namespace vigil {

namespace {
// Record layout inside a chunk (host order): int64 ts_ns, uint32 caplen, uint32 wirelen, caplen bytes. A pcap record
// header is as long (16 bytes), so the direct reader rewrites file records into this layout in place.
constexpr size_t kRecordHeader = 16;
size_t RecordBytes(uint32_t caplen) { return kRecordHeader + caplen; }

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
    c->bytes.reset(new uint8_t[kChunkBytes]);
    free_.push_back(c.get());
    storage_.push_back(std::move(c));
  }
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
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return stop_ || !free_.empty(); });
  if (stop_) return nullptr;
  Chunk* c = free_.back();
  free_.pop_back();
  c->used = 0;
  c->read_pos = 0;
  c->last = false;
  c->frame_count = 0;
  c->next_frame = 0;
  return c;
}

void PacketPrefetcher::DecodeInto(Chunk* c, const uint8_t* frame, uint32_t caplen, uint32_t wirelen) {
  if (c->frame_count == c->frames.size()) c->frames.emplace_back();
  Chunk::Frame& f = c->frames[c->frame_count++];
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

void PacketPrefetcher::ReaderLoop() {
  Chunk* c = TakeFree();
  if (c == nullptr) return;
  if (DirectLoop(&c)) return;
  if (c != nullptr) LibpcapLoop(c);
}

bool PacketPrefetcher::DirectLoop(Chunk** chunk) {
  ClassicFileLayout layout;
  std::FILE* rfile = source_->offline_file();
  if (!source_->classic_layout(&layout) || rfile == nullptr) return false;
  FdCloser fd{open(layout.path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st;
  if (fd.fd < 0 || fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;  // e.g. a pipe: libpcap reads it
  int64_t file_pos = layout.first_record;  // file offset of the chunk's first byte
  size_t carry = 0;                        // bytes of an incomplete record at the start of the chunk
  Chunk* c = *chunk;
  for (;;) {
    // Fill the chunk after the carried bytes.
    size_t filled = carry;
    bool eof = false;
    while (filled < kChunkBytes) {
      const ssize_t n = pread(fd.fd, c->bytes.get() + filled, kChunkBytes - filled, file_pos + filled);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof = true;  // end of file, or an error libpcap will meet and report at this offset
        break;
      }
      filled += static_cast<size_t>(n);
    }
    // Rewrite the complete records in place; stop at the first one libpcap must handle (larger than the snaplen).
    uint8_t* b = c->bytes.get();
    size_t pos = 0;
    bool handoff = false;
    while (pos + kRecordHeader <= filled) {
      const uint32_t caplen = Load32(b + pos + 8, layout.swapped);
      if (caplen > layout.snaplen) {
        handoff = true;
        break;
      }
      if (pos + kRecordHeader + caplen > filled) break;
      const int64_t sec = static_cast<int32_t>(Load32(b + pos, layout.swapped));
      const int64_t frac = static_cast<int32_t>(Load32(b + pos + 4, layout.swapped));
      const uint32_t wirelen = Load32(b + pos + 12, layout.swapped);
      const int64_t ts_ns = sec * 1000000000LL + (layout.nanos ? frac : frac * 1000);  // as libpcap scales it
      std::memcpy(b + pos, &ts_ns, 8);
      std::memcpy(b + pos + 8, &caplen, 4);
      std::memcpy(b + pos + 12, &wirelen, 4);
      DecodeInto(c, b + pos + kRecordHeader, caplen, wirelen);
      pos += kRecordHeader + caplen;
    }
    if (!handoff && eof && pos == filled) {  // the whole file, every record complete
      c->used = pos;
      c->last = true;
      PushFull(c);
      *chunk = nullptr;
      return true;
    }
    if (handoff || eof) {
      // A record for libpcap, or a truncated end it reports as libpcap does: libpcap goes on from that record.
      if (std::fseek(rfile, static_cast<long>(file_pos + static_cast<int64_t>(pos)), SEEK_SET) != 0) {
        error_ = CaptureError::kReadFailure;
        message_ = "cannot seek in capture file " + layout.path + ": " + std::strerror(errno);
        c->used = pos;
        c->last = true;
        PushFull(c);
        *chunk = nullptr;
        return true;
      }
      if (pos == 0) {  // nothing in this chunk: libpcap fills it
        c->frame_count = 0;
        *chunk = c;
        return false;
      }
      c->used = pos;
      PushFull(c);
      *chunk = TakeFree();
      return false;
    }
    // Chunk full: hand it over and carry the incomplete record to the next one.
    carry = filled - pos;
    Chunk* next = TakeFree();
    if (next == nullptr) return true;  // stopped: the consumer no longer waits for chunks
    std::memcpy(next->bytes.get(), b + pos, carry);
    c->used = pos;
    PushFull(c);
    file_pos += static_cast<int64_t>(pos);
    c = next;
    *chunk = c;
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
    const size_t need = RecordBytes(pkt.caplen);
    if (c->used + need > kChunkBytes) {
      PushFull(c);
      c = TakeFree();
      if (c == nullptr) return;  // stopped: the consumer no longer waits for chunks
    }
    uint8_t* p = c->bytes.get() + c->used;
    std::memcpy(p, &pkt.ts_ns, 8);
    std::memcpy(p + 8, &pkt.caplen, 4);
    std::memcpy(p + 12, &pkt.wirelen, 4);
    if (pkt.caplen > 0) std::memcpy(p + kRecordHeader, pkt.data, pkt.caplen);
    DecodeInto(c, p + kRecordHeader, pkt.caplen, pkt.wirelen);
    c->used += need;
  }
  c->last = true;
  PushFull(c);
}

ReadResult PacketPrefetcher::Next(RawPacket* out) {
  for (;;) {
    if (finished_) return error_ != CaptureError::kNone ? ReadResult::kError : ReadResult::kEnd;
    if (current_ != nullptr) {
      if (current_->read_pos < current_->used) {
        const uint8_t* p = current_->bytes.get() + current_->read_pos;
        std::memcpy(&out->ts_ns, p, 8);
        std::memcpy(&out->caplen, p + 8, 4);
        std::memcpy(&out->wirelen, p + 12, 4);
        out->data = p + kRecordHeader;
        const size_t k = current_->next_frame++;
        const Chunk::Frame& f = current_->frames[k];
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
        current_->read_pos += RecordBytes(out->caplen);
        // The next record was written by the kernel on the reader's core: start loading its header and first
        // headers (link, IP, transport) now, while this packet is decoded. Without this, the first read of each record
        // header was a cache miss and a fifth of the capture thread's time.
        if (current_->read_pos < current_->used) {
          const uint8_t* next = current_->bytes.get() + current_->read_pos;
          __builtin_prefetch(next);
          __builtin_prefetch(next + 64);
        }
        return ReadResult::kPacket;
      }
      const bool last = current_->last;
      Release(current_);
      current_ = nullptr;
      if (last) {
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
