// BatchEncoder: finished flows -> one struct-of-arrays byte buffer (the data plane into JS). No napi.
//
// Layout (layout version kBatchLayoutVersion), all little-endian host order, n = flow count:
//   [0..16)   uint32 layoutVersion, uint32 n, uint32 f64ColumnCount, uint32 stringColumnCount (S)
//   then      f64ColumnCount columns of n Float64 each, in kF64ColumnNames order
//   then      n * 16 bytes source addresses (initiator), n * 16 bytes destination addresses (IPv4-mapped IPv6)
//   then      S * n uint32 end offsets (string column c of flow i ends at ends[c * n + i], in bytes from the start of
//             the text block; it starts where the previous value ended: ends[c * n + i - 1], or for i = 0 the end of
//             column c - 1's last value, or 0), in kStrColumnNames order; an empty value is null
//   then      the text block (UTF-8 as sent on the wire; the parsers cap every value, see native/app)
// Mirrored by src/native/flow-columns.ts, which checks layoutVersion and the column names (exported as
// `flowColumns`) at load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flow/flow_record.h"

namespace vigil {

constexpr uint32_t kBatchLayoutVersion = 5;
constexpr size_t kBatchHeaderBytes = 16;

// Float64 columns, in order. Times: *Sec = whole seconds since the epoch, *Nsec = nanoseconds within the second;
// durations/IATs/active/idle in microseconds (fractional); lengths in bytes; endReason = EndReason value;
// early* columns hold the first 8 packets (unused slots 0). Application-layer columns (native/app): app = AppProto,
// appBy = AppBy, serverNameSource = NameSource (0 none); dnsQtype, dnsRcode, tlsVersion, tlsCipher, httpStatus are
// -1 when absent; httpRequests 0. TLS heartbeats (native/app/tls.h TlsHeartbeats) per side, client = initiator:
// records and largest record (bytes), 0 when none, and tlsHbFlags = client early 1 | overlong 2 | short 4, server
// early 8 | overlong 16 | short 32. httpBodyMagic = HttpBodyMagic (0 none). processPid, processUid: the program owning
// the local socket (native/process), -1 when unknown (not resolved, a replay, or attribution off). SMB2 and DCE-RPC
// (native/app/smb.h, dcerpc.h): smbRequests is -1 when the flow carried no SMB; the other counts 0 when absent.
// The server's certificate (TLS <= 1.2, native/app/tls.h TlsCertificate): tlsCertFlags = present 1 | self-signed 2 |
// validity read 4 (0 none); tlsCertNotBefore / tlsCertNotAfter in seconds since the epoch (0 unless validity was read).
// IPv6 extension headers (decode/ipv6.h, FlowFeatures ipv6_*): packets with options headers, packets with anomalies,
// the anomaly bits (Ipv6Anomaly), covert bytes per direction and the most in one packet; all 0 for IPv4.
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
  kColApp = kColEarlyIatUs0 + 8,
  kColAppBy,
  kColServerNameSource,
  kColDnsQtype,
  kColDnsRcode,
  kColTlsVersion,
  kColTlsCipher,
  kColTlsHbClient,
  kColTlsHbServer,
  kColTlsHbClientMaxLen,
  kColTlsHbServerMaxLen,
  kColTlsHbFlags,
  kColHttpStatus,
  kColHttpRequests,
  kColHttpBodyMagic,
  kColProcessPid,
  kColProcessUid,
  kColSmbRequests,
  kColSmbTrees,
  kColSmbCreates,
  kColSmbWrites,
  kColSmbReads,
  kColDcerpcBinds,
  kColDcerpcRequests,
  kColTlsCertFlags,
  kColTlsCertNotBefore,
  kColTlsCertNotAfter,
  kColIpv6OptPackets,
  kColIpv6OptAnomalyPackets,
  kColIpv6OptAnomalies,
  kColIpv6OptFwdCovertBytes,
  kColIpv6OptBwdCovertBytes,
  kColIpv6OptMaxCovertBytes,
  kF64ColumnCount
};

// Text columns, in order (names: kStrColumnNames).
enum StrColumn : int {
  kStrServerName,
  kStrDnsQuery,
  kStrDnsAnswers,  // "type\x1fttl\x1fvalue" records joined by '\x1e'
  kStrTlsSni,
  kStrTlsAlpn,
  kStrTlsJa3,
  kStrTlsJa4,
  kStrTlsJa4s,
  kStrHttpMethod,
  kStrHttpHost,
  kStrHttpUri,
  kStrHttpUserAgent,
  kStrHttpContentType,
  kStrSshClient,
  kStrSshServer,
  kStrDhcpHostname,
  kStrDhcpMac,
  kStrCommunityId,
  kStrProcessName,
  kStrProcessExe,
  kStrProcessUser,
  kStrProcessUnit,
  kStrProcessContainer,
  kStrSmbShares,         // tree paths ("\\server\share") the server granted, joined by '\x1e'
  kStrSmbFiles,          // "name\x1fshare path\x1fflags" joined by '\x1e'; flags: SmbFileFlag bits, decimal
  kStrDcerpcInterfaces,  // interface names (or UUIDs) bound, joined by '\x1e'
  kStrDcerpcOps,         // "interface\x1fopnum\x1fcount" joined by '\x1e'; interface empty when its bind was not seen
  kStrTlsCertSubjectCn,  // the server certificate's subject and issuer CN, O, OU (TlsCertInfo)
  kStrTlsCertSubjectO,
  kStrTlsCertSubjectOu,
  kStrTlsCertIssuerCn,
  kStrTlsCertIssuerO,
  kStrTlsCertIssuerOu,
  kStrColumnCount
};
extern const char* const kStrColumnNames[kStrColumnCount];

