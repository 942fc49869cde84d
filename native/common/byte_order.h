// Byte order: explicit big/little-endian loads from unaligned wire bytes (memcpy, never pointer casts).
#pragma once

#include <cstdint>
#include <cstring>

namespace vigil {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr bool kHostIsBigEndian = true;
#else
constexpr bool kHostIsBigEndian = false;
#endif

// Loads a 16-bit big-endian (network order) value from 2 bytes at p. Caller guarantees p[0..2) is readable.
inline uint16_t be16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? v : __builtin_bswap16(v);
}

// Loads a 32-bit big-endian (network order) value from 4 bytes at p. Caller guarantees p[0..4) is readable.
inline uint32_t be32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? v : __builtin_bswap32(v);
}

// Loads a 64-bit big-endian (network order) value from 8 bytes at p. Caller guarantees p[0..8) is readable.
inline uint64_t be64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? v : __builtin_bswap64(v);
}

// Loads a 32-bit little-endian value from 4 bytes at p (BSD loopback headers written by little-endian hosts).
inline uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? __builtin_bswap32(v) : v;
}

// Loads a 16-bit little-endian value from 2 bytes at p (SMB2, DCE-RPC with little-endian data representation).
inline uint16_t le16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? __builtin_bswap16(v) : v;
}

// Loads a 64-bit little-endian value from 8 bytes at p.
inline uint64_t le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return kHostIsBigEndian ? __builtin_bswap64(v) : v;
}

}  // namespace vigil
