// BatchEncoder: finished flows -> one struct-of-arrays byte buffer (the data plane into JS). No napi.
//
// Layout (layout version kBatchLayoutVersion), all little-endian host order, n = flow count:
//   [0..16)   uint32 layoutVersion, uint32 n, uint32 f64ColumnCount, uint32 reserved (0)
//   then      f64ColumnCount columns of n Float64 each, in kF64ColumnNames order
//   then      n * 16 bytes source addresses (initiator), n * 16 bytes destination addresses (IPv4-mapped IPv6)
// Mirrored by src/native/flow-columns.ts, which checks layoutVersion and the column names (exported as
// `flowColumns`) at load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "flow/flow_record.h"

namespace vigil {

constexpr uint32_t kBatchLayoutVersion = 1;
constexpr size_t kBatchHeaderBytes = 16;

// Float64 columns, in order. Times: *Sec = whole seconds since the epoch, *Nsec = nanoseconds within the second;
// durations/IATs/active/idle in microseconds (fractional); lengths in bytes; endReason = EndReason value;
// early* columns hold the first 8 packets (unused slots 0).
enum F64Column : int {
  kColId,
  kColSrcPort,
  kColDstPort,
  kColProtocol,
  kColIpVersion,
  kColVlanOuter,
  kColVlanInner,
  kColFirstSec,
  kColFirstNsec,
  kColLastSec,
  kColLastNsec,
  kColDurationUs,
  kColEndReason,
  kColPackets,
  kColBytes,
  kColFwdPackets,
  kColBwdPackets,
  kColFwdBytes,
  kColBwdBytes,
  kColFwdPayloadBytes,
  kColBwdPayloadBytes,
  kColFwdHeaderBytes,
  kColBwdHeaderBytes,
  kColPktLenMin,
  kColPktLenMax,
  kColPktLenMean,
  kColPktLenStd,
  kColFwdPktLenMin,
  kColFwdPktLenMax,
  kColFwdPktLenMean,
  kColFwdPktLenStd,
  kColBwdPktLenMin,
  kColBwdPktLenMax,
  kColBwdPktLenMean,
  kColBwdPktLenStd,
  kColIatMinUs,
  kColIatMaxUs,
  kColIatMeanUs,
  kColIatStdUs,
  kColFwdIatTotalUs,
  kColFwdIatMinUs,
  kColFwdIatMaxUs,
  kColFwdIatMeanUs,
  kColFwdIatStdUs,
  kColBwdIatTotalUs,
  kColBwdIatMinUs,
  kColBwdIatMaxUs,
  kColBwdIatMeanUs,
  kColBwdIatStdUs,
  kColFwdFin,
  kColFwdSyn,
  kColFwdRst,
  kColFwdPsh,
  kColFwdAck,
  kColFwdUrg,
  kColFwdEce,
  kColFwdCwr,
  kColBwdFin,
  kColBwdSyn,
  kColBwdRst,
  kColBwdPsh,
  kColBwdAck,
  kColBwdUrg,
  kColBwdEce,
  kColBwdCwr,
  kColFwdInitWin,
  kColBwdInitWin,
  kColFwdActDataPkts,
  kColFwdSegSizeMin,
  kColActiveMinUs,
  kColActiveMaxUs,
  kColActiveMeanUs,
  kColActiveStdUs,
  kColIdleMinUs,
  kColIdleMaxUs,
  kColIdleMeanUs,
  kColIdleStdUs,
  kColEarlyCount,
  kColEarlySize0,
  kColEarlyDir0 = kColEarlySize0 + 8,
  kColEarlyIatUs0 = kColEarlyDir0 + 8,
  kF64ColumnCount = kColEarlyIatUs0 + 8
};

// Column names (JS field names; early columns are earlySize0..7, earlyDir0..7, earlyIatUs0..7).
extern const char* const kF64ColumnNames[kF64ColumnCount];

// A byte buffer without value-initialisation (batches are rewritten whole; zero-filling them cost page faults).
struct BatchBuffer {
  std::unique_ptr<uint8_t[]> data;
  size_t size = 0;      // bytes of the encoded batch
  size_t capacity = 0;  // bytes allocated
};

// Writes flow records straight into column slots of a buffer laid out for `capacity` flows, then compacts the
// columns to the batch's real size when it is taken. Buffers are recycled through TakeBuffer. Capture thread only.
class BatchEncoder {
 public:
  explicit BatchEncoder(size_t reserve_flows);
  void Add(const FlowEntry& flow, EndReason reason);
  size_t size() const { return count_; }
  // Hands the encoded batch over in `out` and keeps `out`'s previous storage for the next batch when it is large
  // enough (so the caller can pass back a buffer it is done with). Clears the encoder.
  void TakeBuffer(BatchBuffer* out);

 private:
  static size_t BytesFor(size_t flows) { return kBatchHeaderBytes + flows * (kF64ColumnCount * sizeof(double) + 32); }
  void Grow();

  BatchBuffer buf_;
  size_t capacity_ = 0;  // flows the current layout holds
  size_t count_ = 0;
};

}  // namespace vigil
