// fuzz_quic: libFuzzer target over QuicInitialReader (both directions) and LooksLikeQuicInitial. Input format:
//   byte 0     bit 0: raw (0) or sealed (1) mode; bit 1: QUIC v1 (0) or v2 (1), sealed mode only
//   bytes 1-   records of a 2-byte big-endian length and that many bytes (a short last record takes the rest)
// Raw mode: each record is one UDP payload, fed as is to a client reader; the client's DCID then keys a server
// reader fed the same datagrams. Each datagram is also copied to an exact-size buffer so that AddressSanitizer flags
// any read past its length.
// Sealed mode: each record is an Initial's plaintext payload (frames), which the harness encrypts into a valid
// Initial (client keys for the client reader, server keys for the server reader) with a fixed DCID, so that the
// frame parser and the CRYPTO reassembly behind the AEAD are exercised too; random bytes alone never pass the tag.
// Seeds (test/fixtures/fuzz/fuzz_quic/): the RFC 9001 and RFC 9369 Appendix A client + server Initials, Chromium 115's
// first client and server datagrams (zeek_quic_chromium_ipv6.pcap frames 1-2), Chrome's post-quantum ClientHello over
// three Initials (zeek_quic_multi_initial_pq_ipv6.pcap frames 1-3), and two sealed-mode inputs (v1, v2).
// Besides memory safety, checks the reader's invariants and aborts when one breaks.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "app/quic.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

constexpr uint8_t kDcid[8] = {0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08};  // RFC 9001 Appendix A

// Splits data into length-prefixed records.
std::vector<std::vector<uint8_t>> Records(const uint8_t* data, size_t size) {
  std::vector<std::vector<uint8_t>> out;
  size_t i = 0;
  while (i < size && out.size() < 64) {
    size_t n = i + 2 <= size ? (static_cast<size_t>(data[i]) << 8 | data[i + 1]) : 0;
    i += 2;
    if (i > size) break;
    if (n > size - i) n = size - i;
    out.emplace_back(data + i, data + i + n);
    i += n;
  }
  return out;
}

void CheckReader(const vigil::QuicInitialReader& r, vigil::QuicStatus s) {
  Check(s < vigil::QuicStatus::kCount);
  Check(r.original_dcid_len() <= 20);
  if (s == vigil::QuicStatus::kOk) {
    Check(r.handshake() != nullptr);
    Check(r.handshake_len() >= 4 && r.handshake_len() <= vigil::QuicInitialReader::kMaxCrypto);
    const uint8_t* m = r.handshake();
    Check(r.handshake_len() == 4 + (static_cast<uint32_t>(m[1]) << 16 | static_cast<uint32_t>(m[2]) << 8 | m[3]));
    Check(r.version() == 0x00000001 || r.version() == 0x6b3343cf);
  } else {
    Check(r.handshake() == nullptr && r.handshake_len() == 0);
  }
}

// Feeds every datagram (each copied to an exact-size heap buffer) and checks the reader's invariants. Sealed
// packets are valid Initials: they must be recognised and must decrypt.
void FeedAll(vigil::QuicInitialReader& r, const std::vector<std::vector<uint8_t>>& datagrams, bool sealed) {
  for (const auto& d : datagrams) {
    std::unique_ptr<uint8_t[]> exact(new uint8_t[d.size()]);
    if (!d.empty()) std::memcpy(exact.get(), d.data(), d.size());
    const bool looks = vigil::LooksLikeQuicInitial(exact.get(), static_cast<uint32_t>(d.size()));
    const vigil::QuicStatus s = r.Feed(exact.get(), static_cast<uint32_t>(d.size()));
    CheckReader(r, s);
    if (sealed) {
      Check(looks);
      Check(s != vigil::QuicStatus::kNotInitial && s != vigil::QuicStatus::kBadHeader &&
            s != vigil::QuicStatus::kDecryptFailed);
    }
  }
}

// ---- Sealing (the harness's own copy of RFC 9001 §5 key derivation and packet protection) ----

bool Hkdf(int mode, const uint8_t* key, size_t key_len, const uint8_t* salt_or_info, size_t n, uint8_t* out,
          size_t out_len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* ctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(key), key_len),
      OSSL_PARAM_construct_octet_string(
          mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? OSSL_KDF_PARAM_SALT : OSSL_KDF_PARAM_INFO,
          const_cast<uint8_t*>(salt_or_info), n),
      OSSL_PARAM_construct_end()};
  const bool ok = ctx != nullptr && EVP_KDF_derive(ctx, out, out_len, params) == 1;
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  return ok;
}

bool ExpandLabel(const uint8_t secret[32], const char* label, uint8_t* out, uint8_t out_len) {
  std::vector<uint8_t> info = {0, out_len, static_cast<uint8_t>(6 + std::strlen(label))};
  for (const char* p = "tls13 "; *p; ++p) info.push_back(static_cast<uint8_t>(*p));
  for (const char* p = label; *p; ++p) info.push_back(static_cast<uint8_t>(*p));
  info.push_back(0);
  return Hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, secret, 32, info.data(), info.size(), out, out_len);
}

