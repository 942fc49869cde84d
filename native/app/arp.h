// ARP (RFC 826) for Ethernet/IPv4, summarised per (IP, MAC) binding: op counts and first/last seen. Layer 2 has no
// flows, so bindings are handed to JS in their own batches. Capture thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace vigil {

enum class ArpStatus : uint8_t { kOk = 0, kTruncated, kUnsupported, kBadOp, kCount };
const char* ArpStatusName(ArpStatus s);  // "arp_truncated", ...

struct ArpMessage {
  uint16_t op = 0;  // 1 request, 2 reply
  uint8_t sender_mac[6] = {};
  uint8_t sender_ip[4] = {};
  uint8_t target_mac[6] = {};
  uint8_t target_ip[4] = {};
};

// Parses an ARP packet (the bytes after the ethertype 0x0806). Only htype 1 / ptype 0x0800 / 6 / 4 is read.
ArpStatus ParseArp(const uint8_t* data, uint32_t len, ArpMessage* out);

// New-target times an ArpBinding carries at most (the latest, when more arrived between two drains).
constexpr uint32_t kArpNewTargetTimesKept = 64;

struct ArpBinding {
  uint8_t sender_mac[6];
  uint8_t sender_ip[4];
  uint8_t target_ip[4];  // of the latest message
  uint64_t requests = 0;
  uint64_t replies = 0;
  // Runs of consecutive requests for the same target IP, gratuitous ones aside: 1 for a host that keeps asking for one
  // address, N for a sender sweeping N addresses (what an ARP scan leaves; one compare per request, no per-target
  // state).
  uint64_t target_runs = 0;
  uint8_t run_target_ip[4] = {};  // target of the current run
  // Requests, gratuitous ones aside, for a target that is not among the binding's ArpTable::kRecentTargets most
  // recently asked distinct targets: N for a sender sweeping N addresses, and once per neighbour for a gateway or a
  // host refreshing the same neighbours over and over (which target_runs counts at every alternation).
  uint64_t new_targets = 0;
  // Capture times of the new targets since the previous drain, oldest first (the latest kArpNewTargetTimesKept when
  // more came): a drain once a wall-clock second hands a fast replay's whole capture over at one moment, and these
  // let a detector's windows see when each target was asked for. Only drained bindings carry them.
  uint32_t new_target_times = 0;
  int64_t new_target_times_ns[kArpNewTargetTimesKept] = {};
  // Messages whose sender IP equals their target IP (gratuitous ARP: announcements, or unsolicited claims).
  uint64_t gratuitous = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
};

// Aggregates messages per (sender IP, sender MAC), bounded; Drain hands out the bindings that changed since the
// last drain (at most `max` per call) and keeps them for later counting.
class ArpTable {
 public:
  // Distinct targets each binding remembers for ArpBinding::new_targets (a LAN's neighbours; 256 bytes per binding).
  static constexpr uint32_t kRecentTargets = 64;
  explicit ArpTable(uint32_t capacity);
  ~ArpTable();
  void Add(const ArpMessage& m, int64_t ts_ns);
  // Appends changed bindings to out (their counters are totals since first seen). Returns how many were appended.
  size_t Drain(std::vector<ArpBinding>* out, size_t max);
  uint64_t evictions() const { return evictions_; }
  size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t evictions_ = 0;
};

}  // namespace vigil
