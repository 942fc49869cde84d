// QUIC Initial packets (RFC 9000 §17.2, RFC 9001 §5, RFC 9369 §3): long-header parsing, initial key derivation
// (HKDF through OpenSSL's EVP_KDF), header-protection removal (AES-128-ECB), payload decryption (AES-128-GCM) and
// reassembly of the CRYPTO stream's first handshake message across packets and datagrams.
#include "app/quic.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstring>

#include "common/reader.h"

namespace vigil {
namespace {

constexpr uint32_t kQuicV1 = 0x00000001;  // RFC 9000
constexpr uint32_t kQuicV2 = 0x6b3343cf;  // RFC 9369
constexpr uint8_t kMaxCidLen = 20;        // RFC 9000 §17.2: longer connection IDs are not valid in v1/v2
constexpr uint32_t kTagLen = 16;          // AES-128-GCM tag
constexpr uint32_t kSampleLen = 16;       // header-protection sample (RFC 9001 §5.4.2)
constexpr uint32_t kSecretLen = 32;       // SHA-256 output
// Largest packet number + payload decrypted: bounds the stack buffer the plaintext goes to. Initials are sized to
// the path (1200-1500 bytes in practice); 16 KiB leaves room for jumbo-frame and loopback paths.
constexpr uint32_t kMaxProtectedLen = 16384;

// Initial salts: RFC 9001 §5.2 (v1) and RFC 9369 §3.3.1 (v2).
constexpr uint8_t kSaltV1[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
constexpr uint8_t kSaltV2[20] = {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                                 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9};

bool IsSupportedVersion(uint32_t v) { return v == kQuicV1 || v == kQuicV2; }
// Long-header packet type (bits 4-5 of the first byte): v2 rotated the encoding (RFC 9369 §3.2).
uint8_t InitialType(uint32_t v) { return v == kQuicV2 ? 1 : 0; }
uint8_t RetryType(uint32_t v) { return v == kQuicV2 ? 0 : 3; }

// Reads a variable-length integer (RFC 9000 §16): the two high bits of the first byte give its size (1, 2, 4, 8).
bool ReadVarint(Reader& r, uint64_t& v) {
  uint8_t b0;
  if (!r.Peek(b0)) return false;
  const uint32_t size = 1u << (b0 >> 6);
  if (!r.Has(size)) return false;
  const uint8_t* p = r.current();
  v = b0 & 0x3f;
  for (uint32_t i = 1; i < size; ++i) v = (v << 8) | p[i];
  r.Skip(size);
  return true;
}

// One long-header packet's layout within a datagram.
struct LongHeader {
  uint32_t version = 0;
  const uint8_t* dcid = nullptr;  // points into the datagram
  uint8_t dcid_len = 0;
  bool initial = false;
  uint32_t pn_offset = 0;   // offset of the protected packet number from the packet's first byte
  uint32_t packet_len = 0;  // bytes of this packet: header, packet number and payload (the Length field's end)
};

// Parses the long header at p[0, len). kOk fills h (packet_len <= len); kNotInitial: a short header, a version of
// unknown layout (version negotiation, drafts) or a Retry, none of which says where it ends; kBadHeader: fields
// out of bounds.
QuicStatus ParseLongHeader(const uint8_t* p, uint32_t len, LongHeader* h) {
  Reader r(p, len);
  uint8_t first;
  if (!r.ReadU8(first) || (first & 0x80) == 0) return QuicStatus::kNotInitial;
  if (!r.ReadBe32(h->version)) return QuicStatus::kBadHeader;
  if (!IsSupportedVersion(h->version)) return QuicStatus::kNotInitial;
  uint8_t dcid_len;
  if (!r.ReadU8(dcid_len) || dcid_len > kMaxCidLen || !r.Has(dcid_len)) return QuicStatus::kBadHeader;
  h->dcid = r.current();
  h->dcid_len = dcid_len;
  r.Skip(dcid_len);
  uint8_t scid_len;
  if (!r.ReadU8(scid_len) || scid_len > kMaxCidLen || !r.Skip(scid_len)) return QuicStatus::kBadHeader;
  const uint8_t type = (first >> 4) & 0x03;
  if (type == RetryType(h->version)) return QuicStatus::kNotInitial;
  h->initial = type == InitialType(h->version);
  if (h->initial) {
    uint64_t token_len;
    if (!ReadVarint(r, token_len) || token_len > r.remaining()) return QuicStatus::kBadHeader;
    r.Skip(static_cast<uint32_t>(token_len));
  }
  uint64_t length;  // packet number + payload
  if (!ReadVarint(r, length) || length > r.remaining()) return QuicStatus::kBadHeader;
  h->pn_offset = r.offset();
  h->packet_len = r.offset() + static_cast<uint32_t>(length);
  return QuicStatus::kOk;
}

// Algorithm handles fetched once per process (thread-safe static initialisation) and kept for its lifetime.
EVP_KDF* HkdfAlgorithm() {
  static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  return kdf;
}
EVP_CIPHER* Aes128Ecb() {
  static EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-128-ECB", nullptr);
  return cipher;
}
EVP_CIPHER* Aes128Gcm() {
  static EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
  return cipher;
}

bool HkdfExtract(EVP_KDF_CTX* ctx, const uint8_t* salt, size_t salt_len, const uint8_t* ikm, size_t ikm_len,
                 uint8_t out[kSecretLen]) {
  int mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(ikm), ikm_len),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<uint8_t*>(salt), salt_len),
      OSSL_PARAM_construct_end()};
  return EVP_KDF_derive(ctx, out, kSecretLen, params) == 1;
}

// HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, as RFC 9001 §5.1 uses it.
bool HkdfExpandLabel(EVP_KDF_CTX* ctx, const uint8_t secret[kSecretLen], const char* label, uint8_t* out,
                     uint8_t out_len) {
  static constexpr char kPrefix[] = "tls13 ";
  const size_t prefix_len = sizeof kPrefix - 1;
  const size_t label_len = std::strlen(label);  // our labels only: at most "quicv2 key"
  uint8_t info[2 + 1 + 32 + 1];
  if (prefix_len + label_len > 32) return false;
  size_t n = 0;
  info[n++] = 0;  // output length, 16-bit big-endian
  info[n++] = out_len;
  info[n++] = static_cast<uint8_t>(prefix_len + label_len);
  std::memcpy(info + n, kPrefix, prefix_len);
  n += prefix_len;
  std::memcpy(info + n, label, label_len);
  n += label_len;
  info[n++] = 0;  // context length
  int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(secret), kSecretLen),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, n), OSSL_PARAM_construct_end()};
  return EVP_KDF_derive(ctx, out, out_len, params) == 1;
}

// Derives one direction's Initial keys from the client's DCID: RFC 9001 §5.2 (v1), RFC 9369 §3.3 (v2). Allocates
// one EVP_KDF_CTX for the call (once per connection and direction, not per packet).
bool DeriveKeys(uint32_t version, const uint8_t* cid, uint8_t cid_len, bool server, uint8_t key[16], uint8_t iv[12],
                uint8_t hp[16]) {
  EVP_KDF* kdf = HkdfAlgorithm();
  if (kdf == nullptr || cid_len == 0) return false;  // an empty DCID cannot key HKDF (nor is it valid here)
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  if (ctx == nullptr) return false;
  const bool v2 = version == kQuicV2;
  uint8_t initial_secret[kSecretLen];
  uint8_t secret[kSecretLen];
  const bool ok = HkdfExtract(ctx, v2 ? kSaltV2 : kSaltV1, sizeof kSaltV1, cid, cid_len, initial_secret) &&
                  HkdfExpandLabel(ctx, initial_secret, server ? "server in" : "client in", secret, kSecretLen) &&
                  HkdfExpandLabel(ctx, secret, v2 ? "quicv2 key" : "quic key", key, 16) &&
                  HkdfExpandLabel(ctx, secret, v2 ? "quicv2 iv" : "quic iv", iv, 12) &&
                  HkdfExpandLabel(ctx, secret, v2 ? "quicv2 hp" : "quic hp", hp, 16);
  EVP_KDF_CTX_free(ctx);
  return ok;
}

