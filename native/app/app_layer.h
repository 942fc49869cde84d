// AppLayer: the application layer of the capture core. Recognises each flow's protocol by content (port as a
// fallback guess), runs the parser of that protocol (native/app/*.h) on the flow's first payload packets, keeps what
// they found in a per-flow AppState, learns names from DNS answers (DnsNameCache), and summarises ARP bindings.
// Owned by the capture thread, which calls it for every packet after the flow table accounted it. No napi, no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/arp.h"
#include "app/dcerpc.h"
#include "app/dns.h"
#include "app/dns_cache.h"
#include "app/http.h"
#include "app/pdu_framer.h"
#include "app/quic.h"
#include "app/smb.h"
#include "app/tls.h"
#include "decode/packet_view.h"
#include "features/flow_features.h"
#include "flow/flow_table.h"

namespace vigil {

// Application labels. Values are part of the batch layout (the `app` column); names are AppProtoName's.
enum class AppProto : uint8_t {
  kUnknown = 0,
  kDns,
  kMdns,
  kLlmnr,
  kTls,
  kQuic,
  kHttp,
  kSsh,
  kDhcp,
  kNtp,
  // Port-only labels (never recognised by content here).
  kFtp,
  kTelnet,
  kSmtp,
  kPop3,
  kImap,
  kNetbios,
  kSnmp,
  kLdap,
  kSmb,
  kSyslog,
  kSsdp,
  kDhcpv6,
  kMysql,
  kPostgresql,
  kRedis,
  kRdp,
  kSip,
  kMqtt,
  kModbus,
  kDnp3,
  kKerberos,
  kDcerpc,   // recognised by content (a bind or request on TCP); SMB also by content (kSmb)
  kStratum,  // crypto-currency mining (native/app/stratum.h), by content only
  kCount
};
const char* AppProtoName(AppProto p);  // "dns", "tls", ...; "" for kUnknown

// How the label was found: by content, or guessed from the port.
enum class AppBy : uint8_t { kNone = 0, kContent = 1, kPort = 2 };
// Where serverName came from. Values are part of the batch layout.
enum class NameSource : uint8_t { kNone = 0, kSni = 1, kQuicSni = 2, kHttpHost = 3, kDns = 4 };

// The port-based guess for a flow (responder port first, then the initiator's). kUnknown when none.
AppProto GuessAppByPort(uint8_t protocol, uint16_t responder_port, uint16_t initiator_port);

struct DnsInfo {
  std::string query;
  int32_t qtype = -1;
  int32_t rcode = -1;   // -1 until a response was seen
  std::string answers;  // records "type\x1fttl\x1fvalue" joined by '\x1e' (A, AAAA, CNAME)
};
// The server's first certificate (TLS <= 1.2 only: TLS 1.3 encrypts it). Names as UTF-8, at most 255 bytes each.
struct TlsCertInfo {
  std::string subject_cn, subject_o, subject_ou, issuer_cn, issuer_o, issuer_ou;
  bool self_signed = false;
  bool has_validity = false;
  int64_t not_before = 0;  // seconds since the epoch, UTC
  int64_t not_after = 0;
};
struct TlsInfo {
  int32_t version = -1;  // chosen (ServerHello), else the highest offered
  int32_t cipher = -1;   // chosen cipher suite
  std::string sni, alpn, ja3, ja4, ja4s;
  std::unique_ptr<TlsCertInfo> cert;  // null until a Certificate was read
};
struct HttpInfo {
  std::string method, host, uri, user_agent;
  std::string content_type;  // the first response's Content-Type, as sent (at most 128 bytes)
  int32_t status = -1;
  uint32_t requests = 0;
  HttpBodyMagic body_magic = HttpBodyMagic::kNone;  // what the first response's body starts with
};
struct SshInfo {
  std::string client, server;
};
struct DhcpInfo {
  std::string hostname;
  uint8_t mac[6] = {};
  bool has_mac = false;
};

// SMB2 sessions and DCE-RPC over TCP: the per-direction framers and what the client did (smb.h, dcerpc.h). About
// 6 KiB, allocated for SMB and DCE-RPC flows only.
struct RpcFlow {
  explicit RpcFlow(PduFramer::Kind kind) : framer{PduFramer(kind), PduFramer(kind)} {}
  PduFramer framer[2];
  SmbSummary smb;
  DcerpcSummary rpc;
  uint32_t messages = 0;  // messages framed, both directions (the budget: kRpcMessages)
};

// A bounded buffer for a message head spread over a few in-order TCP segments (HTTP request head, SSH banner).
struct StreamHead {
  static constexpr uint32_t kBytes = 4096;
  uint32_t len = 0;
  uint8_t data[kBytes];
};

// Per-flow application state: allocated when a flow first carries payload worth parsing, freed when it ends.
struct AppState {
  std::string resolved_name;  // from the DNS cache when the flow started (the responder's name for its initiator)
  std::unique_ptr<DnsInfo> dns;
  std::unique_ptr<TlsInfo> tls;
  std::unique_ptr<HttpInfo> http;
  std::unique_ptr<SshInfo> ssh;
  std::unique_ptr<DhcpInfo> dhcp;
  std::unique_ptr<RpcFlow> rpc;  // SMB or DCE-RPC flows
  // Parsers in progress, per direction (kFwd, kBwd); released as soon as a direction is done.
  std::unique_ptr<TlsHandshakeAssembler> tls_asm[2];
  std::unique_ptr<QuicInitialReader> quic[2];
  std::unique_ptr<StreamHead> head[2];
  // TLS: the record layer after the hello, per direction (heartbeats); whether the hello assembler is finished;
  // whether it goes on to the Certificate after a ServerHello that chose TLS <= 1.2.
  TlsRecordWalker tls_records[2];
  bool tls_hello_done[2] = {false, false};
  bool tls_cert_wait[2] = {false, false};
  uint32_t next_seq[2] = {0, 0};
  bool seq_known[2] = {false, false};
  bool dir_done[2] = {false, false};
  uint16_t payload_packets[2] = {0, 0};
  uint16_t messages = 0;         // DNS messages parsed on this flow
  int8_t http_request_dir = -1;  // the direction HTTP requests go (-1 until seen)
  bool tunnel = false;           // an HTTP CONNECT tunnel: the flow was recognised afresh after the 2xx
  uint32_t http_body_at = 0;     // the first response's head length once read (its body is awaited), else 0
  bool http_chunked = false;     // that response's body is chunked

