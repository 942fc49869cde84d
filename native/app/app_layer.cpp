// AppLayer: protocol recognition and per-flow parsing on the capture thread (see app_layer.h).
#include "app/app_layer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "app/dhcp.h"
#include "app/display_text.h"
#include "app/http.h"
#include "app/sip.h"
#include "app/ssh.h"
#include "app/stratum.h"
#include "common/byte_order.h"
#include "flow/flow_record.h"

namespace vigil {

namespace {

// Payload packets per direction inspected before a flow's recognition gives up (then the port guess applies).
constexpr uint16_t kRecogniseTries = 2;
// Payload packets per direction a parser may look at (TLS records, QUIC Initials, HTTP head, banners).
constexpr uint16_t kParsePackets = 12;
// DNS messages per flow parsed (a resolver's fixed source port makes long DNS flows; their answers still feed the
// cache up to this many).
constexpr uint16_t kDnsMessages = 64;
constexpr size_t kStateChunk = 256;
// SMB and DCE-RPC messages per flow read (both directions): lateral movement happens in a session's first minutes;
// a drive mapped for days stops costing anything after this many. Skipping a message's body costs one subtraction per
// segment, so the budget is in messages, not packets.
constexpr uint32_t kRpcMessages = 4096;
constexpr uint16_t kPortNetbiosSession = 139;

constexpr uint16_t kPortDns = 53, kPortMdns = 5353, kPortLlmnr = 5355, kPortNtp = 123, kPortBootps = 67,
                   kPortBootpc = 68, kPortSsdp = 1900;

bool IsPort(const PacketView& v, uint16_t p) { return v.src_port == p || v.dst_port == p; }

struct PortLabel {
  uint8_t protocol;  // 6, 17 or 0 for both
  uint16_t port;
  AppProto app;
};
// IANA service names for the well-known ports (a guess: nothing checked the content).
constexpr PortLabel kPortLabels[] = {
    {6, 21, AppProto::kFtp},       {0, 22, AppProto::kSsh},      {6, 23, AppProto::kTelnet},
    {6, 25, AppProto::kSmtp},      {0, 53, AppProto::kDns},      {17, 67, AppProto::kDhcp},
    {17, 68, AppProto::kDhcp},     {0, 80, AppProto::kHttp},     {0, 88, AppProto::kKerberos},
    {6, 110, AppProto::kPop3},     {17, 123, AppProto::kNtp},    {0, 137, AppProto::kNetbios},
    {17, 138, AppProto::kNetbios}, {6, 139, AppProto::kNetbios}, {6, 143, AppProto::kImap},
    {17, 161, AppProto::kSnmp},    {17, 162, AppProto::kSnmp},   {0, 389, AppProto::kLdap},
    {6, 443, AppProto::kTls},      {17, 443, AppProto::kQuic},   {6, 445, AppProto::kSmb},
    {6, 465, AppProto::kSmtp},     {17, 514, AppProto::kSyslog}, {17, 546, AppProto::kDhcpv6},
    {17, 547, AppProto::kDhcpv6},  {6, 587, AppProto::kSmtp},    {6, 636, AppProto::kLdap},
    {6, 853, AppProto::kTls},      {6, 993, AppProto::kImap},    {6, 995, AppProto::kPop3},
    {6, 502, AppProto::kModbus},   {6, 1883, AppProto::kMqtt},   {17, 1900, AppProto::kSsdp},
    {6, 3306, AppProto::kMysql},   {0, 3389, AppProto::kRdp},    {0, 5060, AppProto::kSip},
    {17, 5353, AppProto::kMdns},   {0, 5355, AppProto::kLlmnr},  {6, 5432, AppProto::kPostgresql},
    {6, 6379, AppProto::kRedis},   {6, 8080, AppProto::kHttp},   {6, 8443, AppProto::kTls},
    {6, 20000, AppProto::kDnp3},
};

// kPortLabels ordered by port (stable: entries of one port keep their order), for a binary search: every flow
// nobody recognised asks for both its ports.
struct PortIndex {
  PortLabel labels[sizeof(kPortLabels) / sizeof(kPortLabels[0])];
  PortIndex() {
    std::copy(std::begin(kPortLabels), std::end(kPortLabels), std::begin(labels));
    std::stable_sort(std::begin(labels), std::end(labels),
                     [](const PortLabel& a, const PortLabel& b) { return a.port < b.port; });
  }
};

AppProto LookupPort(uint8_t protocol, uint16_t port) {
  static const PortIndex index;
  const PortLabel* l = std::lower_bound(std::begin(index.labels), std::end(index.labels), port,
                                        [](const PortLabel& a, uint16_t p) { return a.port < p; });
  for (; l != std::end(index.labels) && l->port == port; ++l) {
    if (l->protocol == 0 || l->protocol == protocol) return l->app;
  }
  return AppProto::kUnknown;
}

void Label(FlowEntry& e, AppProto p, AppLayerStats& stats) {
  if (e.app_proto == static_cast<uint8_t>(AppProto::kUnknown)) stats.flows_by_app[static_cast<int>(p)]++;
  e.app_proto = static_cast<uint8_t>(p);
  e.app_by = static_cast<uint8_t>(AppBy::kContent);
}

std::string Text(std::string_view s) { return std::string(s.data(), s.size()); }

const char* RrTypeName(uint16_t t) {
  switch (t) {
    case 1:
      return "A";
    case 28:
      return "AAAA";
    case 5:
      return "CNAME";
    default:
      return "?";
  }
}

// The (protocol, status) error slots: every status of every parser except kOk and kNeedMore.
struct ErrorSlots {
  const char* names[kMaxAppErrorSlots];
  int count = 0;
  int dns = 0, tls = 0, quic = 0, http = 0, ssh = 0, dhcp = 0, arp = 0, smb = 0,
      dcerpc = 0;  // first slot of each (status 1 -> base)