// One AES-128-ECB (header protection) and one AES-128-GCM (payload) context per thread, created on the thread's
// first Initial and re-keyed per packet: re-keying an initialised context allocates nothing. Freed at thread exit.
class CipherContexts {
 public:
  CipherContexts() : ecb_(EVP_CIPHER_CTX_new()), gcm_(EVP_CIPHER_CTX_new()) {
    ok_ = ecb_ != nullptr && gcm_ != nullptr && Aes128Ecb() != nullptr && Aes128Gcm() != nullptr &&
          EVP_EncryptInit_ex2(ecb_, Aes128Ecb(), nullptr, nullptr, nullptr) == 1 &&
          EVP_DecryptInit_ex2(gcm_, Aes128Gcm(), nullptr, nullptr, nullptr) == 1;
  }
  ~CipherContexts() {
    EVP_CIPHER_CTX_free(ecb_);
    EVP_CIPHER_CTX_free(gcm_);
  }
  CipherContexts(const CipherContexts&) = delete;
  CipherContexts& operator=(const CipherContexts&) = delete;

  bool ok() const { return ok_; }

  // mask = AES-128-ECB(hp, sample) (RFC 9001 §5.4.3).
  bool Mask(const uint8_t hp[16], const uint8_t sample[kSampleLen], uint8_t mask[16]) {
    int out_len = 0;
    return EVP_EncryptInit_ex2(ecb_, nullptr, hp, nullptr, nullptr) == 1 && EVP_CIPHER_CTX_set_padding(ecb_, 0) == 1 &&
           EVP_EncryptUpdate(ecb_, mask, &out_len, sample, kSampleLen) == 1 && out_len == 16;
  }

  // AES-128-GCM open of ct[0, ct_len) with the 16-byte tag; the AAD is the concatenation of the three parts.
  // Writes ct_len bytes to out; true only when the tag verifies.
  bool Open(const uint8_t key[16], const uint8_t nonce[12], const uint8_t* aad1, uint32_t aad1_len, const uint8_t* aad2,
            uint32_t aad2_len, const uint8_t* aad3, uint32_t aad3_len, const uint8_t* ct, uint32_t ct_len,
            const uint8_t tag[kTagLen], uint8_t* out) {
    int n = 0;
    if (EVP_DecryptInit_ex2(gcm_, nullptr, key, nonce, nullptr) != 1) return false;
    if (aad1_len > 0 && EVP_DecryptUpdate(gcm_, nullptr, &n, aad1, static_cast<int>(aad1_len)) != 1) return false;
    if (aad2_len > 0 && EVP_DecryptUpdate(gcm_, nullptr, &n, aad2, static_cast<int>(aad2_len)) != 1) return false;
    if (aad3_len > 0 && EVP_DecryptUpdate(gcm_, nullptr, &n, aad3, static_cast<int>(aad3_len)) != 1) return false;
    int written = 0;
    if (ct_len > 0 && EVP_DecryptUpdate(gcm_, out, &written, ct, static_cast<int>(ct_len)) != 1) return false;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, const_cast<uint8_t*>(tag), kTagLen),
        OSSL_PARAM_construct_end()};
    if (EVP_CIPHER_CTX_set_params(gcm_, params) != 1) return false;
    int final_len = 0;
    return EVP_DecryptFinal_ex(gcm_, out + written, &final_len) == 1;
  }

 private:
  EVP_CIPHER_CTX* ecb_;
  EVP_CIPHER_CTX* gcm_;
  bool ok_ = false;
};

CipherContexts& ThreadCipherContexts() {
  thread_local CipherContexts contexts;
  return contexts;
}

// Full packet number from its truncated encoding and the largest one seen (RFC 9000 §17.1, Appendix A.3).
uint64_t DecodePacketNumber(int64_t largest, uint64_t truncated, uint32_t bits) {
  const uint64_t expected = static_cast<uint64_t>(largest + 1);
  const uint64_t win = uint64_t{1} << bits;
  const uint64_t hwin = win / 2;
  const uint64_t candidate = (expected & ~(win - 1)) | truncated;
  if (candidate + hwin <= expected && candidate < (uint64_t{1} << 62) - win) return candidate + win;
  if (candidate > expected + hwin && candidate >= win) return candidate - win;
  return candidate;
}

