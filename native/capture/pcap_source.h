// PcapSource: the one place that talks to libpcap: opens a live device or a pcap/pcapng file, reads packets.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "decode/packet_view.h"
#include "flow/flow_key.h"

struct pcap;  // libpcap's pcap_t, kept out of this header

namespace vigil {

// Open failures, each with a message that says what to do. Codes map to JS `ERR_CAPTURE_*` (binding/errors.cpp).
enum class CaptureError : uint8_t {
  kNone = 0,
  kPermissionDenied,  // live capture without CAP_NET_RAW
  kNoSuchDevice,      // interface does not exist
  kFileUnreadable,    // missing file, no read permission, not a capture file
  kFileCorrupt,       // a capture file libpcap refuses (bad header, inconsistent pcapng)
  kBadFilter,         // BPF expression does not compile
  kDeviceFailure,     // anything else while opening/activating a device
  kReadFailure,       // error while reading (device went away, truncated file mid-record)
};

const char* CaptureErrorCode(CaptureError e);  // "ERR_CAPTURE_PERMISSION_DENIED", ...

struct LiveOptions {
  std::string device;    // empty = libpcap's default device
  int snaplen = 262144;  // bytes
  bool promiscuous = true;
  int buffer_size = 0;    // kernel buffer in bytes; 0 = libpcap default
  bool immediate = true;  // deliver packets as they arrive (no batching in the kernel)
  int timeout_ms = 100;   // how often the capture loop wakes without traffic (stats, expiry, flushes)
};

// Result of one Next() call.
enum class ReadResult : uint8_t { kPacket, kTimeout, kEnd, kBreak, kError };

struct RawPacket {
  int64_t ts_ns = 0;              // capture timestamp, ns since the epoch
  uint32_t caplen = 0;            // bytes available at data
  uint32_t wirelen = 0;           // original length on the wire
  const uint8_t* data = nullptr;  // owned by libpcap, valid until the next Next()
  // The frame already decoded (DecodePacket of data, with the source's link type), when the reader did it: the
  // read-ahead thread of a fast replay (PacketPrefetcher). nullptr otherwise. Valid as long as `data`.
  const PacketView* decoded = nullptr;
  DecodeStatus decode_status = DecodeStatus::kOk;  // DecodePacket's result for `decoded`
  // With `decoded`, the flow key the reader made (MakePacketKey), when the packet has one (else nullptr); and the key
  // hashes of the next packet and of the one kAheadFar after it, when they have one. The capture thread looks this
  // packet up with its key and prefetches the others' table entries.
  static constexpr int kAheadFar = 4;
  const PacketKey* key = nullptr;
  bool next_keyed = false;
  bool far_keyed = false;
  uint32_t next_hash = 0;
  uint32_t far_hash = 0;
};

struct PcapCounters {
  uint64_t received = 0;
  uint64_t dropped = 0;
  uint64_t if_dropped = 0;
};

// One capture device as libpcap lists it.
struct DeviceInfo {
  std::string name;
  std::string description;
  std::vector<std::string> addresses;  // IPv4/IPv6 addresses in text form
  bool loopback = false;
  bool up = false;
  bool running = false;
  bool wireless = false;
};

// Lists capture devices (pcap_findalldevs). On failure returns false with `error` set.
bool ListDevices(std::vector<DeviceInfo>* out, std::string* error);

// How an offline classic pcap file is laid out, for a reader that parses its records itself (PacketPrefetcher).
struct ClassicFileLayout {
  std::string path;
  bool swapped = false;  // records are in the other byte order
  bool nanos = false;    // sub-second field in ns (else µs)
  uint32_t snaplen = 0;  // records with a larger caplen are left to libpcap (it truncates or rejects them)
  int64_t first_record = 24;
};

// Owns one pcap_t. Open*() on any thread; Next() and Stats() on the reading thread; Break() from any thread.
class PcapSource {
 public:
  PcapSource() = default;
  ~PcapSource();
  PcapSource(const PcapSource&) = delete;
  PcapSource& operator=(const PcapSource&) = delete;

  // Each returns kNone on success; otherwise error() / message() explain.
  CaptureError OpenLive(const LiveOptions& options, const std::string& filter);
  CaptureError OpenFile(const std::string& path, const std::string& filter);

  ReadResult Next(RawPacket* out);
  // Makes a blocked Next() return kBreak (live: wakes its poll(); files: pcap_breakloop); safe from another thread.
  void Break();
  // Offline classic pcap (version 2.4) without a BPF filter: its layout, for reading records without libpcap's copies;
  // false otherwise (live, pcapng, a filter, an old version).
  bool classic_layout(ClassicFileLayout* out) const;
  // The libpcap file handle of an offline source (positioned after what libpcap has read), or nullptr. A direct
  // reader that stops mid-file seeks it to the next record and hands the rest of the file back to Next().
  std::FILE* offline_file() const;
  // libpcap counters (live only; zeros for files).
  PcapCounters Stats();
  void Close();

  bool live() const { return live_; }
  int link_type() const { return link_type_; }
  // Digits of sub-second precision of the source (6 = µs, 9 = ns) for printing timestamps.
  int ts_digits() const { return ts_digits_; }
  CaptureError error() const { return error_; }
  const std::string& message() const { return message_; }

 private:
  CaptureError Fail(CaptureError e, std::string message);
  CaptureError ApplyFilter(const std::string& filter, uint32_t netmask);

  pcap* handle_ = nullptr;
  bool classic_ = false;  // offline classic pcap v2.4 without a filter: layout_ is valid
  ClassicFileLayout layout_;
  bool live_ = false;
  bool nano_ = false;
  int link_type_ = 0;
  int ts_digits_ = 6;
  CaptureError error_ = CaptureError::kNone;
  std::string message_;
  std::string name_;      // device or file path, for messages
  int select_fd_ = -1;    // live: the device's pollable fd (pcap_get_selectable_fd)
  int wake_fd_ = -1;      // live: eventfd written by Break() to end a poll() early
  int timeout_ms_ = 100;  // live: poll() timeout
};

}  // namespace vigil