// The flags of a kStrSmbFiles record.
enum SmbFileFlag : int { kSmbFileWriteAccess = 1, kSmbFileWritten = 2, kSmbFileRead = 4, kSmbFilePipe = 8 };

// Column names (JS field names; early columns are earlySize0..7, earlyDir0..7, earlyIatUs0..7).
extern const char* const kF64ColumnNames[kF64ColumnCount];

// A byte buffer without value-initialisation (batches are rewritten whole; zero-filling them cost page faults). new[]
// aligns it to at least 16 bytes, which JS's Float64Array views of the columns need: the session lends it to JS as
// the batch's ArrayBuffer (native/binding/capture_wrap.cpp).
struct BatchBuffer {
  std::unique_ptr<uint8_t[]> data;
  size_t size = 0;      // bytes of the encoded batch
  size_t capacity = 0;  // bytes allocated
};

// Writes flow records straight into column slots of a staging buffer laid out for `capacity` flows, then copies the
// columns, compacted to the batch's real size, into the buffer it is taken in. Capture thread only.
class BatchEncoder {
 public:
  explicit BatchEncoder(size_t reserve_flows);
  // The application layer's columns: off leaves them null (and Community ID uncomputed).
  void SetAppLayer(bool enabled, uint16_t community_id_seed) {
    app_enabled_ = enabled;
    community_id_seed_ = community_id_seed;
  }
  void Add(const FlowEntry& flow, EndReason reason);
  size_t size() const { return count_; }
  // Bytes TakeBuffer() will write for the flows added so far (so the caller can pick a buffer that fits).
  size_t EncodedBytes() const;
  // Writes the encoded batch into `out`, reusing its storage when it is large enough (so the caller can pass back a
  // buffer it is done with), else allocating. Clears the encoder, which keeps its staging buffer (warm in the cache,
  // its pages faulted in once).
  void TakeBuffer(BatchBuffer* out);

 private:
  // Staging columns are one cache line longer than the flows they hold: with a power-of-two stride, the ~110 slots
  // of one flow all fall into the same L1 set and evict one another. TakeBuffer compacts them to n.
  static size_t Stride(size_t flows) { return flows + 8; }
  static constexpr size_t kOutGranule = 64 * 1024;  // batch buffers are allocated in multiples of this
  static size_t BytesFor(size_t flows) {
    return kBatchHeaderBytes + Stride(flows) * (kF64ColumnCount * sizeof(double) + 32);
  }
  void Grow();

  void AddText(const FlowEntry& flow);
  void AddProcess(const FlowEntry& flow);
  void AddRpc(const FlowEntry& flow);
  void AddCertificate(const FlowEntry& flow);
  // The value of text column `col` for the flow being added (empty = null): appended when there is one, and its
  // end recorded in the column's slot.
  void PutText(int col, const char* s, size_t len) {
    if (len != 0) text_[col].append(s, len);
    ends_[col * capacity_ + count_] = static_cast<uint32_t>(text_[col].size());
  }
  void PutText(int col, const std::string& s) { PutText(col, s.data(), s.size()); }
  void PutNull(int col) { ends_[col * capacity_ + count_] = static_cast<uint32_t>(text_[col].size()); }

  // Staging memory: the Float64 columns and the addresses, `Stride(capacity_)` slots each, then the text ends, in
  // memory advised for huge pages (common/huge_pages.h): Add writes ~150 slots a column stride (8 KiB) apart, ~150
  // different 4 KiB pages per flow and as many TLB misses, which one huge page spares.
  struct FreeStaging {
    void operator()(uint8_t* p) const;
  };
  using Staging = std::unique_ptr<uint8_t, FreeStaging>;
  static size_t EndsOffset(size_t flows) { return (BytesFor(flows) + 63) / 64 * 64; }
  static size_t StagingBytes(size_t flows) { return EndsOffset(flows) + kStrColumnCount * flows * sizeof(uint32_t); }
  static Staging AllocateStaging(size_t flows);

  Staging staging_;
  size_t capacity_ = 0;  // flows the current layout holds
  size_t count_ = 0;
  bool app_enabled_ = false;
  uint16_t community_id_seed_ = 0;
  std::string text_[kStrColumnCount];  // per text column, values of this batch back to back
  // Per text column, `capacity_` slots (in staging_): the end of each flow's value within text_[col] (written in place,
  // like the Float64 columns, rather than pushed: most values are null).
  uint32_t* ends_ = nullptr;
};

}  // namespace vigil
