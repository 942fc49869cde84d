// Community ID flow hashing, version 1 (corelight/community-id-spec): "1:" + base64(SHA-1(seed, addresses,
// protocol, pad, ports)) with the endpoints ordered as the specification says.
#pragma once

#include <cstdint>

namespace vigil {

// src/dst: 16-byte addresses (IPv4 as IPv4-mapped IPv6; ipv4 says which form to hash). For ICMP/ICMPv6 the ports
// are type and code and the specification's one-way mapping applies. out: NUL-terminated, at most 64 bytes.
void CommunityId(uint16_t seed, bool ipv4, const uint8_t src[16], const uint8_t dst[16], uint8_t protocol,
                 uint16_t src_port, uint16_t dst_port, char out[64]);

}  // namespace vigil
