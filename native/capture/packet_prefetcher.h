// PacketPrefetcher: reads an offline capture on a helper thread into a bounded set of reusable chunks, so that reading
// the file overlaps flow work on the capture thread (fast replay only; live capture and paced replay read directly). A
// classic pcap file without a filter is mapped into memory a window at a time (FileWindow) and its records are used in
// place: no copy at all, where read(2) had the kernel copy every byte out of the page cache. Anything else goes through
// libpcap and is copied into the chunks. The helper also decodes every frame of a chunk (DecodePacket, stateless)
// before handing it over, so decoding runs beside the capture thread rather than on it: the capture thread is a
// replay's critical path, and decoding was ~10% of its time.
// No napi.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture/pcap_source.h"
#include "common/file_window.h"

namespace vigil {

class PacketPrefetcher {
 public:
  // `source` must be an opened offline source that outlives this object; only the helper thread reads it.
  // `flow_hash_seed`: the flow table's hash seed (FlowTable::hash_seed()), for the flow-key hashes of each frame.
  PacketPrefetcher(PcapSource* source, uint64_t flow_hash_seed);
  ~PacketPrefetcher();  // stops and joins the helper thread
  PacketPrefetcher(const PacketPrefetcher&) = delete;
  PacketPrefetcher& operator=(const PacketPrefetcher&) = delete;

  void Start();
  // Consumer thread only. Same contract as PcapSource::Next: out->data stays valid until the next call. Returns
  // kPacket, kEnd (end of file or stopped) or kError (see error()/message()) after the packets read before it.
  ReadResult Next(RawPacket* out);
  // Any thread: the helper stops reading soon and Next() returns kEnd once the chunks in hand are consumed.
  void Stop();

  // Valid after Next() returned kError.
  CaptureError error() const { return lost_ ? CaptureError::kReadFailure : error_; }
  const std::string& message() const { return lost_ ? lost_message_ : message_; }

 private:
  struct Chunk {
    // The chunk's bytes: a window of the mapped file (the direct reader), or, for libpcap's records, `bytes`
    // (allocated on first use) filled up to `used`.
    FileWindow window;
    int64_t window_offset = 0;  // the window's offset in the file
    std::unique_ptr<uint8_t[]> bytes;
    size_t used = 0;
    bool last = false;  // the helper's final chunk
    // The chunk's records in order, decoded by the helper (their pointers point into the window or `bytes`).
    struct Frame {
      const uint8_t* data;
      int64_t ts_ns;
      uint32_t caplen;
      uint32_t wirelen;
      PacketView view;
      DecodeStatus status;
      bool keyed;     // the flow table keys it (decoded, and not a later fragment)
      PacketKey key;  // MakePacketKey(view, the table's seed) when keyed
    };
    std::vector<Frame> frames;
    size_t frame_count = 0;  // frames written by the helper (the vector only grows, to be reused)
    size_t next_frame = 0;   // consumer: the next frame to hand out
  };
  static constexpr size_t kChunkBytes = 1 << 19;   // libpcap's records: > any record (snaplen 262144 + header)
  static constexpr size_t kWindowBytes = 1 << 20;  // a mapped window: > any record and its page
  static constexpr size_t kMaxFrames = 4096;       // per chunk, bounding the frames' memory (~0.9 MiB a chunk)
  static constexpr size_t kChunks = 4;             // bounds memory: 4 windows of the file in flight

  void ReaderLoop();
  // Helper: decodes the record whose frame starts at `frame` into the chunk's next Frame.
  void DecodeInto(Chunk* c, const uint8_t* frame, uint32_t caplen, uint32_t wirelen, int64_t ts_ns);
  // The direct reader: returns true when it read the whole file (or stopped), false when it left the rest to libpcap
  // (`*c` is then the chunk to go on filling, and libpcap's file handle was moved to the first record it left).
  bool MappedLoop(Chunk** c);
  // Helper: ends the replay with an error after the records of `c` (its last chunk).
  void FinishWithError(Chunk* c, CaptureError error, std::string message);
  void LibpcapLoop(Chunk* c);
  Chunk* TakeFree();            // helper: waits for a free chunk; nullptr when stopped
  void PushFull(Chunk* chunk);  // helper
  void Release(Chunk* chunk);   // consumer: chunk back to the free list

  PcapSource* source_;
  int link_type_;  // the source's, read once (the helper decodes with it)
  uint64_t flow_hash_seed_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Chunk>> storage_;
  std::vector<Chunk*> free_;                  // guarded by mu_
  std::vector<Chunk*> full_;                  // guarded by mu_, FIFO via full_head_
  size_t full_head_ = 0;                      // guarded by mu_
  bool stop_ = false;                         // guarded by mu_
  Chunk* current_ = nullptr;                  // consumer only
  bool finished_ = false;                     // consumer only: the last chunk was consumed
  CaptureError error_ = CaptureError::kNone;  // written by the helper before it pushes its last chunk
  std::string message_;
  // Consumer: a window it read was lost (the file shrank under the replay), so the replay ends with an error.
  bool lost_ = false;
  std::string lost_message_;
  std::string path_;  // the file's path, for messages
};

}  // namespace vigil