  void Clear();
};

struct AppLayerConfig {
  bool enabled = true;
  uint16_t community_id_seed = 0;
  uint32_t dns_cache_entries = 16384;  // ~5 MiB when full (allocated as it fills)
  uint32_t arp_entries = 4096;
};

// Named counters of the application layer (malformed messages per reason, and events), exposed as
// `appLayer.errors` / `appLayer.counters` in JS. Fixed slots: AppCounterName(i) for i < kAppCounterCount.
enum AppCounter : int {
  kAppTcpGap = 0,      // a TCP segment after a gap: that direction's parsing stopped
  kAppTlsClientHello,  // ClientHellos parsed (TCP)
  kAppTlsServerHello,
  kAppQuicClientHello,
  kAppQuicServerHello,
  kAppDnsMessages,
  kAppHttpRequests,
  kAppSshBanners,
  kAppDhcpMessages,
  kAppArpMessages,
  kAppStatesLive,       // AppStates currently allocated (gauge)
  kAppSmbMessages,      // NetBIOS session messages carrying SMB read
  kAppDcerpcPdus,       // DCE-RPC fragments read over TCP (those inside SMB are not counted here)
  kAppTlsCertificates,  // server certificates read (TLS <= 1.2)
  kAppCounterCount
};
const char* AppCounterName(int i);

// Malformed-message counters: one slot per (protocol, status), named "<proto>_<reason>".
int AppErrorSlotCount();
const char* AppErrorName(int slot);

constexpr int kMaxAppErrorSlots = 64;

struct AppLayerStats {
  uint64_t counters[kAppCounterCount] = {};
  uint64_t errors[kMaxAppErrorSlots] = {};
  uint64_t flows_by_app[static_cast<int>(AppProto::kCount)] = {};  // flows labelled by content, at first label
  DnsCacheStats dns_cache;
  uint64_t arp_bindings = 0;
  uint64_t arp_evictions = 0;
};

class AppLayer : public FlowObserver {
 public:
  explicit AppLayer(const AppLayerConfig& config);
  ~AppLayer() override;
  AppLayer(const AppLayer&) = delete;
  AppLayer& operator=(const AppLayer&) = delete;

