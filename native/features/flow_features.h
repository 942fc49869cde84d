// FlowFeatures: the per-flow statistics (CICFlowMeter-style) updated in O(1) per packet. No I/O, no napi.
#pragma once

#include <cstdint>

#include "decode/packet_view.h"

namespace vigil {

// Running count/sum/min/max/mean/variance (Welford), O(1) per sample, no allocation.
struct RunningStat {
  double n = 0;
  double sum = 0;
  double mean = 0;
  double m2 = 0;   // sum of squared deviations from the mean
  double min = 0;  // 0 while n == 0
  double max = 0;

  void Add(double x) {
    n += 1;
    sum += x;
    double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
    if (n == 1 || x < min) min = x;
    if (n == 1 || x > max) max = x;
  }
  // Population standard deviation (divide by n); 0 for fewer than 2 samples.
  double PopulationStd() const;
};

constexpr int kEarlyPackets = 8;  // early-flow features cover the first 8 packets
enum Direction : uint8_t { kFwd = 0, kBwd = 1 };

// Flag index order used by FlowFeatures::flags: FIN SYN RST PSH ACK URG ECE CWR (wire bits 0..7 in that order).
constexpr int kTcpFlagCount = 8;

// Everything Vigil measures about one flow. Times are nanoseconds since the epoch (packet timestamps); durations
// and inter-arrival times are nanoseconds. "Length" is the L4 payload of a packet (from the IP/L4 length fields),
// "bytes" are IP-layer bytes. Direction kFwd = from the initiator (sender of the first packet).
struct FlowFeatures {
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  int64_t last_dir_ns[2] = {0, 0};  // last packet time per direction (for per-direction IAT)

  double packets[2] = {0, 0};
  double bytes[2] = {0, 0};          // IP-layer bytes
  double payload_bytes[2] = {0, 0};  // L4 payload bytes
  double header_bytes[2] = {0, 0};   // L3 + L4 header bytes

  RunningStat len_all, len_dir[2];  // payload length per packet, bytes
  RunningStat iat_all, iat_dir[2];  // inter-arrival times, ns

  uint32_t flags[2][kTcpFlagCount] = {};
  int32_t init_win[2] = {-1, -1};  // TCP window of the first TCP packet per direction; -1 if none
  double fwd_act_data_pkts = 0;    // fwd packets with payload >= 1
  double fwd_seg_size_min = 0;     // minimum fwd L4 header bytes (CIC "Fwd Seg Size Min"), 0 when no fwd packet

  // Active/idle periods (CICFlowMeter): a gap longer than the activity timeout ends an active period.
  int64_t active_start_ns = 0;
  int64_t active_end_ns = 0;
  RunningStat active, idle;  // ns

  uint8_t early_count = 0;
  uint8_t early_dir[kEarlyPackets] = {};
  uint32_t early_size[kEarlyPackets] = {};   // IP-layer bytes
  int64_t early_iat_ns[kEarlyPackets] = {};  // from the previous packet of the flow; 0 for the first

  // IPv6 extension-header inspection (PacketView ipv6_*), summed over the flow's packets; zero for IPv4 flows.
  uint32_t ipv6_option_packets = 0;      // packets with a hop-by-hop or destination options header
  uint32_t ipv6_anomaly_packets = 0;     // packets with at least one Ipv6Anomaly
  uint16_t ipv6_anomalies = 0;           // Ipv6Anomaly bits of every packet, OR-ed
  uint32_t ipv6_covert_max = 0;          // covert bytes of the packet that carried the most
  double ipv6_covert_bytes[2] = {0, 0};  // covert bytes per direction

  // Starts the flow with its first packet (direction kFwd by definition).
  void Start(const PacketView& v, int64_t ts_ns, int64_t activity_timeout_ns);
  // Adds one packet in direction `dir`. ts_ns may go backwards slightly in real captures; IATs clamp at 0.
  void Add(const PacketView& v, Direction dir, int64_t ts_ns, int64_t activity_timeout_ns);
  // The IPv6 options fields of a packet that carried an options header or an anomaly (kept out of Add's hot path).
  void AddIpv6Options(const PacketView& v, Direction dir);
  // Closes the last active period (call once when the flow ends, before reading active stats). As CICFlowMeter
  // does, a flow ended by a TCP FIN/RST does not count its last active period (count_last_active = false).
  void Finish(bool count_last_active);
};

// Header bytes of a packet (L3 + L4 headers).
inline uint32_t HeaderBytes(const PacketView& v) { return uint32_t{v.l3_header_bytes} + v.l4_header_bytes; }

}  // namespace vigil