  template <typename Status>
  int Add(const char* (*name)(Status), int n, bool skip_need_more) {
    const int base = count;
    for (int i = 0; i < n; ++i) {
      const char* text = name(static_cast<Status>(i));
      if (i == 0 || (skip_need_more && i == 1)) text = nullptr;  // kOk, kNeedMore: not errors
      if (count < kMaxAppErrorSlots) names[count++] = text;
    }
    return base;
  }
  ErrorSlots() {
    dns = Add<DnsStatus>(DnsStatusName, static_cast<int>(DnsStatus::kCount), false);
    tls = Add<TlsStatus>(TlsStatusName, static_cast<int>(TlsStatus::kCount), true);
    quic = Add<QuicStatus>(QuicStatusName, static_cast<int>(QuicStatus::kCount), true);
    http = Add<HttpStatus>(HttpStatusName, static_cast<int>(HttpStatus::kCount), true);
    ssh = Add<SshStatus>(SshStatusName, static_cast<int>(SshStatus::kCount), true);
    dhcp = Add<DhcpStatus>(DhcpStatusName, static_cast<int>(DhcpStatus::kCount), false);
    arp = Add<ArpStatus>(ArpStatusName, static_cast<int>(ArpStatus::kCount), false);
    smb = Add<SmbStatus>(SmbStatusName, static_cast<int>(SmbStatus::kCount), true);
    dcerpc = Add<DcerpcStatus>(DcerpcStatusName, static_cast<int>(DcerpcStatus::kCount), true);
  }
};
const ErrorSlots& Slots() {
  static const ErrorSlots slots;
  return slots;
}

template <typename Status>
void CountError(AppLayerStats& stats, int base, Status st) {
  const int slot = base + static_cast<int>(st);
  if (slot < kMaxAppErrorSlots && Slots().names[slot] != nullptr) stats.errors[slot]++;
}

}  // namespace

const char* AppProtoName(AppProto p) {
  static const char* const kNames[] = {
      "",       "dns",        "mdns",  "llmnr", "tls",     "quic", "http",   "ssh",  "dhcp",     "ntp",    "ftp",
      "telnet", "smtp",       "pop3",  "imap",  "netbios", "snmp", "ldap",   "smb",  "syslog",   "ssdp",   "dhcpv6",
      "mysql",  "postgresql", "redis", "rdp",   "sip",     "mqtt", "modbus", "dnp3", "kerberos", "dcerpc", "stratum"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(AppProto::kCount), "one name per label");
  const int i = static_cast<int>(p);
  return i >= 0 && i < static_cast<int>(AppProto::kCount) ? kNames[i] : "";
}

AppProto GuessAppByPort(uint8_t protocol, uint16_t responder_port, uint16_t initiator_port) {
  if (protocol != 6 && protocol != 17) return AppProto::kUnknown;
  const AppProto p = LookupPort(protocol, responder_port);
  return p != AppProto::kUnknown ? p : LookupPort(protocol, initiator_port);
}

const char* AppCounterName(int i) {
  static const char* const kNames[kAppCounterCount] = {
      "tcp_gaps",     "tls_client_hellos", "tls_server_hellos", "quic_client_hellos", "quic_server_hellos",
      "dns_messages", "http_requests",     "ssh_banners",       "dhcp_messages",      "arp_messages",
      "states_live",  "smb_messages",      "dcerpc_pdus",       "tls_certificates"};
  return i >= 0 && i < kAppCounterCount ? kNames[i] : "unknown";
}

int AppErrorSlotCount() { return Slots().count; }
const char* AppErrorName(int slot) {
  return slot >= 0 && slot < Slots().count && Slots().names[slot] != nullptr ? Slots().names[slot] : nullptr;
}

namespace {

char* PutDecimal(char* p, uint32_t v) { return p + WriteDecimal(v, p); }

char* PutDottedQuad(char* p, const uint8_t* a) {
  for (int i = 0; i < 4; ++i) {
    if (i != 0) *p++ = '.';
    p = PutDecimal(p, a[i]);
  }
  return p;
}

}  // namespace

size_t FormatAddress(const uint8_t addr[16], char out[kAddressTextBytes]) {
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char* p = out;
  if (std::memcmp(addr, kMapped, 12) == 0) {
    p = PutDottedQuad(p, addr + 12);
    *p = '\0';
    return static_cast<size_t>(p - out);
  }
  // glibc's inet_ntop6 (after BIND's): the longest run of two or more zero words (the first of equal runs) becomes
  // "::"; hex words without leading zeros; an IPv4-compatible or -mapped tail (a zero run from word 0 of 6 words,
  // of 7 words with a last word other than 1, or of 5 words followed by ffff) is printed dotted.
  uint16_t w[8];
  for (int i = 0; i < 8; ++i) w[i] = static_cast<uint16_t>((addr[2 * i] << 8) | addr[2 * i + 1]);
  int best = -1, best_len = 0, cur = -1, cur_len = 0;
  for (int i = 0; i < 8; ++i) {
    if (w[i] == 0) {
      if (cur < 0) {
        cur = i;
        cur_len = 1;
      } else {
        ++cur_len;
      }
    } else if (cur >= 0) {
      if (best < 0 || cur_len > best_len) {
        best = cur;
        best_len = cur_len;
      }
      cur = -1;
    }
  }
  if (cur >= 0 && (best < 0 || cur_len > best_len)) {
    best = cur;
    best_len = cur_len;
  }
  if (best >= 0 && best_len < 2) best = -1;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    if (best >= 0 && i >= best && i < best + best_len) {
      if (i == best) *p++ = ':';
      continue;
    }
    if (i != 0) *p++ = ':';
    if (i == 6 && best == 0 &&
        (best_len == 6 || (best_len == 7 && w[7] != 0x0001) || (best_len == 5 && w[5] == 0xffff))) {
      p = PutDottedQuad(p, addr + 12);
      *p = '\0';
      return static_cast<size_t>(p - out);
    }
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = (w[i] >> shift) & 0xf;
      if (digit != 0 || started || shift == 0) {
        *p++ = kHex[digit];
        started = true;
      }
    }
  }
  if (best >= 0 && best + best_len == 8) *p++ = ':';
  *p = '\0';
  return static_cast<size_t>(p - out);
}

