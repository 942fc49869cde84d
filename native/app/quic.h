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
  QuicStatus Feed(const uint8_t* data, uint32_t len);
  const uint8_t* handshake() const;
  uint32_t handshake_len() const;
  uint32_t version() const { return version_; }
  // The client's original DCID (valid after the client reader read its first Initial).
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
};

}  // namespace vigil
