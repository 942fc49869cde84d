// TLS handshake messages: ClientHello and ServerHello (RFC 5246, RFC 8446), with the fingerprints JA3 (Salesforce;
// the MD5 tshark's tls.handshake.ja3 gives), JA4 and JA4S (FoxIO's specification), and the server's first certificate
// of a TLS <= 1.2 handshake (names and validity, RFC 5280). The same ClientHello parser reads QUIC's (from CRYPTO
// frames, see quic.h). Pure functions plus a bounded per-direction record assembler.
#pragma once

#include <cstdint>
#include <memory>

#include "app/bounded_text.h"

namespace vigil {

enum class TlsStatus : uint8_t {
  kOk = 0,
  kNeedMore,        // not an error: the message continues in later segments (assembler only)
  kNotTls,          // the bytes are not a TLS handshake record
  kTruncated,       // a length field points past the message
  kBadRecord,       // record layer: bad content type / version / length
  kBadHandshake,    // handshake message type or vector lengths inconsistent
  kTooLarge,        // the handshake message exceeds the reassembly bound
  kBadCertificate,  // Certificate message: the first certificate's DER structure is inconsistent
  kCount
};
const char* TlsStatusName(TlsStatus s);  // "tls_truncated", ...

constexpr int kTlsMaxList = 128;  // ciphers / extensions / groups / signature algorithms kept (counts stay exact)

struct TlsClientHello {
  uint16_t legacy_version = 0;  // ClientHello.legacy_version
  uint16_t max_version = 0;     // highest non-GREASE supported_versions entry, or legacy_version
  uint16_t ciphers[kTlsMaxList];
  uint16_t cipher_count = 0;  // as offered, GREASE included
  uint16_t extensions[kTlsMaxList];
  uint16_t extension_count = 0;  // types in order, GREASE included
  uint16_t groups[kTlsMaxList];
  uint16_t group_count = 0;
  uint8_t point_formats[32];
  uint8_t point_format_count = 0;
  uint16_t sig_algs[kTlsMaxList];
  uint16_t sig_alg_count = 0;
  NameText sni;                 // server_name (host_name), as sent
  BoundedText<64> alpn_first;   // first ALPN protocol offered ("h2", "http/1.1", ...)
  uint8_t alpn_first_last = 0;  // last byte of the first ALPN protocol, kept for JA4 even when alpn_first is cut
  BoundedText<255> alpn;        // all offered, comma-separated
};

struct TlsServerHello {
  uint16_t legacy_version = 0;
  uint16_t selected_version = 0;  // supported_versions extension, or legacy_version
  uint16_t cipher = 0;
  uint16_t extensions[kTlsMaxList];
  uint16_t extension_count = 0;
  BoundedText<64> alpn;   // selected ALPN
  uint8_t alpn_last = 0;  // last byte of the selected ALPN, kept for JA4S even when alpn is cut
};

// Three attributes of an X.501 Name (RFC 5280 §4.1.2.4): the first commonName (2.5.4.3), organizationName
// (2.5.4.10) and organizationalUnitName (2.5.4.11), as UTF-8 (BMPString and UniversalString converted; the other
// string types as sent), each cut at 255 bytes.
struct TlsCertName {
  BoundedText<255> cn;
  BoundedText<255> o;
  BoundedText<255> ou;
};

// The first certificate of a Certificate message (the server's own, RFC 5246 §7.4.2).
struct TlsCertificate {
  TlsCertName subject;
  TlsCertName issuer;
  bool self_signed = false;   // issuer and subject Names are the same bytes
  bool has_validity = false;  // not_before / not_after were read
  int64_t not_before = 0;     // seconds since the Unix epoch, UTC
  int64_t not_after = 0;
};

// msg points at a handshake message: type (1 = ClientHello, 2 = ServerHello), 3-byte length, body.
TlsStatus ParseClientHello(const uint8_t* msg, uint32_t len, TlsClientHello* out);
TlsStatus ParseServerHello(const uint8_t* msg, uint32_t len, TlsServerHello* out);
// msg points at a Certificate message (type 11) or its prefix: the certificate_list may be cut after the first
// certificate (what TlsHandshakeAssembler keeps, see NextCertificate). kOk, kTruncated (the first certificate is not
// all there), kBadHandshake (not type 11, or an empty list) or kBadCertificate (its DER is inconsistent).
TlsStatus ParseCertificate(const uint8_t* msg, uint32_t len, TlsCertificate* out);

// Fingerprints. Buffers are NUL-terminated.
void Ja3(const TlsClientHello& ch, char out[33]);              // lowercase hex MD5
void Ja4(const TlsClientHello& ch, bool quic, char out[40]);   // e.g. t13d1516h2_8daaf6152771_e5627efa2ab1
void Ja4s(const TlsServerHello& sh, bool quic, char out[32]);  // e.g. t130200_1301_234ea6891581

// True when data starts like a TLS handshake record (content type 22, version 3.x, sane length).
bool LooksLikeTlsHandshake(const uint8_t* data, uint32_t len);

// Collects the first handshake message of one direction of a TCP stream from TLS records that may be split across
// segments (fed in order by the caller), up to kMaxBytes. Storage is allocated on first use and freed by Reset().
// After the first message, NextCertificate() collects the next one the same way (the server's Certificate after its
// ServerHello), but only up to the end of its first certificate.
class TlsHandshakeAssembler {
 public:
  static constexpr uint32_t kMaxBytes = 16384;
  // Feeds the next in-order stream bytes. kOk: message() holds a complete handshake message; kNeedMore: feed more;
  // anything else: give up on this direction. After kOk, consumed() bytes of this input were used; the rest belongs
  // to later messages.
  TlsStatus Feed(const uint8_t* data, uint32_t len);
  const uint8_t* message() const;
  uint32_t message_len() const;
  uint32_t consumed() const { return consumed_; }
  // After Feed returned kOk: drops the message and collects the next handshake message of the stream, from where the
  // last Feed stopped (feed it the rest of that input, then later segments). For a Certificate (type 11) the message
  // is complete once its first certificate is in (kTooLarge when that certificate alone passes kMaxBytes); for any
  // other type, once its 4-byte header is in. A record that is not a handshake (a resumed session's
  // ChangeCipherSpec) gives kNotTls.
  void NextCertificate();
  void Reset();