std::string AddressText(const uint8_t addr[16]) {
  char text[kAddressTextBytes];
  return std::string(text, FormatAddress(addr, text));
}

void AppState::Clear() {
  resolved_name.clear();
  dns.reset();
  tls.reset();
  http.reset();
  ssh.reset();
  dhcp.reset();
  rpc.reset();
  for (int d = 0; d < 2; ++d) {
    tls_asm[d].reset();
    quic[d].reset();
    head[d].reset();
    tls_records[d].Reset();
    tls_hello_done[d] = false;
    tls_cert_wait[d] = false;
    next_seq[d] = 0;
    seq_known[d] = false;
    dir_done[d] = false;
    payload_packets[d] = 0;
  }
  messages = 0;
  http_request_dir = -1;
  tunnel = false;
  http_body_at = 0;
  http_chunked = false;
}

AppLayer::AppLayer(const AppLayerConfig& config)
    : config_(config),
      dns_cache_(config.enabled ? config.dns_cache_entries : 0),
      arp_(config.enabled ? config.arp_entries : 1) {}

AppLayer::~AppLayer() = default;

AppLayerStats AppLayer::Stats() const {
  AppLayerStats s = stats_;
  s.dns_cache = dns_cache_.stats();
  s.arp_bindings = arp_.size();
  s.arp_evictions = arp_.evictions();
  return s;
}

AppState* AppLayer::Acquire(FlowEntry& e) {
  if (e.app != nullptr) return e.app;
  if (free_.empty()) {
    chunks_.emplace_back(new AppState[kStateChunk]);
    AppState* chunk = chunks_.back().get();
    for (size_t i = kStateChunk; i-- > 0;) free_.push_back(&chunk[i]);
  }
  e.app = free_.back();
  free_.pop_back();
  stats_.counters[kAppStatesLive]++;
  return e.app;
}

void AppLayer::OnFlowEnd(FlowEntry& e) {
  if (e.app == nullptr) return;  // none, or the flow sink took it (FlowSink::OnFinished)
  Recycle(e.app);
  e.app = nullptr;
}

void AppLayer::Recycle(AppState* state) {
  state->Clear();
  free_.push_back(state);
  stats_.counters[kAppStatesLive]--;
}

void AppLayer::Done(FlowEntry& e) {
  e.app_done = true;
  if (e.app == nullptr) return;
  for (int d = 0; d < 2; ++d) {
    e.app->tls_asm[d].reset();
    e.app->quic[d].reset();
    e.app->head[d].reset();
  }
}

void AppLayer::OnFlowStart(FlowEntry& e, const PacketView& v, int64_t ts_ns) {
  if (!config_.enabled) {
    e.app_done = true;
    return;
  }
  // The responder's name as its initiator resolved it (the flow's first packet goes initiator -> responder).
  if (v.protocol == 6 || v.protocol == 17) {
    const NameText* name = dns_cache_.Lookup(v.src, v.dst, ts_ns);
    if (name != nullptr) Acquire(e)->resolved_name = Text(name->view());
  }
  Inspect(e, v, kFwd, ts_ns);
}

void AppLayer::OnPacket(FlowEntry& e, const PacketView& v, Direction dir, int64_t ts_ns) {
  if (!config_.enabled || e.app_done) return;
  Inspect(e, v, dir, ts_ns);
}