// Removes header protection from and decrypts one Initial packet pkt[0, pkt_len) whose packet number starts at
// pn_offset (the caller checked pkt_len >= pn_offset + 4 + kSampleLen). On success writes the payload to plain
// (room for pkt_len - pn_offset bytes) and its length, and the full packet number.
bool OpenPacket(CipherContexts& cc, const uint8_t key[16], const uint8_t iv[12], const uint8_t hp[16],
                int64_t largest_pn, const uint8_t* pkt, uint32_t pn_offset, uint32_t pkt_len, uint8_t* plain,
                uint32_t* plain_len, uint64_t* pn) {
  uint8_t mask[16];
  if (!cc.Mask(hp, pkt + pn_offset + 4, mask)) return false;
  const uint8_t first = pkt[0] ^ (mask[0] & 0x0f);  // long header: the low 4 bits are protected
  const uint32_t pn_len = (first & 0x03) + 1u;
  uint8_t pn_bytes[4];
  uint64_t truncated = 0;
  for (uint32_t i = 0; i < pn_len; ++i) {
    pn_bytes[i] = pkt[pn_offset + i] ^ mask[1 + i];
    truncated = (truncated << 8) | pn_bytes[i];
  }
  *pn = DecodePacketNumber(largest_pn, truncated, pn_len * 8);
  uint8_t nonce[12];
  std::memcpy(nonce, iv, sizeof nonce);
  for (uint32_t i = 0; i < 8; ++i) nonce[11 - i] ^= static_cast<uint8_t>(*pn >> (8 * i));
  const uint32_t payload_offset = pn_offset + pn_len;
  const uint32_t ct_len = pkt_len - payload_offset - kTagLen;  // >= 0: pkt_len >= pn_offset + 20
  if (!cc.Open(key, nonce, &first, 1, pkt + 1, pn_offset - 1, pn_bytes, pn_len, pkt + payload_offset, ct_len,
               pkt + pkt_len - kTagLen, plain)) {
    return false;
  }
  *plain_len = ct_len;
  return true;
}

}  // namespace

const char* QuicStatusName(QuicStatus s) {
  switch (s) {
    case QuicStatus::kOk:
      return "quic_ok";
    case QuicStatus::kNeedMore:
      return "quic_need_more";
    case QuicStatus::kNotInitial:
      return "quic_not_initial";
    case QuicStatus::kBadHeader:
      return "quic_bad_header";
    case QuicStatus::kDecryptFailed:
      return "quic_decrypt_failed";
    case QuicStatus::kBadFrame:
      return "quic_bad_frame";
    case QuicStatus::kTooLarge:
      return "quic_too_large";
    case QuicStatus::kCount:
      break;
  }
  return "quic_unknown";
}

bool LooksLikeQuicInitial(const uint8_t* data, uint32_t len) {
  Reader r(data, len);
  uint8_t first;
  uint32_t version;
  uint8_t cid_len;
  // Form and fixed bits set (RFC 9000 §17.2), a version whose Initial layout we know, and the Initial type.
  if (!r.ReadU8(first) || (first & 0xc0) != 0xc0 || !r.ReadBe32(version) || !IsSupportedVersion(version) ||
      ((first >> 4) & 0x03) != InitialType(version)) {
    return false;
  }
  if (!r.ReadU8(cid_len) || cid_len > kMaxCidLen || !r.Skip(cid_len)) return false;  // DCID
  if (!r.ReadU8(cid_len) || cid_len > kMaxCidLen || !r.Skip(cid_len)) return false;  // SCID
  return true;
}

QuicInitialReader::QuicInitialReader(bool from_server) : from_server_(from_server) {}

void QuicInitialReader::SetOriginalDcid(const uint8_t* dcid, uint8_t len) {
  if (len > kMaxCidLen) return;
  if (len != odcid_len_ || std::memcmp(odcid_, dcid, len) != 0) keys_version_ = 0;  // keys must be derived again
  if (len > 0) std::memcpy(odcid_, dcid, len);
  odcid_len_ = len;
}

const uint8_t* QuicInitialReader::handshake() const { return done_ ? crypto_.get() : nullptr; }

uint32_t QuicInitialReader::handshake_len() const { return done_ ? message_len_ : 0; }