  bool enabled() const { return config_.enabled; }
  const AppLayerConfig& config() const { return config_; }

  // A new flow (its first packet is `v`, direction kFwd): looks up the name its initiator resolved for the
  // responder, then inspects the packet.
  void OnFlowStart(FlowEntry& e, const PacketView& v, int64_t ts_ns) override;
  // Every later packet of the flow.
  void OnPacket(FlowEntry& e, const PacketView& v, Direction dir, int64_t ts_ns) override;
  // The flow ended (after its record was emitted): frees its state.
  void OnFlowEnd(FlowEntry& e) override;
  // A state the flow sink took from a finished flow (FlowSink::OnFinished) and is done with: back to the pool.
  void Recycle(AppState* state);
  // A frame that is not IP (ARP is summarised).
  void OnNonIp(const PacketView& v, int64_t ts_ns);
  // ARP bindings changed since the last call (appended to out).
  size_t DrainArp(std::vector<ArpBinding>* out, size_t max);

  AppLayerStats Stats() const;

 private:
  AppState* Acquire(FlowEntry& e);
  void Inspect(FlowEntry& e, const PacketView& v, Direction dir, int64_t ts_ns);
  bool Recognise(FlowEntry& e, const PacketView& v, Direction dir);
  bool InOrder(AppState& s, const PacketView& v, Direction dir);
  void OnDns(FlowEntry& e, AppState& s, const uint8_t* data, uint32_t len, Direction dir, int64_t ts_ns);
  void OnTls(FlowEntry& e, AppState& s, const PacketView& v, Direction dir);
  void OnQuic(FlowEntry& e, AppState& s, const PacketView& v, Direction dir);
  void OnHttp(FlowEntry& e, AppState& s, const PacketView& v, Direction dir);
  void OnSsh(FlowEntry& e, AppState& s, const PacketView& v, Direction dir);
  bool OnHttpResponse(FlowEntry& e, AppState& s, HttpInfo& h, const PacketView& v, Direction dir);
  void TakeHttpRequest(HttpInfo& h, HttpStatus st, const HttpRequest& req);
  void OnDhcp(FlowEntry& e, AppState& s, const PacketView& v);
  void OnRpc(FlowEntry& e, AppState& s, const PacketView& v, Direction dir);
  void TakeClientHello(AppState& s, const uint8_t* msg, uint32_t len, bool quic);
  // Returns true when the ServerHello chose TLS 1.2 or older (its Certificate follows in cleartext).
  bool TakeServerHello(AppState& s, const uint8_t* msg, uint32_t len, bool quic);
  void OnTlsCertificate(AppState& s, TlsHandshakeAssembler& as, const uint8_t* data, uint32_t len, Direction dir);
  void Done(FlowEntry& e);

  AppLayerConfig config_;
  AppLayerStats stats_;
  DnsNameCache dns_cache_;
  ArpTable arp_;
  std::vector<std::unique_ptr<AppState[]>> chunks_;  // every state ever made (peak-bounded), kStateChunk each
  std::vector<AppState*> free_;                      // states not in use
  std::unique_ptr<DnsMessage> dns_msg_;              // scratch (large: kept off the stack)
  std::unique_ptr<TlsClientHello> client_hello_;
  std::unique_ptr<TlsServerHello> server_hello_;
  std::unique_ptr<TlsCertificate> certificate_;
};

// Text form of a 16-byte address as the batch carries it: a dotted quad for IPv4-mapped, else what glibc's
// inet_ntop(AF_INET6) prints, character for character, without its sprintf per word. FormatAddress writes it and a
// NUL to out and returns its length.
constexpr size_t kAddressTextBytes = 46;  // INET6_ADDRSTRLEN
size_t FormatAddress(const uint8_t addr[16], char out[kAddressTextBytes]);
std::string AddressText(const uint8_t addr[16]);

}  // namespace vigil