bool AppLayer::Recognise(FlowEntry& e, const PacketView& v, Direction dir) {
  const uint8_t* p = v.payload;
  const uint32_t n = v.payload_captured;
  if (v.protocol == 17) {
    if (IsPort(v, kPortDns) && LooksLikeDns(p, n)) {
      Label(e, AppProto::kDns, stats_);
    } else if (IsPort(v, kPortMdns) && LooksLikeDns(p, n)) {
      Label(e, AppProto::kMdns, stats_);
    } else if (IsPort(v, kPortLlmnr) && LooksLikeDns(p, n)) {
      Label(e, AppProto::kLlmnr, stats_);
    } else if (LooksLikeQuicInitial(p, n)) {
      Label(e, AppProto::kQuic, stats_);
    } else if ((IsPort(v, kPortBootps) || IsPort(v, kPortBootpc)) && LooksLikeDhcp(p, n)) {
      Label(e, AppProto::kDhcp, stats_);
    } else if (LooksLikeSip(p, n)) {  // before HTTP: "OPTIONS sip:..." starts like an HTTP request
      Label(e, AppProto::kSip, stats_);
      Done(e);
    } else if (LooksLikeHttpRequest(p, n) || LooksLikeHttpResponse(p, n)) {
      Label(e, IsPort(v, kPortSsdp) ? AppProto::kSsdp : AppProto::kHttp, stats_);
    } else if (IsPort(v, kPortNtp) && n >= 48 && ((p[0] >> 3) & 7) >= 1 && ((p[0] >> 3) & 7) <= 4 && (p[0] & 7) != 0) {
      Label(e, AppProto::kNtp, stats_);
      Done(e);
    } else {
      return false;
    }
    return true;
  }
  if (v.protocol != 6) return false;
  if (LooksLikeTlsHandshake(p, n)) {
    Label(e, AppProto::kTls, stats_);
  } else if (LooksLikeSip(p, n)) {
    Label(e, AppProto::kSip, stats_);
    Done(e);
  } else if (LooksLikeHttpRequest(p, n) || LooksLikeHttpResponse(p, n)) {
    Label(e, AppProto::kHttp, stats_);
  } else if (LooksLikeSsh(p, n)) {
    Label(e, AppProto::kSsh, stats_);
  } else if (LooksLikeSmb(p, n) || (IsPort(v, kPortNetbiosSession) && n >= 4 && p[0] == 0x81)) {
    Label(e, AppProto::kSmb, stats_);
  } else if (LooksLikeDcerpcClient(p, n)) {
    Label(e, AppProto::kDcerpc, stats_);
  } else if (LooksLikeStratum(p, n)) {
    Label(e, AppProto::kStratum, stats_);
    Done(e);
  } else if (IsPort(v, kPortDns) && n > 2 && LooksLikeDns(p + 2, n - 2)) {
    Label(e, AppProto::kDns, stats_);
  } else {
    return false;
  }
  (void)dir;
  return true;
}

// TCP: true when v continues its direction's stream in order (the first payload segment starts it). A gap ends
// that direction's parsing; a retransmission of bytes already seen is skipped.
bool AppLayer::InOrder(AppState& s, const PacketView& v, Direction dir) {
  if (!s.seq_known[dir]) {
    s.seq_known[dir] = true;
    s.next_seq[dir] = v.tcp_seq + v.payload_captured;
    return true;
  }
  const int32_t delta = static_cast<int32_t>(v.tcp_seq - s.next_seq[dir]);
  if (delta < 0) return false;  // retransmission / overlap
  if (delta > 0 || v.payload_captured < v.payload_bytes) {
    stats_.counters[kAppTcpGap]++;
    s.dir_done[dir] = true;
    return false;
  }
  s.next_seq[dir] += v.payload_captured;
  return true;
}

void AppLayer::Inspect(FlowEntry& e, const PacketView& v, Direction dir, int64_t ts_ns) {
  if (v.payload == nullptr || v.payload_captured == 0) return;
  if (e.app_by != static_cast<uint8_t>(AppBy::kContent)) {
    if (!Recognise(e, v, dir)) {
      // Counted in the flow entry: a flow nobody recognises never gets an AppState.
      const int shift = dir == kFwd ? 0 : 4;
      const int mine = ((e.app_tries >> shift) & 0xF) + 1;
      const int other = (e.app_tries >> (4 - shift)) & 0xF;
      if (mine <= 0xF) e.app_tries = static_cast<uint8_t>((e.app_tries & ~(0xF << shift)) | (mine << shift));
      if (mine >= kRecogniseTries && other >= (v.protocol == 17 ? 0 : 1)) Done(e);
      return;
    }
    if (e.app_done) return;
  }
  AppState& s = e.app != nullptr ? *e.app : *Acquire(e);
  if (s.dir_done[dir]) return;
  switch (static_cast<AppProto>(e.app_proto)) {
    case AppProto::kDns:
    case AppProto::kMdns:
    case AppProto::kLlmnr:
      if (v.protocol == 17) {
        OnDns(e, s, v.payload, v.payload_captured, dir, ts_ns);
      } else if (InOrder(s, v, dir)) {
        // DNS over TCP: the first message of each direction, when it is whole in its segment.
        if (v.payload_captured > 2) {
          const uint32_t len = be16(v.payload);
          if (len <= v.payload_captured - 2) OnDns(e, s, v.payload + 2, len, dir, ts_ns);
        }
        s.dir_done[dir] = true;
      }
      break;
    case AppProto::kTls:
      OnTls(e, s, v, dir);
      break;
    case AppProto::kQuic:
      OnQuic(e, s, v, dir);
      break;
    case AppProto::kHttp:
    case AppProto::kSsdp:
      OnHttp(e, s, v, dir);
      break;
    case AppProto::kSsh:
      OnSsh(e, s, v, dir);
      break;
    case AppProto::kDhcp:
      OnDhcp(e, s, v);
      break;
    case AppProto::kSmb:
    case AppProto::kDcerpc:
      if (v.protocol == 6) {
        OnRpc(e, s, v, dir);
        return;  // its own budget (kRpcMessages), not the packet budget
      }
      Done(e);
      return;
    default:
      Done(e);
      return;
  }
  // The packet budget bounds the parsers' work, except where the work per packet is one header check: DNS messages
  // (bounded by kDnsMessages) and the requests counted on an HTTP flow's request direction.
  const AppProto app = static_cast<AppProto>(e.app_proto);
  const bool dns = app == AppProto::kDns || app == AppProto::kMdns || app == AppProto::kLlmnr;
  const bool counting = (app == AppProto::kHttp || app == AppProto::kSsdp) && s.http_request_dir == dir;
  // TLS keeps reading record headers after the hello (TlsRecordWalker: one header per record, its own budget).
  const bool walking = app == AppProto::kTls && !s.tls_records[dir].done();
  if (!e.app_done && ++s.payload_packets[dir] > kParsePackets && !dns && !counting && !walking) s.dir_done[dir] = true;
  if (!e.app_done && s.dir_done[kFwd] && s.dir_done[kBwd]) Done(e);
}