QuicStatus QuicInitialReader::Feed(const uint8_t* data, uint32_t len) {
  if (done_) return QuicStatus::kOk;
  if (too_large_) return QuicStatus::kTooLarge;
  QuicStatus result = QuicStatus::kNotInitial;
  bool error = false;
  bool decrypted = false;
  uint32_t off = 0;
  while (off < len) {
    LongHeader h;
    const QuicStatus s = ParseLongHeader(data + off, len - off, &h);
    if (s != QuicStatus::kOk) {
      // After the first packet, this is the datagram's padding or a packet that runs to its end (short header,
      // Retry): nothing more to read.
      if (off == 0) result = s;
      break;
    }
    if (h.initial) {
      const QuicStatus r = ReadInitial(data + off, h.pn_offset, h.packet_len, h.version, h.dcid, h.dcid_len);
      if (r == QuicStatus::kOk || r == QuicStatus::kTooLarge) return r;
      if (r == QuicStatus::kNeedMore) {
        decrypted = true;
      } else if (!error) {
        result = r;
        error = true;
      }
    }
    off += h.packet_len;  // > 0: a long header is at least 7 bytes
  }
  if (error) return result;
  return decrypted ? QuicStatus::kNeedMore : result;
}

QuicStatus QuicInitialReader::ReadInitial(const uint8_t* pkt, uint32_t pn_offset, uint32_t pkt_len, uint32_t version,
                                          const uint8_t* dcid, uint8_t dcid_len) {
  if (pkt_len < pn_offset + 4 + kSampleLen) return QuicStatus::kBadHeader;  // no header-protection sample
  if (pkt_len - pn_offset > kMaxProtectedLen) return QuicStatus::kTooLarge;
  CipherContexts& cc = ThreadCipherContexts();
  if (!cc.ok()) return QuicStatus::kDecryptFailed;
  uint8_t plain[kMaxProtectedLen];
  uint32_t plain_len = 0;
  uint64_t pn = 0;

  // First, the keys of the connection's original DCID (derived once, or again when the version changes).
  bool opened = false;
  if (odcid_len_ > 0) {
    if (keys_version_ != version) {
      keys_version_ = 0;
      if (!DeriveKeys(version, odcid_, odcid_len_, from_server_, key_, iv_, hp_)) return QuicStatus::kDecryptFailed;
      keys_version_ = version;
    }
    opened = OpenPacket(cc, key_, iv_, hp_, largest_pn_, pkt, pn_offset, pkt_len, plain, &plain_len, &pn);
  }
  // The client direction also tries the packet's own DCID: its first Initial, or the Initials after a Retry, whose
  // keys derive from the Retry's Source Connection ID (RFC 9001 §5.2).
  if (!opened && !from_server_ && (dcid_len != odcid_len_ || std::memcmp(dcid, odcid_, dcid_len) != 0)) {
    uint8_t key[16];
    uint8_t iv[12];
    uint8_t hp[16];
    if (DeriveKeys(version, dcid, dcid_len, false, key, iv, hp) &&
        OpenPacket(cc, key, iv, hp, largest_pn_, pkt, pn_offset, pkt_len, plain, &plain_len, &pn)) {
      opened = true;
      std::memcpy(odcid_, dcid, dcid_len);
      odcid_len_ = dcid_len;
      std::memcpy(key_, key, sizeof key_);
      std::memcpy(iv_, iv, sizeof iv_);
      std::memcpy(hp_, hp, sizeof hp_);
      keys_version_ = version;
    }
  }
  if (!opened) return QuicStatus::kDecryptFailed;
  if (version_ == 0) version_ = version;
  if (static_cast<int64_t>(pn) > largest_pn_) largest_pn_ = static_cast<int64_t>(pn);

  const QuicStatus frames = ReadFrames(plain, plain_len);
  // Is the handshake message complete? Its header (type, 3-byte length) gives the bytes needed.
  if (message_len_ == 0 && contiguous_ >= 4) {
    const uint8_t* m = crypto_.get();
    message_len_ = 4 + ((static_cast<uint32_t>(m[1]) << 16) | (static_cast<uint32_t>(m[2]) << 8) | m[3]);
    if (message_len_ > kMaxCrypto) {
      too_large_ = true;
      return QuicStatus::kTooLarge;
    }
  }
  if (message_len_ != 0 && contiguous_ >= message_len_) {
    done_ = true;
    return QuicStatus::kOk;
  }
  return frames;
}