 private:
  uint32_t Target() const;  // bytes of buf_ that complete the message, as far as the bytes in tell

  std::unique_ptr<uint8_t[]> buf_;  // handshake bytes (record headers stripped)
  uint32_t have_ = 0;
  uint32_t consumed_ = 0;
  bool certificate_ = false;  // NextCertificate mode
  uint32_t record_left_ = 0;  // bytes of the current record still to come
  uint8_t header_[5];
  uint8_t header_have_ = 0;
  bool done_ = false;
  TlsStatus error_ = TlsStatus::kOk;  // sticky: once Feed failed, it keeps returning this
};

// Heartbeat records (RFC 6520, content type 24) of one direction of a TLS connection, read from the record layer.
// Lengths are record payload bytes (the 5-byte record header excluded).
struct TlsHeartbeats {
  uint32_t records = 0;  // heartbeat records seen
  uint32_t max_len = 0;  // largest heartbeat record
  // A heartbeat before any application data record of the connection (Zeek heartbleed.zeek: "Heartbeat before
  // ciphertext. Probable attack or scan").
  bool early = false;
  // A plaintext (before ChangeCipherSpec) heartbeat request whose payload_length is more than its record carries
  // after the 3-byte header and RFC 6520's 16 bytes of padding: the Heartbleed request itself (Zeek
  // SSL_Heartbeat_Attack; ET "Malformed HeartBeat Request"). A plaintext record too short for its 3-byte header counts.
  bool overlong = false;
  // A heartbeat record shorter than 19 bytes (1 type + 2 length + 16 padding, RFC 6520 §4): no honest stack sends
  // one (Zeek SSL_Heartbeat_Odd_Length).
  bool short_record = false;
};

// Follows the record layer of one direction of a TCP stream after (and including) its handshake: reads only the
// 5-byte record headers (and the first 3 bytes of a plaintext heartbeat) and steps over every record body, so its
// work is one header per record, whatever the record sizes. Stops after kMaxRecords records, or at a header that is
// not TLS (kBadRecord). No allocation; the caller feeds in-order bytes.
class TlsRecordWalker {
 public:
  static constexpr uint32_t kMaxRecords = 4096;  // records read per direction (a bulk transfer: about 64 MiB)
  // Feeds the next in-order stream bytes. `peer_app_data`: the other direction has sent application data (a
  // heartbeat is then not "early"). Returns kNeedMore while walking, kOk once the record budget is spent,
  // kBadRecord when a header is not TLS; after that, Feed changes nothing.
  TlsStatus Feed(const uint8_t* data, uint32_t len, bool peer_app_data);
  bool done() const { return done_; }
  uint32_t records() const { return records_; }
  bool app_data() const { return app_data_; }
  const TlsHeartbeats& heartbeats() const { return heartbeats_; }
  void Reset() { *this = TlsRecordWalker(); }

 private:
  void StartRecord(bool peer_app_data);
  void HeartbeatHeader();

  TlsHeartbeats heartbeats_;
  uint32_t records_ = 0;
  uint32_t record_left_ = 0;  // body bytes of the current record still to come
  uint16_t record_len_ = 0;   // the current record's length
  uint8_t header_[5] = {};
  uint8_t header_have_ = 0;
  uint8_t hb_[3] = {};   // first bytes of a plaintext heartbeat: type, payload_length (big-endian)
  uint8_t hb_have_ = 0;  // how many of them are in; 3 = checked
  bool in_plain_heartbeat_ = false;
  bool cipher_changed_ = false;  // a ChangeCipherSpec record was sent: later records are encrypted
  bool app_data_ = false;        // an application data record was sent
  bool done_ = false;
  TlsStatus status_ = TlsStatus::kNeedMore;
};

}  // namespace vigil