void AppLayer::OnDns(FlowEntry& e, AppState& s, const uint8_t* data, uint32_t len, Direction dir, int64_t ts_ns) {
  if (!dns_msg_) dns_msg_ = std::make_unique<DnsMessage>();
  DnsMessage& m = *dns_msg_;
  const DnsStatus st = ParseDns(data, len, &m);
  stats_.counters[kAppDnsMessages]++;
  if (st != DnsStatus::kOk) CountError(stats_, Slots().dns, st);
  // A message cut short (a first IP fragment, a snap length) still names its question; a response without one
  // (mDNS announcements) still has answers.
  const bool usable = st == DnsStatus::kOk || (st == DnsStatus::kTruncated && !m.query.empty()) ||
                      (st == DnsStatus::kNoQuestion && m.response);
  if (!usable) return;
  if (!s.dns && !m.query.empty()) {
    s.dns = std::make_unique<DnsInfo>();
    s.dns->query = Text(m.query.view());
    s.dns->qtype = m.qtype;
  }
  if (m.response && s.dns && s.dns->rcode < 0) {
    s.dns->rcode = m.rcode;
    std::string& out = s.dns->answers;
    for (int i = 0; i < m.kept; ++i) {
      const DnsAnswer& a = m.answers[i];
      // "type\x1fttl\x1f" and an address are formed on the stack; a CNAME target is appended from the message.
      char record[8 + 12 + kAddressTextBytes];
      char* p = record;
      if (!out.empty()) *p++ = '\x1e';
      const char* type = RrTypeName(a.type);
      const size_t type_len = std::strlen(type);
      std::memcpy(p, type, type_len);
      p += type_len;
      *p++ = '\x1f';
      p = PutDecimal(p, a.ttl);
      *p++ = '\x1f';
      if (a.type != 5) p += FormatAddress(a.addr, p);
      out.append(record, static_cast<size_t>(p - record));
      if (a.type == 5) out.append(a.cname.data, a.cname.len);
    }
  }
  // mDNS announcements name LAN devices for everyone: their A/AAAA records go in under the all-zero client (found by
  // the cache's any-client fallback) with the record's own name.
  if (m.response && e.app_proto == static_cast<uint8_t>(AppProto::kMdns)) {
    static const uint8_t kAnyClient[16] = {};
    for (int i = 0; i < m.kept; ++i) {
      const DnsAnswer& a = m.answers[i];
      if ((a.type == 1 || a.type == 28) && !a.name.empty()) dns_cache_.Insert(kAnyClient, a.addr, a.name, a.ttl, ts_ns);
    }
  }
  // Unicast answers teach the cache: the client is the address the response went to, the name the one it asked for.
  if (m.response && e.app_proto != static_cast<uint8_t>(AppProto::kMdns) && !m.query.empty()) {
    const uint8_t* client = dir == kBwd ? (e.initiator_is_lo ? e.key.addr_lo : e.key.addr_hi)
                                        : (e.initiator_is_lo ? e.key.addr_hi : e.key.addr_lo);
    for (int i = 0; i < m.kept; ++i) {
      const DnsAnswer& a = m.answers[i];
      if (a.type == 1 || a.type == 28) dns_cache_.Insert(client, a.addr, m.query, a.ttl, ts_ns);
    }
  }
  if (++s.messages >= kDnsMessages) Done(e);
}

void AppLayer::TakeClientHello(AppState& s, const uint8_t* msg, uint32_t len, bool quic) {
  if (!client_hello_) client_hello_ = std::make_unique<TlsClientHello>();
  TlsClientHello& ch = *client_hello_;
  const TlsStatus st = ParseClientHello(msg, len, &ch);
  if (st != TlsStatus::kOk) {
    CountError(stats_, Slots().tls, st);
    return;
  }
  stats_.counters[quic ? kAppQuicClientHello : kAppTlsClientHello]++;
  if (!s.tls) s.tls = std::make_unique<TlsInfo>();
  TlsInfo& t = *s.tls;
  t.sni = Text(ch.sni.view());
  if (t.alpn.empty()) t.alpn = Text(ch.alpn_first.view());
  if (t.version < 0) t.version = ch.max_version;
  char ja3[33];
  Ja3(ch, ja3);
  t.ja3 = ja3;
  char ja4[40];
  Ja4(ch, quic, ja4);
  t.ja4 = ja4;
}

bool AppLayer::TakeServerHello(AppState& s, const uint8_t* msg, uint32_t len, bool quic) {
  if (!server_hello_) server_hello_ = std::make_unique<TlsServerHello>();
  TlsServerHello& sh = *server_hello_;
  const TlsStatus st = ParseServerHello(msg, len, &sh);
  if (st != TlsStatus::kOk) {
    CountError(stats_, Slots().tls, st);
    return false;
  }
  stats_.counters[quic ? kAppQuicServerHello : kAppTlsServerHello]++;
  if (!s.tls) s.tls = std::make_unique<TlsInfo>();
  TlsInfo& t = *s.tls;
  t.version = sh.selected_version;
  t.cipher = sh.cipher;
  if (!sh.alpn.empty()) t.alpn = Text(sh.alpn.view());
  char ja4s[32];
  Ja4s(sh, quic, ja4s);
  t.ja4s = ja4s;
  return !quic && sh.selected_version >= 0x0300 && sh.selected_version <= 0x0303;
}

