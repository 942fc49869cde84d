// BatchEncoder: flow entries -> struct-of-arrays bytes (see batch_encoder.h for the layout).
#include "binding/batch_encoder.h"

#include <cstring>

namespace vigil {

const char* const kF64ColumnNames[kF64ColumnCount] = {
    "id",           "srcPort",         "dstPort",         "protocol",       "ipVersion",      "vlanOuter",
    "vlanInner",    "firstSec",        "firstNsec",       "lastSec",        "lastNsec",       "durationUs",
    "endReason",    "packets",         "bytes",           "fwdPackets",     "bwdPackets",     "fwdBytes",
    "bwdBytes",     "fwdPayloadBytes", "bwdPayloadBytes", "fwdHeaderBytes", "bwdHeaderBytes", "pktLenMin",
    "pktLenMax",    "pktLenMean",      "pktLenStd",       "fwdPktLenMin",   "fwdPktLenMax",   "fwdPktLenMean",
    "fwdPktLenStd", "bwdPktLenMin",    "bwdPktLenMax",    "bwdPktLenMean",  "bwdPktLenStd",   "iatMinUs",
    "iatMaxUs",     "iatMeanUs",       "iatStdUs",        "fwdIatTotalUs",  "fwdIatMinUs",    "fwdIatMaxUs",
    "fwdIatMeanUs", "fwdIatStdUs",     "bwdIatTotalUs",   "bwdIatMinUs",    "bwdIatMaxUs",    "bwdIatMeanUs",
    "bwdIatStdUs",  "fwdFin",          "fwdSyn",          "fwdRst",         "fwdPsh",         "fwdAck",
    "fwdUrg",       "fwdEce",          "fwdCwr",          "bwdFin",         "bwdSyn",         "bwdRst",
    "bwdPsh",       "bwdAck",          "bwdUrg",          "bwdEce",         "bwdCwr",         "fwdInitWin",
    "bwdInitWin",   "fwdActDataPkts",  "fwdSegSizeMin",   "activeMinUs",    "activeMaxUs",    "activeMeanUs",
    "activeStdUs",  "idleMinUs",       "idleMaxUs",       "idleMeanUs",     "idleStdUs",      "earlyCount",
    "earlySize0",   "earlySize1",      "earlySize2",      "earlySize3",     "earlySize4",     "earlySize5",
    "earlySize6",   "earlySize7",      "earlyDir0",       "earlyDir1",      "earlyDir2",      "earlyDir3",
    "earlyDir4",    "earlyDir5",       "earlyDir6",       "earlyDir7",      "earlyIatUs0",    "earlyIatUs1",
    "earlyIatUs2",  "earlyIatUs3",     "earlyIatUs4",     "earlyIatUs5",    "earlyIatUs6",    "earlyIatUs7",
};

namespace {
constexpr double kNsPerUs = 1000.0;

// Writes min, max, mean, std (population) of a stat into four consecutive columns, scaled (ns -> µs for times).
inline void PutStat(double* cols, size_t cap, size_t i, int col, const RunningStat& st, double scale) {
  cols[col * cap + i] = st.min / scale;
  cols[(col + 1) * cap + i] = st.max / scale;
  cols[(col + 2) * cap + i] = st.mean / scale;
  cols[(col + 3) * cap + i] = st.PopulationStd() / scale;
}
}  // namespace

BatchEncoder::BatchEncoder(size_t reserve_flows) : capacity_(reserve_flows == 0 ? 1 : reserve_flows) {
  buf_.capacity = BytesFor(capacity_);
  buf_.data.reset(new uint8_t[buf_.capacity]);
}

void BatchEncoder::Grow() {
  // Re-lay the columns for twice the flows (rare: only when more records arrive than a batch holds before a flush).
  const size_t new_cap = capacity_ * 2;
  BatchBuffer bigger;
  bigger.capacity = BytesFor(new_cap);
  bigger.data.reset(new uint8_t[bigger.capacity]);
  const double* old_cols = reinterpret_cast<const double*>(buf_.data.get() + kBatchHeaderBytes);
  double* new_cols = reinterpret_cast<double*>(bigger.data.get() + kBatchHeaderBytes);
  for (int c = 0; c < kF64ColumnCount; ++c) {
    std::memcpy(new_cols + c * new_cap, old_cols + c * capacity_, count_ * sizeof(double));
  }
  const uint8_t* old_addr = buf_.data.get() + kBatchHeaderBytes + capacity_ * kF64ColumnCount * sizeof(double);
  uint8_t* new_addr = bigger.data.get() + kBatchHeaderBytes + new_cap * kF64ColumnCount * sizeof(double);
  std::memcpy(new_addr, old_addr, count_ * 16);                                  // src
  std::memcpy(new_addr + new_cap * 16, old_addr + capacity_ * 16, count_ * 16);  // dst
  buf_ = std::move(bigger);
  capacity_ = new_cap;
}

void BatchEncoder::Add(const FlowEntry& e, EndReason reason) {
  if (count_ == capacity_) Grow();
  const size_t cap = capacity_;
  const size_t i = count_;
  double* c = reinterpret_cast<double*>(buf_.data.get() + kBatchHeaderBytes);  // 16-byte offset: 8-aligned
  uint8_t* addr = buf_.data.get() + kBatchHeaderBytes + cap * kF64ColumnCount * sizeof(double);
  const FlowFeatures& f = e.f;
  const bool lo = e.initiator_is_lo;
  std::memcpy(addr + i * 16, lo ? e.key.addr_lo : e.key.addr_hi, 16);
  std::memcpy(addr + cap * 16 + i * 16, lo ? e.key.addr_hi : e.key.addr_lo, 16);
  auto put = [&](int col, double v) { c[col * cap + i] = v; };

  const bool icmp = IsIcmp(e.key.protocol);  // ICMP keys hold (type, code) in a fixed order
  put(kColId, static_cast<double>(e.id));
  put(kColSrcPort, icmp || lo ? e.key.port_lo : e.key.port_hi);
  put(kColDstPort, icmp || lo ? e.key.port_hi : e.key.port_lo);
  put(kColProtocol, e.key.protocol);
  put(kColIpVersion, e.ip_version);
  put(kColVlanOuter, e.key.vlan_outer);
  put(kColVlanInner, e.key.vlan_inner);
  put(kColFirstSec, static_cast<double>(f.first_ns / 1000000000LL));
  put(kColFirstNsec, static_cast<double>(f.first_ns % 1000000000LL));
  put(kColLastSec, static_cast<double>(f.last_ns / 1000000000LL));
  put(kColLastNsec, static_cast<double>(f.last_ns % 1000000000LL));
  put(kColDurationUs, static_cast<double>(f.last_ns - f.first_ns) / kNsPerUs);
  put(kColEndReason, static_cast<double>(reason));

  put(kColPackets, f.packets[kFwd] + f.packets[kBwd]);
  put(kColBytes, f.bytes[kFwd] + f.bytes[kBwd]);
  put(kColFwdPackets, f.packets[kFwd]);
  put(kColBwdPackets, f.packets[kBwd]);
  put(kColFwdBytes, f.bytes[kFwd]);
  put(kColBwdBytes, f.bytes[kBwd]);
  put(kColFwdPayloadBytes, f.payload_bytes[kFwd]);
  put(kColBwdPayloadBytes, f.payload_bytes[kBwd]);
  put(kColFwdHeaderBytes, f.header_bytes[kFwd]);
  put(kColBwdHeaderBytes, f.header_bytes[kBwd]);

  PutStat(c, cap, i, kColPktLenMin, f.len_all, 1.0);
  PutStat(c, cap, i, kColFwdPktLenMin, f.len_dir[kFwd], 1.0);
  PutStat(c, cap, i, kColBwdPktLenMin, f.len_dir[kBwd], 1.0);
  PutStat(c, cap, i, kColIatMinUs, f.iat_all, kNsPerUs);
  put(kColFwdIatTotalUs, f.iat_dir[kFwd].sum / kNsPerUs);
  PutStat(c, cap, i, kColFwdIatMinUs, f.iat_dir[kFwd], kNsPerUs);
  put(kColBwdIatTotalUs, f.iat_dir[kBwd].sum / kNsPerUs);
  PutStat(c, cap, i, kColBwdIatMinUs, f.iat_dir[kBwd], kNsPerUs);

  for (int k = 0; k < kTcpFlagCount; ++k) {
    put(kColFwdFin + k, f.flags[kFwd][k]);
    put(kColBwdFin + k, f.flags[kBwd][k]);
  }
  put(kColFwdInitWin, f.init_win[kFwd]);
  put(kColBwdInitWin, f.init_win[kBwd]);
  put(kColFwdActDataPkts, f.fwd_act_data_pkts);
  put(kColFwdSegSizeMin, f.fwd_seg_size_min);
  PutStat(c, cap, i, kColActiveMinUs, f.active, kNsPerUs);
  PutStat(c, cap, i, kColIdleMinUs, f.idle, kNsPerUs);

  put(kColEarlyCount, f.early_count);
  for (int k = 0; k < kEarlyPackets; ++k) {
    const bool used = k < f.early_count;
    put(kColEarlySize0 + k, used ? f.early_size[k] : 0);
    put(kColEarlyDir0 + k, used ? f.early_dir[k] : 0);
    put(kColEarlyIatUs0 + k, used ? static_cast<double>(f.early_iat_ns[k]) / kNsPerUs : 0);
  }
  ++count_;
}

void BatchEncoder::TakeBuffer(BatchBuffer* out) {
  const size_t n = count_;
  uint8_t* p = buf_.data.get();
  const uint32_t header[4] = {kBatchLayoutVersion, static_cast<uint32_t>(n), static_cast<uint32_t>(kF64ColumnCount), 0};
  std::memcpy(p, header, sizeof(header));
  // Compact: column c moves from slot c * capacity to c * n; then the two address blocks follow.
  double* cols = reinterpret_cast<double*>(p + kBatchHeaderBytes);
  for (int c = 1; c < kF64ColumnCount; ++c) std::memmove(cols + c * n, cols + c * capacity_, n * sizeof(double));
  const uint8_t* addr_src = p + kBatchHeaderBytes + capacity_ * kF64ColumnCount * sizeof(double);
  uint8_t* addr_dst = p + kBatchHeaderBytes + n * kF64ColumnCount * sizeof(double);
  std::memmove(addr_dst, addr_src, n * 16);
  std::memmove(addr_dst + n * 16, addr_src + capacity_ * 16, n * 16);
  buf_.size = kBatchHeaderBytes + n * (kF64ColumnCount * sizeof(double) + 32);

  std::swap(buf_, *out);
  if (buf_.data == nullptr || buf_.capacity < BytesFor(capacity_)) {
    buf_.capacity = BytesFor(capacity_);
    buf_.data.reset(new uint8_t[buf_.capacity]);
  }
  buf_.size = 0;
  count_ = 0;
}

}  // namespace vigil