struct Keys {
  uint8_t key[16], iv[12], hp[16];
};

bool DeriveKeys(bool v2, bool server, Keys* k) {
  static const uint8_t kSaltV1[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                      0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
  static const uint8_t kSaltV2[20] = {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                                      0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9};
  uint8_t initial[32], secret[32];
  return Hkdf(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, kDcid, sizeof kDcid, v2 ? kSaltV2 : kSaltV1, 20, initial, 32) &&
         ExpandLabel(initial, server ? "server in" : "client in", secret, 32) &&
         ExpandLabel(secret, v2 ? "quicv2 key" : "quic key", k->key, 16) &&
         ExpandLabel(secret, v2 ? "quicv2 iv" : "quic iv", k->iv, 12) &&
         ExpandLabel(secret, v2 ? "quicv2 hp" : "quic hp", k->hp, 16);
}

// Builds a protected Initial (4-byte packet number pn) around the plaintext payload.
std::vector<uint8_t> Seal(const Keys& k, bool v2, uint32_t pn, const std::vector<uint8_t>& payload) {
  const uint32_t version = v2 ? 0x6b3343cfu : 0x00000001u;
  std::vector<uint8_t> pkt = {static_cast<uint8_t>(0xc3 | (v2 ? 0x10 : 0x00)),
                              static_cast<uint8_t>(version >> 24),
                              static_cast<uint8_t>(version >> 16),
                              static_cast<uint8_t>(version >> 8),
                              static_cast<uint8_t>(version),
                              sizeof kDcid};
  pkt.insert(pkt.end(), kDcid, kDcid + sizeof kDcid);
  pkt.push_back(0);  // SCID length
  pkt.push_back(0);  // token length
  const size_t length = 4 + payload.size() + 16;
  pkt.push_back(static_cast<uint8_t>(0x40 | (length >> 8)));  // 2-byte varint (payload <= 4096)
  pkt.push_back(static_cast<uint8_t>(length));
  const size_t pn_offset = pkt.size();
  for (int i = 3; i >= 0; --i) pkt.push_back(static_cast<uint8_t>(pn >> (8 * i)));
  uint8_t nonce[12];
  std::memcpy(nonce, k.iv, 12);
  for (int i = 0; i < 4; ++i) nonce[11 - i] ^= static_cast<uint8_t>(pn >> (8 * i));
  std::vector<uint8_t> ct(payload.size() + 16);
  int n = 0, m = 0;
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), nullptr, k.key, nonce);
  EVP_EncryptUpdate(c, nullptr, &n, pkt.data(), static_cast<int>(pkt.size()));
  if (!payload.empty()) EVP_EncryptUpdate(c, ct.data(), &n, payload.data(), static_cast<int>(payload.size()));
  EVP_EncryptFinal_ex(c, ct.data() + n, &m);
  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, ct.data() + payload.size());
  EVP_CIPHER_CTX_free(c);
  pkt.insert(pkt.end(), ct.begin(), ct.end());
  uint8_t mask[16];
  c = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), nullptr, k.hp, nullptr);
  EVP_CIPHER_CTX_set_padding(c, 0);
  EVP_EncryptUpdate(c, mask, &n, pkt.data() + pn_offset + 4, 16);
  EVP_CIPHER_CTX_free(c);
  pkt[0] ^= mask[0] & 0x0f;
  for (int i = 0; i < 4; ++i) pkt[pn_offset + i] ^= mask[1 + i];
  return pkt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 65536) return -1;
  const bool sealed = (data[0] & 1) != 0;
  const bool v2 = (data[0] & 2) != 0;
  const auto records = Records(data + 1, size - 1);

  vigil::QuicInitialReader client(false);
  vigil::QuicInitialReader server(true);
  if (!sealed) {
    FeedAll(client, records, false);
    server.SetOriginalDcid(client.original_dcid(), client.original_dcid_len());
    FeedAll(server, records, false);
    return 0;
  }
  static Keys client_keys[2], server_keys[2];
  static const bool keys_ok = DeriveKeys(false, false, &client_keys[0]) && DeriveKeys(true, false, &client_keys[1]) &&
                              DeriveKeys(false, true, &server_keys[0]) && DeriveKeys(true, true, &server_keys[1]);
  Check(keys_ok);
  std::vector<std::vector<uint8_t>> to_client, to_server;
  uint32_t pn = 0;
  for (const auto& payload : records) {
    to_client.push_back(Seal(client_keys[v2], v2, pn, payload));
    to_server.push_back(Seal(server_keys[v2], v2, pn, payload));
    ++pn;
  }
  FeedAll(client, to_client, true);
  if (!to_client.empty()) Check(client.original_dcid_len() == sizeof kDcid);
  server.SetOriginalDcid(kDcid, sizeof kDcid);
  FeedAll(server, to_server, true);
  return 0;
}