// The Certificate after a TLS <= 1.2 ServerHello: fed until its first certificate is in, within the packet budget.
// A record that is no handshake (a resumed session's ChangeCipherSpec) or another message (anonymous key exchange)
// means there is none, which is not an error.
void AppLayer::OnTlsCertificate(AppState& s, TlsHandshakeAssembler& as, const uint8_t* data, uint32_t len,
                                Direction dir) {
  const TlsStatus st = len > 0 ? as.Feed(data, len) : TlsStatus::kNeedMore;
  if (st == TlsStatus::kNeedMore && s.payload_packets[dir] + 1 < kParsePackets) return;
  s.tls_cert_wait[dir] = false;
  if (st == TlsStatus::kOk && as.message()[0] == 11) {
    if (!certificate_) certificate_ = std::make_unique<TlsCertificate>();
    TlsCertificate& c = *certificate_;
    const TlsStatus ps = ParseCertificate(as.message(), as.message_len(), &c);
    if (ps != TlsStatus::kOk) {
      CountError(stats_, Slots().tls, ps);
    } else if (s.tls) {
      stats_.counters[kAppTlsCertificates]++;
      auto info = std::make_unique<TlsCertInfo>();
      info->subject_cn = Text(c.subject.cn.view());
      info->subject_o = Text(c.subject.o.view());
      info->subject_ou = Text(c.subject.ou.view());
      info->issuer_cn = Text(c.issuer.cn.view());
      info->issuer_o = Text(c.issuer.o.view());
      info->issuer_ou = Text(c.issuer.ou.view());
      info->self_signed = c.self_signed;
      info->has_validity = c.has_validity;
      info->not_before = c.not_before;
      info->not_after = c.not_after;
      s.tls->cert = std::move(info);
    }
  } else if (st != TlsStatus::kOk && st != TlsStatus::kNeedMore && st != TlsStatus::kNotTls) {
    CountError(stats_, Slots().tls, st);
  }
  s.tls_asm[dir].reset();
}

void AppLayer::OnTls(FlowEntry& e, AppState& s, const PacketView& v, Direction dir) {
  if (!InOrder(s, v, dir)) return;
  // The record layer, from the stream's first byte: heartbeats (and the application data that makes them late).
  TlsRecordWalker& walker = s.tls_records[dir];
  if (!walker.done()) {
    const bool hello_was_done = s.tls_hello_done[dir];
    const TlsStatus ws = walker.Feed(v.payload, v.payload_captured, s.tls_records[dir ^ 1].app_data());
    // A bad header inside the hello is the assembler's to count.
    if (ws == TlsStatus::kBadRecord && hello_was_done) CountError(stats_, Slots().tls, ws);
  }
  if (!s.tls_hello_done[dir]) {
    auto& as = s.tls_asm[dir];
    if (!as) as = std::make_unique<TlsHandshakeAssembler>();
    const TlsStatus st = as->Feed(v.payload, v.payload_captured);
    if (st == TlsStatus::kNeedMore && s.payload_packets[dir] + 1 < kParsePackets) return;
    s.tls_hello_done[dir] = true;
    if (st != TlsStatus::kOk && st != TlsStatus::kNeedMore) {
      CountError(stats_, Slots().tls, st);
    } else if (as->message_len() > 0 && as->message()[0] == 1) {
      TakeClientHello(s, as->message(), as->message_len(), false);
    } else if (as->message_len() > 0 && as->message()[0] == 2) {
      if (st == TlsStatus::kOk && TakeServerHello(s, as->message(), as->message_len(), false)) {
        // TLS <= 1.2: the Certificate follows in cleartext, often in the same segment.
        s.tls_cert_wait[dir] = true;
        const uint32_t used = as->consumed();
        as->NextCertificate();
        OnTlsCertificate(s, *as, v.payload + used, v.payload_captured - used, dir);
      }
    }
    if (!s.tls_cert_wait[dir]) as.reset();
  } else if (s.tls_cert_wait[dir] && s.tls_asm[dir]) {
    OnTlsCertificate(s, *s.tls_asm[dir], v.payload, v.payload_captured, dir);
  }
  if (walker.done()) s.dir_done[dir] = true;
}

void AppLayer::OnQuic(FlowEntry& e, AppState& s, const PacketView& v, Direction dir) {
  auto& q = s.quic[dir];
  if (dir == kBwd) {
    // The server's keys come from the DCID the client's Initials use (after a Retry, the new one): wait for the
    // client's first Initial, and follow it (SetOriginalDcid re-keys only when it changed).
    if (!s.quic[kFwd] || s.quic[kFwd]->original_dcid_len() == 0) return;
    if (!q) q = std::make_unique<QuicInitialReader>(true);
    q->SetOriginalDcid(s.quic[kFwd]->original_dcid(), s.quic[kFwd]->original_dcid_len());
  } else if (!q) {
    q = std::make_unique<QuicInitialReader>(false);
  }
  const QuicStatus st = q->Feed(v.payload, v.payload_captured);
  if (st == QuicStatus::kNeedMore) return;
  if (st == QuicStatus::kOk) {
    const uint8_t* msg = q->handshake();
    const uint32_t len = q->handshake_len();
    if (len > 0 && msg[0] == 1) TakeClientHello(s, msg, len, true);
    if (len > 0 && msg[0] == 2) TakeServerHello(s, msg, len, true);
  } else if (st != QuicStatus::kNotInitial) {
    CountError(stats_, Slots().quic, st);
  } else {
    return;  // a later packet type (Handshake, 1-RTT): keep waiting within the packet budget
  }
  s.dir_done[dir] = true;
  if (dir == kBwd) q.reset();  // the client reader keeps the DCID for the server direction
}