QuicStatus QuicInitialReader::ReadFrames(const uint8_t* plain, uint32_t len) {
  // Frames allowed in Initial packets (RFC 9000 §12.4, Table 3); anything else is a protocol violation.
  Reader r(plain, len);
  while (r.remaining() > 0) {
    uint64_t type;
    if (!ReadVarint(r, type)) return QuicStatus::kBadFrame;
    switch (type) {
      case 0x00:  // PADDING: a run of zero bytes
        while (r.remaining() > 0 && *r.current() == 0) r.Skip(1);
        break;
      case 0x01:  // PING
        break;
      case 0x02:    // ACK
      case 0x03: {  // ACK with ECN counts
        uint64_t largest, delay, range_count, first_range;
        if (!ReadVarint(r, largest) || !ReadVarint(r, delay) || !ReadVarint(r, range_count) ||
            !ReadVarint(r, first_range)) {
          return QuicStatus::kBadFrame;
        }
        if (range_count > r.remaining() / 2) return QuicStatus::kBadFrame;  // each range: two varints of >= 1 byte
        for (uint64_t i = 0; i < range_count; ++i) {
          uint64_t gap, range;
          if (!ReadVarint(r, gap) || !ReadVarint(r, range)) return QuicStatus::kBadFrame;
        }
        if (type == 0x03) {
          uint64_t ect0, ect1, ce;
          if (!ReadVarint(r, ect0) || !ReadVarint(r, ect1) || !ReadVarint(r, ce)) return QuicStatus::kBadFrame;
        }
        break;
      }
      case 0x06: {  // CRYPTO
        uint64_t offset, length;
        if (!ReadVarint(r, offset) || !ReadVarint(r, length) || length > r.remaining()) return QuicStatus::kBadFrame;
        PlaceCrypto(offset, r.current(), static_cast<uint32_t>(length));
        r.Skip(static_cast<uint32_t>(length));
        break;
      }
      case 0x1c: {  // CONNECTION_CLOSE (QUIC layer)
        uint64_t code, frame_type, reason_len;
        if (!ReadVarint(r, code) || !ReadVarint(r, frame_type) || !ReadVarint(r, reason_len) ||
            reason_len > r.remaining()) {
          return QuicStatus::kBadFrame;
        }
        r.Skip(static_cast<uint32_t>(reason_len));
        break;
      }
      default:
        return QuicStatus::kBadFrame;
    }
  }
  return QuicStatus::kNeedMore;
}

void QuicInitialReader::PlaceCrypto(uint64_t offset, const uint8_t* data, uint32_t len) {
  // Bytes at or beyond kMaxCrypto are dropped: they matter only if the message reaches them, and then its header
  // (checked by the caller) reports kTooLarge.
  if (len == 0 || offset >= kMaxCrypto) return;
  if (!crypto_) {
    crypto_.reset(new uint8_t[kMaxCrypto]);
    seen_.reset(new uint8_t[kMaxCrypto / 8]());
  }
  const uint32_t start = static_cast<uint32_t>(offset);
  const uint32_t n = len < kMaxCrypto - start ? len : kMaxCrypto - start;
  // The first copy of a byte wins: a retransmission carries the same bytes, and data that rewrites bytes already
  // held (an overlapping CRYPTO frame with other content) must not change a message whose header was already read
  // (fuzz_quic found a handshake whose length no longer matched its header).
  uint8_t* buf = crypto_.get();
  uint8_t* seen = seen_.get();
  for (uint32_t i = start; i < start + n; ++i) {
    const uint8_t bit = static_cast<uint8_t>(1u << (i & 7));
    if ((seen[i >> 3] & bit) != 0) continue;
    buf[i] = data[i - start];
    seen[i >> 3] |= bit;
  }
  while (contiguous_ < kMaxCrypto && ((seen[contiguous_ >> 3] >> (contiguous_ & 7)) & 1) != 0) ++contiguous_;
}

}  // namespace vigil
