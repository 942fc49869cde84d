// BoundedText: a fixed-capacity text field for values taken from packets (names, URIs, banners). No allocation:
// parsers fill it on the stack or in a per-flow record; anything longer than the capacity is cut (and flagged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace vigil {

template <size_t N>
struct BoundedText {
  static constexpr size_t kCapacity = N;
  uint16_t len = 0;
  bool truncated = false;  // the value was longer than N bytes and was cut
  char data[N];

  void Clear() {
    len = 0;
    truncated = false;
  }
  bool empty() const { return len == 0; }
  std::string_view view() const { return std::string_view(data, len); }
  // Replaces the value with s[0..n), cut at N bytes.
  void Assign(const char* s, size_t n) {
    truncated = n > N;
    len = static_cast<uint16_t>(n > N ? N : n);
    if (len > 0) std::memcpy(data, s, len);
  }
  void Assign(std::string_view s) { Assign(s.data(), s.size()); }
  // Appends one byte if there is room; returns false (and sets truncated) when full.
  bool Push(char c) {
    if (len >= N) {
      truncated = true;
      return false;
    }
    data[len++] = c;
    return true;
  }
};

constexpr size_t kNameBytes = 255;  // DNS names, SNI, Host, banners, DHCP host names
constexpr size_t kLongBytes = 512;  // URIs, User-Agents
using NameText = BoundedText<kNameBytes>;
using LongText = BoundedText<kLongBytes>;

}  // namespace vigil