void AppLayer::OnHttp(FlowEntry& e, AppState& s, const PacketView& v, Direction dir) {
  if (!s.http) s.http = std::make_unique<HttpInfo>();
  HttpInfo& h = *s.http;
  // The response direction never starts requests: its later segments (a head or body being collected) skip the test.
  const bool starts_request =
      (s.http_request_dir < 0 || dir == s.http_request_dir) && LooksLikeHttpRequest(v.payload, v.payload_captured);
  // The request direction is the one whose first payload is a request (usually the initiator's, but a capture may
  // have missed the handshake and taken the server for the initiator).
  if (s.http_request_dir < 0) {
    if (starts_request) {
      s.http_request_dir = dir;
    } else if (!LooksLikeHttpResponse(v.payload, v.payload_captured)) {
      s.dir_done[dir] = true;
      return;
    }
  }
  if (dir == s.http_request_dir) {
    // Count requests on the whole flow: each request starts a segment in practice (pipelining aside).
    if (starts_request) {
      h.requests++;
      stats_.counters[kAppHttpRequests]++;
    }
    if (!h.method.empty()) return;
    if (v.protocol == 17) {  // SSDP and other HTTP over UDP: one request per datagram
      HttpRequest req;
      TakeHttpRequest(h, ParseHttpRequest(v.payload, v.payload_captured, &req), req);
      s.dir_done[kFwd] = s.dir_done[kBwd] = true;
      return;
    }
    if (!InOrder(s, v, dir)) return;
    auto& head = s.head[dir];
    if (!head) {
      if (!starts_request) {
        s.dir_done[dir] = true;
        return;
      }
      head = std::make_unique<StreamHead>();
    }
    const uint32_t room = StreamHead::kBytes - head->len;
    const uint32_t take = v.payload_captured < room ? v.payload_captured : room;
    std::memcpy(head->data + head->len, v.payload, take);
    head->len += take;
    HttpRequest req;
    const HttpStatus st = ParseHttpRequest(head->data, head->len, &req);
    if (st == HttpStatus::kNeedMore && head->len < StreamHead::kBytes && s.payload_packets[dir] + 1 < kParsePackets) {
      return;
    }
    TakeHttpRequest(h, st, req);
    head.reset();
    return;  // the request direction stays open to count requests
  }
  if (h.status < 0 || s.head[dir]) {
    if (!InOrder(s, v, dir)) return;
    if (OnHttpResponse(e, s, h, v, dir)) return;
  }
  s.dir_done[dir] = true;
}

// The first response of the flow: status, Content-Type, then the first kHttpMagicBytes of its body (magic bytes). The
// head is parsed in the segment when it is whole there; otherwise it is collected in s.head[dir] (4 KiB, freed when
// done). True while more segments are wanted.
bool AppLayer::OnHttpResponse(FlowEntry& e, AppState& s, HttpInfo& h, const PacketView& v, Direction dir) {
  auto& head = s.head[dir];
  const uint8_t* data = v.payload;
  uint32_t len = v.payload_captured;
  if (head) {
    const uint32_t room = StreamHead::kBytes - head->len;
    const uint32_t take = len < room ? len : room;
    std::memcpy(head->data + head->len, data, take);
    head->len += take;
    data = head->data;
    len = head->len;
  }
  const bool can_wait = s.payload_packets[dir] + 1 < kParsePackets && len < StreamHead::kBytes;
  auto wait = [&]() {
    if (!head) {
      head = std::make_unique<StreamHead>();
      std::memcpy(head->data, data, len);  // len <= one segment < kBytes (can_wait)
      head->len = len;
    }
    return true;
  };
  // Once the head was read (waiting for body bytes only), it is not parsed again.
  HttpResponse resp;
  HttpStatus st = HttpStatus::kOk;
  if (s.http_body_at > 0) {
    resp.head_len = s.http_body_at;
    resp.chunked = s.http_chunked;
  } else {
    st = ParseHttpResponseHead(data, len, &resp);
    if (resp.status != 0 && h.status < 0) {
      h.status = resp.status;
      // A tunnel opened with CONNECT carries its own protocol (TLS, mostly): recognise the flow afresh, keeping what
      // HTTP said.
      if (h.method == "CONNECT" && resp.status >= 200 && resp.status < 300) {
        e.app_by = static_cast<uint8_t>(AppBy::kNone);
        e.app_tries = 0;
        s.tunnel = true;
        head.reset();
        for (int d = 0; d < 2; ++d) {
          s.seq_known[d] = false;
          s.dir_done[d] = false;
          s.payload_packets[d] = 0;
        }
        return true;
      }
    }
    if (!resp.content_type.empty()) h.content_type = Text(resp.content_type.view());
    if (st == HttpStatus::kNeedMore && can_wait) return wait();
    if (st != HttpStatus::kOk) {
      if (st != HttpStatus::kNeedMore && st != HttpStatus::kNotHttp) CountError(stats_, Slots().http, st);
      head.reset();
      return false;
    }
  }
  const uint8_t* body = data + resp.head_len;
  uint32_t body_len = len - resp.head_len;
  auto wait_for_body = [&]() {
    s.http_body_at = resp.head_len;
    s.http_chunked = resp.chunked;
    return wait();
  };
  if (resp.chunked) {
    uint32_t skip = 0;
    const HttpStatus cs = SkipChunkSize(body, body_len, &skip);
    if (cs == HttpStatus::kNeedMore && can_wait) return wait_for_body();
    body += skip;
    body_len = cs == HttpStatus::kOk ? body_len - skip : 0;
  }
  HttpBodyMagic magic = ClassifyBodyMagic(body, body_len, false);
  if (magic == HttpBodyMagic::kNone && body_len < kHttpMagicBytes && can_wait) return wait_for_body();
  if (magic == HttpBodyMagic::kNone) magic = ClassifyBodyMagic(body, body_len, true);
  h.body_magic = magic;
  head.reset();
  return false;
}

