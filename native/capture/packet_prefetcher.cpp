// PacketPrefetcher: helper-thread file reading into a bounded set of reusable chunks.
#include "capture/packet_prefetcher.h"

#include <cstring>

#include "capture/capture_thread.h"

namespace vigil {

namespace {
// Record layout inside a chunk (host order): int64 ts_ns, uint32 caplen, uint32 wirelen, caplen bytes, padding to 8.
constexpr size_t kRecordHeader = 16;
size_t RecordBytes(uint32_t caplen) { return kRecordHeader + ((static_cast<size_t>(caplen) + 7) & ~size_t{7}); }
}  // namespace

PacketPrefetcher::PacketPrefetcher(PcapSource* source) : source_(source) {
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
  return c;
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
        current_->read_pos += RecordBytes(out->caplen);
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
