// QUIC v1 (RFC 9000/9001) and v2 (RFC 9369) Initial packets: removes header protection and decrypts the payload
// with the initial secrets derived from the client's Destination Connection ID (OpenSSL libcrypto), then collects
// CRYPTO frame data in offset order until the ClientHello (or ServerHello) is complete, across several Initial
// packets up to a bound.
#pragma once

#include <cstdint>
#include <memory>

namespace vigil {

enum class QuicStatus : uint8_t {
  kOk = 0,
  kNeedMore,       // not an error: the handshake message continues in a later Initial
  kNotInitial,     // not a long-header Initial of a supported version (short header, 0-RTT, Handshake...)
  kBadHeader,      // long header fields out of bounds
  kDecryptFailed,  // header protection / AEAD tag check failed (not the client's first flight, or corrupt)
  kBadFrame,       // a frame could not be parsed
  kTooLarge,       // CRYPTO data beyond the bound
  kCount
};
const char* QuicStatusName(QuicStatus s);  // "quic_decrypt_failed", ...

// True for a long-header packet whose version is QUIC v1 (0x00000001) or v2 (0x6b3343cf) and whose type is Initial.
bool LooksLikeQuicInitial(const uint8_t* data, uint32_t len);

// One direction of one QUIC connection's Initial packets. The client's first Initial fixes the original DCID;
// the server direction decrypts with the server keys derived from that same DCID (pass it with SetOriginalDcid).
class QuicInitialReader {
 public:
  static constexpr uint32_t kMaxCrypto = 16384;
  explicit QuicInitialReader(bool from_server);
  // Feeds one UDP payload (may hold coalesced packets). kOk: handshake() holds a complete handshake message (type,
  // 3-byte length, body) ready for ParseClientHello/ParseServerHello; kNeedMore: feed the next datagram.
  // Once kOk (or kTooLarge) is returned, later calls return it again at once without reading the datagram.
  // Allocates the CRYPTO buffer once, on the first CRYPTO data that decrypts; never per packet. Not thread-safe: one
  // reader belongs to one flow direction on one thread.
  QuicStatus Feed(const uint8_t* data, uint32_t len);
  const uint8_t* handshake() const;
  uint32_t handshake_len() const;
  uint32_t version() const { return version_; }
  // The DCID the Initial keys derive from: the client's original DCID, valid once the client reader decrypted its
  // first Initial (after a Retry, the DCID of the client's Initials that followed it).
  const uint8_t* original_dcid() const { return odcid_; }
  uint8_t original_dcid_len() const { return odcid_len_; }
  void SetOriginalDcid(const uint8_t* dcid, uint8_t len);

 private:
  bool from_server_;
  uint32_t version_ = 0;
  uint8_t odcid_[20] = {};
  uint8_t odcid_len_ = 0;
  std::unique_ptr<uint8_t[]> crypto_;  // CRYPTO stream bytes [0, contiguous_)
  std::unique_ptr<uint8_t[]> seen_;    // per-byte "received" marks (bitmap), for out-of-order frames
  uint32_t contiguous_ = 0;
  bool done_ = false;
  // Keys of this direction, derived once per connection (and again only if the version changes or a Retry moved
  // the DCID): AEAD key, AEAD IV, header-protection key.
  uint8_t key_[16] = {};
  uint8_t iv_[12] = {};
  uint8_t hp_[16] = {};
  uint32_t keys_version_ = 0;  // version key_/iv_/hp_ were derived for; 0 = none yet
  int64_t largest_pn_ = -1;    // largest Initial packet number decrypted so far, for packet number recovery
  uint32_t message_len_ = 0;   // 4 + handshake body length, once the message header arrived; 0 before
  bool too_large_ = false;     // the handshake message does not fit kMaxCrypto: sticky kTooLarge

  QuicStatus ReadInitial(const uint8_t* pkt, uint32_t pn_offset, uint32_t pkt_len, uint32_t version,
                         const uint8_t* dcid, uint8_t dcid_len);
  QuicStatus ReadFrames(const uint8_t* plain, uint32_t len);
  void PlaceCrypto(uint64_t offset, const uint8_t* data, uint32_t len);
};

}  // namespace vigil
