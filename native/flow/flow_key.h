// FlowKey: the bidirectional identity of a flow (VLAN ids, protocol, addresses, ports), one struct for IPv4 and IPv6.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/byte_order.h"
#include "decode/packet_view.h"

namespace vigil {

// Endpoints are stored min/max ordered so both directions of a conversation map to the same key; the caller keeps
// the direction bit. Addresses are 16 bytes (IPv4 as IPv4-mapped IPv6), ports in host order. The struct has no
// implicit padding (48 bytes) and MakeFlowKey zeroes it whole, so hashing/comparing the raw bytes is well defined.
struct FlowKey {
  uint8_t addr_lo[16];  // the smaller (address, port) endpoint
  uint8_t addr_hi[16];  // the larger endpoint
  uint16_t port_lo;     // host order; ICMP type when protocol is ICMP/ICMPv6
  uint16_t port_hi;     // host order; ICMP code when protocol is ICMP/ICMPv6
  uint16_t vlan_outer;  // 12-bit VLAN id, 0 when untagged
  uint16_t vlan_inner;
  uint8_t protocol;  // IANA protocol number
  uint8_t pad[7];    // always zero
};
static_assert(sizeof(FlowKey) == 48, "FlowKey must have no implicit padding");

// memcmp(a, b, 16)'s sign (byte-wise order) from two big-endian 64-bit words each, without the library call.
inline int CompareAddresses(const uint8_t* a, const uint8_t* b) {
  const uint64_t a0 = be64(a), b0 = be64(b);
  if (a0 != b0) return a0 < b0 ? -1 : 1;
  const uint64_t a1 = be64(a + 8), b1 = be64(b + 8);
  if (a1 != b1) return a1 < b1 ? -1 : 1;
  return 0;
}

inline bool IsIcmp(uint8_t protocol) { return protocol == 1 || protocol == 58; }

// ICMP/ICMPv6 query and reply types share one flow (as Zeek does): replies map to their request type.
inline uint16_t IcmpRequestType(uint8_t protocol, uint16_t type) {
  if (protocol == 1) {
    switch (type) {
      case 0:
        return 8;  // echo reply -> echo request
      case 14:
        return 13;  // timestamp reply
      case 16:
        return 15;  // information reply
      case 18:
        return 17;  // address mask reply
      default:
        return type;
    }
  }
  switch (type) {
    case 129:
      return 128;  // echo reply -> echo request
    case 134:
      return 133;  // router advertisement -> solicitation
    case 136:
      return 135;  // neighbor advertisement -> solicitation
    case 131:
      return 130;  // MLD report -> query
    default:
      return type;
  }
}

// Builds the key of `v`. Returns true when the packet's source is the `lo` endpoint (the direction bit).
// Non-first fragments and port-less protocols use ports 0/0. ICMP keeps (request type, code) in port_lo/port_hi
// whatever the direction, so a request and its reply are one flow.
inline bool MakeFlowKey(const PacketView& v, FlowKey* key) {
  std::memset(key, 0, sizeof(FlowKey));
  uint16_t sport = v.has_ports ? v.src_port : 0;
  uint16_t dport = v.has_ports ? v.dst_port : 0;
  const int c = CompareAddresses(v.src, v.dst);
  if (IsIcmp(v.protocol)) {
    const bool src_lo = c <= 0;
    std::memcpy(key->addr_lo, src_lo ? v.src : v.dst, 16);
    std::memcpy(key->addr_hi, src_lo ? v.dst : v.src, 16);
    key->port_lo = IcmpRequestType(v.protocol, sport);
    key->port_hi = dport;
    key->vlan_outer = v.vlan[0];
    key->vlan_inner = v.vlan[1];
    key->protocol = v.protocol;
    return src_lo;
  }
  bool src_is_lo = c < 0 || (c == 0 && sport <= dport);
  if (src_is_lo) {
    std::memcpy(key->addr_lo, v.src, 16);
    std::memcpy(key->addr_hi, v.dst, 16);
    key->port_lo = sport;
    key->port_hi = dport;
  } else {
    std::memcpy(key->addr_lo, v.dst, 16);
    std::memcpy(key->addr_hi, v.src, 16);
    key->port_lo = dport;
    key->port_hi = sport;
  }
  key->vlan_outer = v.vlan[0];
  key->vlan_inner = v.vlan[1];
  key->protocol = v.protocol;
  return src_is_lo;
}

// Six 64-bit words compared at once (inline; a memcmp call was a tenth of the lookup's cost).
inline bool FlowKeyEqual(const FlowKey& a, const FlowKey& b) {
  uint64_t x[6], y[6];
  std::memcpy(x, &a, sizeof(x));
  std::memcpy(y, &b, sizeof(y));
  return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) | (x[5] ^ y[5])) == 0;
}

// Seeded 64-bit hash of the key's 48 bytes (six words, multiply-xorshift mixing). The seed is random per process
// so that an attacker cannot aim packets at one bucket chain.
inline uint64_t HashFlowKey(const FlowKey& k, uint64_t seed) {
  uint64_t w[6];
  std::memcpy(w, &k, sizeof(w));
  uint64_t h = seed ^ 0x9E3779B97F4A7C15ULL;
  for (uint64_t x : w) {
    h ^= x;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 29;
  return h;
}

// What FlowTable::Process computes first for a packet: its flow key, the direction bit, and the key's hash (the low
// 32 bits of HashFlowKey, which pick the bucket). The read-ahead thread of a fast replay computes it beside decoding.
struct PacketKey {
  FlowKey key;
  uint32_t hash = 0;
  bool src_is_lo = false;
};

inline void MakePacketKey(const PacketView& v, uint64_t seed, PacketKey* out) {
  out->src_is_lo = MakeFlowKey(v, &out->key);
  out->hash = static_cast<uint32_t>(HashFlowKey(out->key, seed));
}

}  // namespace vigil
