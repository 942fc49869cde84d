// BatchEncoder: flow entries -> struct-of-arrays bytes (see batch_encoder.h for the layout).
#include "binding/batch_encoder.h"

#include <cstring>

namespace vigil {

const char* const kF64ColumnNames[kF64ColumnCount] = {
    "id", "srcPort", "dstPort", "protocol", "ipVersion", "vlanOuter", "vlanInner",
    "firstSec", "firstNsec", "lastSec", "lastNsec", "durationUs", "endReason",
    "packets", "bytes", "fwdPackets", "bwdPackets", "fwdBytes", "bwdBytes",
    "fwdPayloadBytes", "bwdPayloadBytes", "fwdHeaderBytes", "bwdHeaderBytes",
    "pktLenMin", "pktLenMax", "pktLenMean", "pktLenStd",
    "fwdPktLenMin", "fwdPktLenMax", "fwdPktLenMean", "fwdPktLenStd",
    "bwdPktLenMin", "bwdPktLenMax", "bwdPktLenMean", "bwdPktLenStd",
    "iatMinUs", "iatMaxUs", "iatMeanUs", "iatStdUs",
    "fwdIatTotalUs", "fwdIatMinUs", "fwdIatMaxUs", "fwdIatMeanUs", "fwdIatStdUs",
    "bwdIatTotalUs", "bwdIatMinUs", "bwdIatMaxUs", "bwdIatMeanUs", "bwdIatStdUs",
    "fwdFin", "fwdSyn", "fwdRst", "fwdPsh", "fwdAck", "fwdUrg", "fwdEce", "fwdCwr",
    "bwdFin", "bwdSyn", "bwdRst", "bwdPsh", "bwdAck", "bwdUrg", "bwdEce", "bwdCwr",
    "fwdInitWin", "bwdInitWin", "fwdActDataPkts", "fwdSegSizeMin",
    "activeMinUs", "activeMaxUs", "activeMeanUs", "activeStdUs",
    "idleMinUs", "idleMaxUs", "idleMeanUs", "idleStdUs",
    "earlyCount",
    "earlySize0", "earlySize1", "earlySize2", "earlySize3", "earlySize4", "earlySize5", "earlySize6", "earlySize7",
    "earlyDir0", "earlyDir1", "earlyDir2", "earlyDir3", "earlyDir4", "earlyDir5", "earlyDir6", "earlyDir7",
    "earlyIatUs0", "earlyIatUs1", "earlyIatUs2", "earlyIatUs3", "earlyIatUs4", "earlyIatUs5", "earlyIatUs6",
    "earlyIatUs7",
};

namespace {
constexpr double kNsPerUs = 1000.0;

// Writes min, max, mean, std (population) of a stat, scaled (ns -> µs for times).
void PutStat(double* row, int col, const RunningStat& s, double scale) {
  row[col] = s.min / scale;
  row[col + 1] = s.max / scale;
  row[col + 2] = s.mean / scale;
  row[col + 3] = s.PopulationStd() / scale;
}
}  // namespace

BatchEncoder::BatchEncoder(size_t reserve_flows) {
  rows_.reserve(reserve_flows * kF64ColumnCount);
  addrs_.reserve(reserve_flows * 32);
}

void BatchEncoder::Add(const FlowEntry& e, EndReason reason) {
  const size_t base = rows_.size();
  rows_.resize(base + kF64ColumnCount, 0.0);
  addrs_.resize(addrs_.size() + 32);
  double* r = rows_.data() + base;
  uint8_t* a = addrs_.data() + count_ * 32;
  const FlowFeatures& f = e.f;
  const bool lo = e.initiator_is_lo;
  std::memcpy(a, lo ? e.key.addr_lo : e.key.addr_hi, 16);
  std::memcpy(a + 16, lo ? e.key.addr_hi : e.key.addr_lo, 16);

  r[kColId] = static_cast<double>(e.id);
  const bool icmp = IsIcmp(e.key.protocol);  // ICMP keys hold (type, code) in a fixed order
  r[kColSrcPort] = icmp || lo ? e.key.port_lo : e.key.port_hi;
  r[kColDstPort] = icmp || lo ? e.key.port_hi : e.key.port_lo;
  r[kColProtocol] = e.key.protocol;
  r[kColIpVersion] = e.ip_version;
  r[kColVlanOuter] = e.key.vlan_outer;
  r[kColVlanInner] = e.key.vlan_inner;
  r[kColFirstSec] = static_cast<double>(f.first_ns / 1000000000LL);
  r[kColFirstNsec] = static_cast<double>(f.first_ns % 1000000000LL);
  r[kColLastSec] = static_cast<double>(f.last_ns / 1000000000LL);
  r[kColLastNsec] = static_cast<double>(f.last_ns % 1000000000LL);
  r[kColDurationUs] = static_cast<double>(f.last_ns - f.first_ns) / kNsPerUs;
  r[kColEndReason] = static_cast<double>(reason);

  r[kColPackets] = f.packets[kFwd] + f.packets[kBwd];
  r[kColBytes] = f.bytes[kFwd] + f.bytes[kBwd];
  r[kColFwdPackets] = f.packets[kFwd];
  r[kColBwdPackets] = f.packets[kBwd];
  r[kColFwdBytes] = f.bytes[kFwd];
  r[kColBwdBytes] = f.bytes[kBwd];
  r[kColFwdPayloadBytes] = f.payload_bytes[kFwd];
  r[kColBwdPayloadBytes] = f.payload_bytes[kBwd];
  r[kColFwdHeaderBytes] = f.header_bytes[kFwd];
  r[kColBwdHeaderBytes] = f.header_bytes[kBwd];

  PutStat(r, kColPktLenMin, f.len_all, 1.0);
  PutStat(r, kColFwdPktLenMin, f.len_dir[kFwd], 1.0);
  PutStat(r, kColBwdPktLenMin, f.len_dir[kBwd], 1.0);
  PutStat(r, kColIatMinUs, f.iat_all, kNsPerUs);
  r[kColFwdIatTotalUs] = f.iat_dir[kFwd].sum / kNsPerUs;
  PutStat(r, kColFwdIatMinUs, f.iat_dir[kFwd], kNsPerUs);
  r[kColBwdIatTotalUs] = f.iat_dir[kBwd].sum / kNsPerUs;
  PutStat(r, kColBwdIatMinUs, f.iat_dir[kBwd], kNsPerUs);

  for (int i = 0; i < kTcpFlagCount; ++i) {
    r[kColFwdFin + i] = f.flags[kFwd][i];
    r[kColBwdFin + i] = f.flags[kBwd][i];
  }
  r[kColFwdInitWin] = f.init_win[kFwd];
  r[kColBwdInitWin] = f.init_win[kBwd];
  r[kColFwdActDataPkts] = f.fwd_act_data_pkts;
  r[kColFwdSegSizeMin] = f.fwd_seg_size_min;
  PutStat(r, kColActiveMinUs, f.active, kNsPerUs);
  PutStat(r, kColIdleMinUs, f.idle, kNsPerUs);

  r[kColEarlyCount] = f.early_count;
  for (int i = 0; i < f.early_count; ++i) {
    r[kColEarlySize0 + i] = f.early_size[i];
    r[kColEarlyDir0 + i] = f.early_dir[i];
    r[kColEarlyIatUs0 + i] = static_cast<double>(f.early_iat_ns[i]) / kNsPerUs;
  }
  ++count_;
}

void BatchEncoder::TakeBuffer(std::vector<uint8_t>* out) {
  const size_t n = count_;
  const size_t f64_bytes = n * kF64ColumnCount * sizeof(double);
  out->resize(kBatchHeaderBytes + f64_bytes + n * 32);
  uint8_t* p = out->data();
  const uint32_t header[4] = {kBatchLayoutVersion, static_cast<uint32_t>(n), static_cast<uint32_t>(kF64ColumnCount), 0};
  std::memcpy(p, header, sizeof(header));
  double* cols = reinterpret_cast<double*>(p + kBatchHeaderBytes);  // 16-byte offset keeps 8-byte alignment
  const double* rows = rows_.data();
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < kF64ColumnCount; ++c) cols[static_cast<size_t>(c) * n + i] = rows[i * kF64ColumnCount + c];
  }
  uint8_t* src = p + kBatchHeaderBytes + f64_bytes;
  uint8_t* dst = src + n * 16;
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(src + i * 16, addrs_.data() + i * 32, 16);
    std::memcpy(dst + i * 16, addrs_.data() + i * 32 + 16, 16);
  }
  rows_.clear();
  addrs_.clear();
  count_ = 0;
}

}  // namespace vigil
