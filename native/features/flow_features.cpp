// FlowFeatures: O(1) per-packet updates of the per-flow statistics.
#include "features/flow_features.h"

#include <cmath>
#include <new>
#include <type_traits>

namespace vigil {

double RunningStat::PopulationStd() const {
  if (n < 2) return 0;
  double var = m2 / n;
  return var > 0 ? std::sqrt(var) : 0;
}

void FlowFeatures::Start(const PacketView& v, int64_t ts_ns, int64_t activity_timeout_ns) {
  // Value-initialized in place: `*this = FlowFeatures()` zeroed a 728-byte temporary and then copied it over, two
  // `rep` string operations per new flow (perf annotate; bench/README.md, Capture). The type is trivially
  // destructible, so constructing over the old value ends its lifetime without a destructor call.
  static_assert(std::is_trivially_destructible<FlowFeatures>::value, "Start constructs over the old value");
  new (this) FlowFeatures();
  first_ns = last_ns = ts_ns;
  active_start_ns = active_end_ns = ts_ns;
  last_dir_ns[kFwd] = ts_ns;
  Add(v, kFwd, ts_ns, activity_timeout_ns);
}

void FlowFeatures::Add(const PacketView& v, Direction dir, int64_t ts_ns, int64_t activity_timeout_ns) {
  const bool first_of_flow = packets[kFwd] + packets[kBwd] == 0;
  const bool first_of_dir = packets[dir] == 0;
  if (ts_ns < last_ns) ts_ns = last_ns;  // out-of-order timestamps: never negative IATs

  if (!first_of_flow) {
    iat_all.Add(static_cast<double>(ts_ns - last_ns));
    // Active/idle bookkeeping (CICFlowMeter updateActiveIdleTime).
    if (ts_ns - active_end_ns > activity_timeout_ns) {
      if (active_end_ns - active_start_ns > 0) active.Add(static_cast<double>(active_end_ns - active_start_ns));
      idle.Add(static_cast<double>(ts_ns - active_end_ns));
      active_start_ns = ts_ns;
    }
    active_end_ns = ts_ns;
  }
  if (!first_of_dir) iat_dir[dir].Add(static_cast<double>(ts_ns - last_dir_ns[dir]));

  if (early_count < kEarlyPackets) {
    early_dir[early_count] = dir;
    early_size[early_count] = v.ip_bytes;
    early_iat_ns[early_count] = first_of_flow ? 0 : ts_ns - last_ns;
    ++early_count;
  }

  const uint32_t hdr = HeaderBytes(v);
  packets[dir] += 1;
  bytes[dir] += v.ip_bytes;
  payload_bytes[dir] += v.payload_bytes;
  header_bytes[dir] += hdr;
  len_all.Add(v.payload_bytes);
  len_dir[dir].Add(v.payload_bytes);

  if (v.protocol == 6 && v.has_ports) {
    // Only the flags set (one or two on most segments: ACK, PSH).
    for (unsigned f = v.tcp_flags; f != 0; f &= f - 1) flags[dir][__builtin_ctz(f)]++;
    if (init_win[dir] < 0) init_win[dir] = v.tcp_window;
  }
  if (dir == kFwd) {
    if (v.payload_bytes >= 1) fwd_act_data_pkts += 1;
    if (first_of_dir || v.l4_header_bytes < fwd_seg_size_min) fwd_seg_size_min = v.l4_header_bytes;
  }

  // Covert bytes come only with an options header or an anomaly (data after No Next Header): two fields tell.
  if ((v.ipv6_option_headers | v.ipv6_anomalies) != 0) AddIpv6Options(v, dir);

  last_ns = ts_ns;
  last_dir_ns[dir] = ts_ns;
}

void FlowFeatures::AddIpv6Options(const PacketView& v, Direction dir) {
  if (v.ipv6_option_headers != 0) ipv6_option_packets++;
  if (v.ipv6_anomalies != 0) ipv6_anomaly_packets++;
  ipv6_anomalies |= v.ipv6_anomalies;
  ipv6_covert_bytes[dir] += v.ipv6_covert_bytes;
  if (v.ipv6_covert_bytes > ipv6_covert_max) ipv6_covert_max = v.ipv6_covert_bytes;
}

void FlowFeatures::Finish(bool count_last_active) {
  if (count_last_active && active_end_ns - active_start_ns > 0)
    active.Add(static_cast<double>(active_end_ns - active_start_ns));
  active_start_ns = active_end_ns;
}

}  // namespace vigil
