// BatchEncoder: flow entries -> struct-of-arrays bytes (see batch_encoder.h for the layout).
#include "binding/batch_encoder.h"

#include <cstdio>
#include <cstring>

#include "app/app_layer.h"
#include "app/community_id.h"
#include "common/huge_pages.h"
#include "common/malloc_policy.h"
#include "process/process_info.h"

namespace vigil {

const char* const kF64ColumnNames[kF64ColumnCount] = {
    "id",
    "srcPort",
    "dstPort",
    "protocol",
    "ipVersion",
    "vlanOuter",
    "vlanInner",
    "firstSec",
    "firstNsec",
    "lastSec",
    "lastNsec",
    "durationUs",
    "endReason",
    "packets",
    "bytes",
    "fwdPackets",
    "bwdPackets",
    "fwdBytes",
    "bwdBytes",
    "fwdPayloadBytes",
    "bwdPayloadBytes",
    "fwdHeaderBytes",
    "bwdHeaderBytes",
    "pktLenMin",
    "pktLenMax",
    "pktLenMean",
    "pktLenStd",
    "fwdPktLenMin",
    "fwdPktLenMax",
    "fwdPktLenMean",
    "fwdPktLenStd",
    "bwdPktLenMin",
    "bwdPktLenMax",
    "bwdPktLenMean",
    "bwdPktLenStd",
    "iatMinUs",
    "iatMaxUs",
    "iatMeanUs",
    "iatStdUs",
    "fwdIatTotalUs",
    "fwdIatMinUs",
    "fwdIatMaxUs",
    "fwdIatMeanUs",
    "fwdIatStdUs",
    "bwdIatTotalUs",
    "bwdIatMinUs",
    "bwdIatMaxUs",
    "bwdIatMeanUs",
    "bwdIatStdUs",
    "fwdFin",
    "fwdSyn",
    "fwdRst",
    "fwdPsh",
    "fwdAck",
    "fwdUrg",
    "fwdEce",
    "fwdCwr",
    "bwdFin",
    "bwdSyn",
    "bwdRst",
    "bwdPsh",
    "bwdAck",
    "bwdUrg",
    "bwdEce",
    "bwdCwr",
    "fwdInitWin",
    "bwdInitWin",
    "fwdActDataPkts",
    "fwdSegSizeMin",
    "activeMinUs",
    "activeMaxUs",
    "activeMeanUs",
    "activeStdUs",
    "idleMinUs",
    "idleMaxUs",
    "idleMeanUs",
    "idleStdUs",
    "earlyCount",
    "earlySize0",
    "earlySize1",
    "earlySize2",
    "earlySize3",
    "earlySize4",
    "earlySize5",
    "earlySize6",
    "earlySize7",
    "earlyDir0",
    "earlyDir1",
    "earlyDir2",
    "earlyDir3",
    "earlyDir4",
    "earlyDir5",
    "earlyDir6",
    "earlyDir7",
    "earlyIatUs0",
    "earlyIatUs1",
    "earlyIatUs2",
    "earlyIatUs3",
    "earlyIatUs4",
    "earlyIatUs5",
    "earlyIatUs6",
    "earlyIatUs7",
    "app",
    "appBy",
    "serverNameSource",
    "dnsQtype",
    "dnsRcode",
    "tlsVersion",
    "tlsCipher",
    "tlsHbClient",
    "tlsHbServer",
    "tlsHbClientMaxLen",
    "tlsHbServerMaxLen",
    "tlsHbFlags",
    "httpStatus",
    "httpRequests",
    "httpBodyMagic",
    "processPid",
    "processUid",
    "smbRequests",
    "smbTrees",
    "smbCreates",
    "smbWrites",
    "smbReads",
    "dcerpcBinds",
    "dcerpcRequests",
    "tlsCertFlags",
    "tlsCertNotBefore",
    "tlsCertNotAfter",
    "ipv6OptPackets",
    "ipv6OptAnomalyPackets",
    "ipv6OptAnomalies",
    "ipv6OptFwdCovertBytes",
    "ipv6OptBwdCovertBytes",
    "ipv6OptMaxCovertBytes",
};

const char* const kStrColumnNames[kStrColumnCount] = {
    "serverName",       "dnsQuery",       "dnsAnswers",       "tlsSni",          "tlsAlpn",
    "tlsJa3",           "tlsJa4",         "tlsJa4s",          "httpMethod",      "httpHost",
    "httpUri",          "httpUserAgent",  "httpContentType",  "sshClient",       "sshServer",
    "dhcpHostname",     "dhcpMac",        "communityId",      "processName",     "processExe",
    "processUser",      "processUnit",    "processContainer", "smbShares",       "smbFiles",
    "dcerpcInterfaces", "dcerpcOps",      "tlsCertSubjectCn", "tlsCertSubjectO", "tlsCertSubjectOu",
    "tlsCertIssuerCn",  "tlsCertIssuerO", "tlsCertIssuerOu",
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

void BatchEncoder::FreeStaging::operator()(uint8_t* p) const { FreeHugeAdvised(p); }

BatchEncoder::Staging BatchEncoder::AllocateStaging(size_t flows) {
  return Staging(static_cast<uint8_t*>(AllocateHugeAdvised(StagingBytes(flows), true)));
}

BatchEncoder::BatchEncoder(size_t reserve_flows)
    : staging_(AllocateStaging(reserve_flows == 0 ? 1 : reserve_flows)),
      capacity_(reserve_flows == 0 ? 1 : reserve_flows) {
  ends_ = reinterpret_cast<uint32_t*>(staging_.get() + EndsOffset(capacity_));
}

void BatchEncoder::Grow() {
  // Re-lay the columns for twice the flows (rare: only when more records arrive than a batch holds before a flush).
  const size_t new_cap = capacity_ * 2;
  Staging bigger = AllocateStaging(new_cap);
  const double* old_cols = reinterpret_cast<const double*>(staging_.get() + kBatchHeaderBytes);
  double* new_cols = reinterpret_cast<double*>(bigger.get() + kBatchHeaderBytes);
  for (int c = 0; c < kF64ColumnCount; ++c) {
    std::memcpy(new_cols + c * Stride(new_cap), old_cols + c * Stride(capacity_), count_ * sizeof(double));
  }
  const uint8_t* old_addr = staging_.get() + kBatchHeaderBytes + Stride(capacity_) * kF64ColumnCount * sizeof(double);
  uint8_t* new_addr = bigger.get() + kBatchHeaderBytes + Stride(new_cap) * kF64ColumnCount * sizeof(double);
  std::memcpy(new_addr, old_addr, count_ * 16);                                                  // src
  std::memcpy(new_addr + Stride(new_cap) * 16, old_addr + Stride(capacity_) * 16, count_ * 16);  // dst
  uint32_t* ends = reinterpret_cast<uint32_t*>(bigger.get() + EndsOffset(new_cap));
  for (int c = 0; c < kStrColumnCount; ++c)
    std::memcpy(ends + c * new_cap, ends_ + c * capacity_, count_ * sizeof(uint32_t));
  ends_ = ends;
  staging_ = std::move(bigger);
  capacity_ = new_cap;
}

void BatchEncoder::Add(const FlowEntry& e, EndReason reason) {
  if (count_ == capacity_) Grow();
  const size_t cap = Stride(capacity_);
  const size_t i = count_;
  double* c = reinterpret_cast<double*>(staging_.get() + kBatchHeaderBytes);  // 16-byte offset: 8-aligned
  uint8_t* addr = staging_.get() + kBatchHeaderBytes + cap * kF64ColumnCount * sizeof(double);
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

  put(kColIpv6OptPackets, f.ipv6_option_packets);
  put(kColIpv6OptAnomalyPackets, f.ipv6_anomaly_packets);
  put(kColIpv6OptAnomalies, f.ipv6_anomalies);
  put(kColIpv6OptFwdCovertBytes, f.ipv6_covert_bytes[kFwd]);
  put(kColIpv6OptBwdCovertBytes, f.ipv6_covert_bytes[kBwd]);
  put(kColIpv6OptMaxCovertBytes, f.ipv6_covert_max);

  put(kColEarlyCount, f.early_count);
  for (int k = 0; k < kEarlyPackets; ++k) {
    const bool used = k < f.early_count;
    put(kColEarlySize0 + k, used ? f.early_size[k] : 0);
    put(kColEarlyDir0 + k, used ? f.early_dir[k] : 0);
    put(kColEarlyIatUs0 + k, used ? static_cast<double>(f.early_iat_ns[k]) / kNsPerUs : 0);
  }

  // Application layer: the label (by content, else the port guess), the numbers, then the text columns.
  const AppState* a = app_enabled_ ? e.app : nullptr;
  AppProto app = static_cast<AppProto>(e.app_proto);
  AppBy by = static_cast<AppBy>(e.app_by);
  if (app_enabled_ && app == AppProto::kUnknown) {
    const uint16_t dport = icmp || lo ? e.key.port_hi : e.key.port_lo;
    const uint16_t sport = icmp || lo ? e.key.port_lo : e.key.port_hi;
    app = GuessAppByPort(e.key.protocol, dport, sport);
    by = app == AppProto::kUnknown ? AppBy::kNone : AppBy::kPort;
  }
  put(kColApp, static_cast<double>(app));
  put(kColAppBy, static_cast<double>(by));
  put(kColDnsQtype, a && a->dns ? a->dns->qtype : -1);
  put(kColDnsRcode, a && a->dns ? a->dns->rcode : -1);
  put(kColTlsVersion, a && a->tls ? a->tls->version : -1);
  put(kColTlsCipher, a && a->tls ? a->tls->cipher : -1);
  const TlsHeartbeats* hb_client = a ? &a->tls_records[kFwd].heartbeats() : nullptr;
  const TlsHeartbeats* hb_server = a ? &a->tls_records[kBwd].heartbeats() : nullptr;
  put(kColTlsHbClient, hb_client ? hb_client->records : 0);
  put(kColTlsHbServer, hb_server ? hb_server->records : 0);
  put(kColTlsHbClientMaxLen, hb_client ? hb_client->max_len : 0);
  put(kColTlsHbServerMaxLen, hb_server ? hb_server->max_len : 0);
  auto flags = [](const TlsHeartbeats* h) {
    return h ? (h->early ? 1 : 0) | (h->overlong ? 2 : 0) | (h->short_record ? 4 : 0) : 0;
  };
  put(kColTlsHbFlags, flags(hb_client) | (flags(hb_server) << 3));
  put(kColHttpStatus, a && a->http ? a->http->status : -1);
  put(kColHttpRequests, a && a->http ? a->http->requests : 0);
  put(kColHttpBodyMagic, a && a->http ? static_cast<double>(a->http->body_magic) : 0);
  AddText(e);
  AddProcess(e);
  AddRpc(e);
  AddCertificate(e);
  ++count_;
}

void BatchEncoder::AddCertificate(const FlowEntry& e) {
  static const std::string kNone;
  const AppState* a = app_enabled_ ? e.app : nullptr;
  const TlsCertInfo* cert = a && a->tls ? a->tls->cert.get() : nullptr;
  double* c = reinterpret_cast<double*>(staging_.get() + kBatchHeaderBytes);
  const size_t cap = Stride(capacity_);
  const bool times = cert != nullptr && cert->has_validity;
  c[kColTlsCertFlags * cap + count_] = cert ? 1 | (cert->self_signed ? 2 : 0) | (times ? 4 : 0) : 0;
  c[kColTlsCertNotBefore * cap + count_] = times ? static_cast<double>(cert->not_before) : 0;
  c[kColTlsCertNotAfter * cap + count_] = times ? static_cast<double>(cert->not_after) : 0;
  PutText(kStrTlsCertSubjectCn, cert ? cert->subject_cn : kNone);
  PutText(kStrTlsCertSubjectO, cert ? cert->subject_o : kNone);
  PutText(kStrTlsCertSubjectOu, cert ? cert->subject_ou : kNone);
  PutText(kStrTlsCertIssuerCn, cert ? cert->issuer_cn : kNone);
  PutText(kStrTlsCertIssuerO, cert ? cert->issuer_o : kNone);
  PutText(kStrTlsCertIssuerOu, cert ? cert->issuer_ou : kNone);
}

void BatchEncoder::AddProcess(const FlowEntry& e) {
  static const std::string kNone;
  const ProcessInfo* p = ResolvedProcess(e.process.get());
  double* c = reinterpret_cast<double*>(staging_.get() + kBatchHeaderBytes);
  const size_t cap = Stride(capacity_);
  c[kColProcessPid * cap + count_] = p ? p->pid : -1;
  c[kColProcessUid * cap + count_] = p ? static_cast<double>(p->uid) : -1;
  PutText(kStrProcessName, p ? p->name : kNone);
  PutText(kStrProcessExe, p ? p->exe : kNone);
  PutText(kStrProcessUser, p ? p->user : kNone);
  PutText(kStrProcessUnit, p ? p->unit : kNone);
  PutText(kStrProcessContainer, p ? p->container : kNone);
}

void BatchEncoder::AddRpc(const FlowEntry& e) {
  const RpcFlow* r = app_enabled_ && e.app != nullptr ? e.app->rpc.get() : nullptr;
  const bool smb = r != nullptr && !r->smb.empty();
  double* c = reinterpret_cast<double*>(staging_.get() + kBatchHeaderBytes);
  const size_t cap = Stride(capacity_);
  c[kColSmbRequests * cap + count_] = smb ? static_cast<double>(r->smb.requests) : -1.0;
  c[kColSmbTrees * cap + count_] = smb ? r->smb.trees : 0;
  c[kColSmbCreates * cap + count_] = smb ? r->smb.creates : 0;
  c[kColSmbWrites * cap + count_] = smb ? r->smb.writes : 0;
  c[kColSmbReads * cap + count_] = smb ? r->smb.reads : 0;
  c[kColDcerpcBinds * cap + count_] = r ? r->rpc.binds : 0;
  c[kColDcerpcRequests * cap + count_] = r ? r->rpc.requests : 0;
  std::string& shares = text_[kStrSmbShares];
  std::string& files = text_[kStrSmbFiles];
  if (smb) {
    bool first = true;
    for (int i = 0; i < r->smb.share_count; ++i) {
      const SmbShare& sh = r->smb.shares[i];
      if (!sh.connected) continue;
      if (!first) shares.push_back('\x1e');
      first = false;
      shares.append(sh.path.data, sh.path.len);
    }
    for (int i = 0; i < r->smb.file_count; ++i) {
      const SmbFile& f = r->smb.files[i];
      if (i > 0) files.push_back('\x1e');
      files.append(f.name.data, f.name.len);
      files.push_back('\x1f');
      if (f.share >= 0) files.append(r->smb.shares[f.share].path.data, r->smb.shares[f.share].path.len);
      files.push_back('\x1f');
      const int flags = (f.write_access ? kSmbFileWriteAccess : 0) | (f.written ? kSmbFileWritten : 0) |
                        (f.read ? kSmbFileRead : 0) | (f.pipe ? kSmbFilePipe : 0);
      files += std::to_string(flags);
    }
  }
  PutNull(kStrSmbShares);  // ends the value appended above
  PutNull(kStrSmbFiles);   // ends the value appended above
  std::string& ifaces = text_[kStrDcerpcInterfaces];
  std::string& ops = text_[kStrDcerpcOps];
  if (r != nullptr && !r->rpc.empty()) {
    char uuid[37];
    auto iface_name = [&](int k) -> const char* {
      const char* name = DcerpcInterfaceName(r->rpc.ifaces[k]);
      if (name != nullptr) return name;
      DcerpcUuidText(r->rpc.ifaces[k], uuid);
      return uuid;
    };
    for (int k = 0; k < r->rpc.iface_count; ++k) {
      if (k > 0) ifaces.push_back('\x1e');
      ifaces += iface_name(k);
    }
    for (int k = 0; k < r->rpc.op_count; ++k) {
      const DcerpcSummary::Op& op = r->rpc.ops[k];
      if (k > 0) ops.push_back('\x1e');
      if (op.iface != DcerpcSummary::kNoInterface) ops += iface_name(op.iface);
      ops.push_back('\x1f');
      ops += std::to_string(op.opnum);
      ops.push_back('\x1f');
      ops += std::to_string(op.count);
    }
  }
  PutNull(kStrDcerpcInterfaces);  // ends the value appended above
  PutNull(kStrDcerpcOps);         // ends the value appended above
}

void BatchEncoder::AddText(const FlowEntry& e) {
  static const std::string kNone;
  const AppState* a = app_enabled_ ? e.app : nullptr;
  double* c = reinterpret_cast<double*>(staging_.get() + kBatchHeaderBytes);
  // serverName: the handshake's name first (what the client asked the server for), then HTTP's Host (port cut),
  // then the name the client resolved.
  NameSource source = NameSource::kNone;
  std::string host;
  const std::string* name = &kNone;
  if (a != nullptr) {
    if (a->tls && !a->tls->sni.empty()) {
      name = &a->tls->sni;
      source = static_cast<AppProto>(e.app_proto) == AppProto::kQuic ? NameSource::kQuicSni : NameSource::kSni;
    } else if (a->http && !a->http->host.empty()) {
      host = a->http->host;
      const size_t colon = host.rfind(':');
      if (colon != std::string::npos && host.find(']') == std::string::npos && host.find(':') == colon)
        host.resize(colon);
      if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      name = &host;
      source = NameSource::kHttpHost;
    } else if (!a->resolved_name.empty()) {
      name = &a->resolved_name;
      source = NameSource::kDns;
    }
  }
  c[kColServerNameSource * Stride(capacity_) + count_] = static_cast<double>(source);
  PutText(kStrServerName, *name);
  PutText(kStrDnsQuery, a && a->dns ? a->dns->query : kNone);
  PutText(kStrDnsAnswers, a && a->dns ? a->dns->answers : kNone);
  PutText(kStrTlsSni, a && a->tls ? a->tls->sni : kNone);
  PutText(kStrTlsAlpn, a && a->tls ? a->tls->alpn : kNone);
  PutText(kStrTlsJa3, a && a->tls ? a->tls->ja3 : kNone);
  PutText(kStrTlsJa4, a && a->tls ? a->tls->ja4 : kNone);
  PutText(kStrTlsJa4s, a && a->tls ? a->tls->ja4s : kNone);
  PutText(kStrHttpMethod, a && a->http ? a->http->method : kNone);
  PutText(kStrHttpHost, a && a->http ? a->http->host : kNone);
  PutText(kStrHttpUri, a && a->http ? a->http->uri : kNone);
  PutText(kStrHttpUserAgent, a && a->http ? a->http->user_agent : kNone);
  PutText(kStrHttpContentType, a && a->http ? a->http->content_type : kNone);
  PutText(kStrSshClient, a && a->ssh ? a->ssh->client : kNone);
  PutText(kStrSshServer, a && a->ssh ? a->ssh->server : kNone);
  PutText(kStrDhcpHostname, a && a->dhcp ? a->dhcp->hostname : kNone);
  if (a && a->dhcp && a->dhcp->has_mac) {
    char mac[18];
    const uint8_t* m = a->dhcp->mac;
    std::snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
    PutText(kStrDhcpMac, mac, std::strlen(mac));
  } else {
    PutNull(kStrDhcpMac);
  }
  if (app_enabled_) {
    const bool lo = e.initiator_is_lo;
    const bool icmp = IsIcmp(e.key.protocol);
    char id[64];
    CommunityId(community_id_seed_, e.ip_version == 4, lo ? e.key.addr_lo : e.key.addr_hi,
                lo ? e.key.addr_hi : e.key.addr_lo, e.key.protocol, icmp || lo ? e.key.port_lo : e.key.port_hi,
                icmp || lo ? e.key.port_hi : e.key.port_lo, id);
    PutText(kStrCommunityId, id, std::strlen(id));
  } else {
    PutNull(kStrCommunityId);
  }
}

size_t BatchEncoder::EncodedBytes() const {
  size_t text_bytes = 0;
  for (int c = 0; c < kStrColumnCount; ++c) text_bytes += text_[c].size();
  return kBatchHeaderBytes + count_ * (kF64ColumnCount * sizeof(double) + 32 + kStrColumnCount * sizeof(uint32_t)) +
         text_bytes;
}

void BatchEncoder::TakeBuffer(BatchBuffer* out) {
  const size_t n = count_;
  const size_t fixed = kBatchHeaderBytes + n * (kF64ColumnCount * sizeof(double) + 32);
  const size_t total = EncodedBytes();
  if (out->data == nullptr || out->capacity < total) {
    // Rounded up, so that a recycled buffer fits most later batches.
    out->capacity = (total + kOutGranule - 1) / kOutGranule * kOutGranule;
    out->data.reset(new uint8_t[out->capacity]);
    PrefaultForWrite(out->data.get(), total);
  }
  uint8_t* p = out->data.get();
  const uint32_t header[4] = {kBatchLayoutVersion, static_cast<uint32_t>(n), static_cast<uint32_t>(kF64ColumnCount),
                              static_cast<uint32_t>(kStrColumnCount)};
  std::memcpy(p, header, sizeof(header));
  // Compact: column c goes from staging slot c * stride to c * n; then the two address blocks follow.
  const uint8_t* staging = staging_.get();
  const double* cols = reinterpret_cast<const double*>(staging + kBatchHeaderBytes);
  double* out_cols = reinterpret_cast<double*>(p + kBatchHeaderBytes);
  const size_t stride = Stride(capacity_);
  for (int c = 0; c < kF64ColumnCount; ++c) std::memcpy(out_cols + c * n, cols + c * stride, n * sizeof(double));
  const uint8_t* addr_src = staging + kBatchHeaderBytes + stride * kF64ColumnCount * sizeof(double);
  uint8_t* addr_dst = p + kBatchHeaderBytes + n * kF64ColumnCount * sizeof(double);
  std::memcpy(addr_dst, addr_src, n * 16);
  std::memcpy(addr_dst + n * 16, addr_src + stride * 16, n * 16);
  // Text columns: end offsets (absolute within the text block), then the text block.
  uint32_t* ends = reinterpret_cast<uint32_t*>(p + fixed);
  uint8_t* text = p + fixed + n * kStrColumnCount * sizeof(uint32_t);
  uint32_t base = 0;
  for (int c = 0; c < kStrColumnCount; ++c) {
    const uint32_t* col_ends = ends_ + c * capacity_;
    for (size_t i = 0; i < n; ++i) ends[c * n + i] = base + col_ends[i];
    if (!text_[c].empty()) std::memcpy(text + base, text_[c].data(), text_[c].size());
    base += static_cast<uint32_t>(text_[c].size());
    text_[c].clear();
  }
  out->size = total;
  count_ = 0;
}

}  // namespace vigil