void AppLayer::TakeHttpRequest(HttpInfo& h, HttpStatus st, const HttpRequest& req) {
  if (st == HttpStatus::kOk || st == HttpStatus::kNeedMore) {
    h.method = Text(req.method.view());
    h.host = Text(req.host.view());
    h.uri = Text(req.uri.view());
    h.user_agent = Text(req.user_agent.view());
  } else {
    CountError(stats_, Slots().http, st);
  }
}

void AppLayer::OnSsh(FlowEntry& e, AppState& s, const PacketView& v, Direction dir) {
  if (!InOrder(s, v, dir)) return;
  auto& head = s.head[dir];
  if (!head) head = std::make_unique<StreamHead>();
  const uint32_t room = StreamHead::kBytes - head->len;
  const uint32_t take = v.payload_captured < room ? v.payload_captured : room;
  std::memcpy(head->data + head->len, v.payload, take);
  head->len += take;
  NameText banner;
  const SshStatus st = ParseSshBanner(head->data, head->len, &banner);
  if (st == SshStatus::kNeedMore && head->len < StreamHead::kBytes) return;
  if (st == SshStatus::kOk) {
    if (!s.ssh) s.ssh = std::make_unique<SshInfo>();
    (dir == kFwd ? s.ssh->client : s.ssh->server) = Text(banner.view());
    stats_.counters[kAppSshBanners]++;
  } else {
    CountError(stats_, Slots().ssh, st);
  }
  head.reset();
  s.dir_done[dir] = true;
}

void AppLayer::OnDhcp(FlowEntry& e, AppState& s, const PacketView& v) {
  DhcpMessage m;
  const DhcpStatus st = ParseDhcp(v.payload, v.payload_captured, &m);
  stats_.counters[kAppDhcpMessages]++;
  if (st != DhcpStatus::kOk) {
    CountError(stats_, Slots().dhcp, st);
    return;
  }
  if (m.op != 1) return;  // server replies name nobody
  if (!s.dhcp) s.dhcp = std::make_unique<DhcpInfo>();
  DhcpInfo& d = *s.dhcp;
  std::memcpy(d.mac, m.client_mac, 6);
  d.has_mac = true;
  if (!m.hostname.empty()) {
    d.hostname = Text(m.hostname.view());
    Done(e);
  }
}

void AppLayer::OnRpc(FlowEntry& e, AppState& s, const PacketView& v, Direction dir) {
  if (!InOrder(s, v, dir)) return;
  const bool smb = e.app_proto == static_cast<uint8_t>(AppProto::kSmb);
  if (!s.rpc) s.rpc = std::make_unique<RpcFlow>(smb ? PduFramer::Kind::kNetbios : PduFramer::Kind::kDcerpc);
  RpcFlow& r = *s.rpc;
  const bool framed =
      r.framer[dir].Feed(v.payload, v.payload_captured, [&](const uint8_t* m, uint32_t len, uint32_t all) {
        r.messages++;
        if (smb) {
          stats_.counters[kAppSmbMessages]++;
          const SmbStatus st = ParseSmbMessage(m, len, all, &r.smb, &r.rpc);
          if (st != SmbStatus::kOk && st != SmbStatus::kNeedMore) CountError(stats_, Slots().smb, st);
          return;
        }
        stats_.counters[kAppDcerpcPdus]++;
        DcerpcPdu pdu;
        const DcerpcStatus st = ParseDcerpcPdu(m, len, &pdu);
        if (st == DcerpcStatus::kOk) {
          r.rpc.Take(pdu, 0);
        } else if (st != DcerpcStatus::kNeedMore) {
          CountError(stats_, Slots().dcerpc, st);
        }
      });
  if (!framed) {
    CountError(stats_, Slots().dcerpc, DcerpcStatus::kNotDcerpc);  // framing lost: a fragment header that is not one
    s.dir_done[dir] = true;
  }
  if (r.messages >= kRpcMessages) s.dir_done[kFwd] = s.dir_done[kBwd] = true;
  if (s.dir_done[kFwd] && s.dir_done[kBwd]) Done(e);
}

void AppLayer::OnNonIp(const PacketView& v, int64_t ts_ns) {
  if (!config_.enabled || v.ethertype != 0x0806 || v.l3 == nullptr) return;
  ArpMessage m;
  const ArpStatus st = ParseArp(v.l3, v.l3_captured, &m);
  stats_.counters[kAppArpMessages]++;
  if (st != ArpStatus::kOk) {
    CountError(stats_, Slots().arp, st);
    return;
  }
  arp_.Add(m, ts_ns);
}

size_t AppLayer::DrainArp(std::vector<ArpBinding>* out, size_t max) { return arp_.Drain(out, max); }

}  // namespace vigil
