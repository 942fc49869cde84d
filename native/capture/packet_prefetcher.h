// PacketPrefetcher: reads an offline capture on a helper thread into reusable chunks, so that reading the file
// overlaps flow work on the capture thread (fast replay only; live capture and paced replay read directly). A classic
// pcap file without a filter is read straight into the chunks in large blocks and its records are used in place (one
// copy, by the kernel); anything else goes through libpcap and is copied into the chunks. The helper also decodes
// every frame of a chunk (DecodePacket, stateless) before handing it over, so decoding runs beside the capture
// thread rather than on it: the capture thread is a replay's critical path, and decoding was ~10% of its time.
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

  CaptureError error() const { return error_; }  // valid after Next() returned kError
  const std::string& message() const { return message_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    size_t used = 0;      // bytes written by the helper
    size_t read_pos = 0;  // bytes consumed by the consumer
    bool last = false;    // the helper's final chunk
    // The frames of the records in [0, used), decoded in order by the helper (their pointers point into `bytes`).
    struct Frame {
      PacketView view;
      DecodeStatus status;
      bool keyed;     // the flow table keys it (decoded, and not a later fragment)
      PacketKey key;  // MakePacketKey(view, the table's seed) when keyed
    };
    std::vector<Frame> frames;
    size_t frame_count = 0;  // frames written by the helper (the vector only grows, to be reused)
    size_t next_frame = 0;   // consumer: the frame of the next record
  };
  static constexpr size_t kChunkBytes = 1 << 19;  // > any record (snaplen 262144 + header)
  static constexpr size_t kChunks = 4;            // bounds memory: 2 MiB in flight

  void ReaderLoop();
  // Helper: decodes the record whose frame starts at `frame` into the chunk's next Frame.
  void DecodeInto(Chunk* c, const uint8_t* frame, uint32_t caplen, uint32_t wirelen);
  // The direct reader: returns true when it read the whole file, false when it stopped (`*c` is then the chunk to go
  // on filling, nullptr when stopped) and libpcap's file handle was moved to the first record it left.
  bool DirectLoop(Chunk** c);
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
};

}  // namespace vigil
