// PduFramer: cuts one direction of a TCP stream into length-prefixed messages (NetBIOS session messages carrying SMB,
// or DCE-RPC fragments), keeping the first kPrefixBytes of each message (the headers the parsers read) and skipping
// the rest without copying. A message spread over many segments costs one length subtraction per segment. Bounded: one
// fixed buffer per direction, no allocation. Capture thread only.
#pragma once

#include <cstdint>
#include <cstring>

#include "app/dcerpc.h"

namespace vigil {

class PduFramer {
 public:
  // kNetbios: RFC 1002 4.3 session messages (type, 24-bit big-endian length; SMB2 over TCP 445 uses the same
  // framing, MS-SMB2 2.1); prefixes handed on exclude the 4-byte header. kDcerpc: C706 fragments (16-byte header,
  // frag_length); prefixes include the header.
  enum class Kind : uint8_t { kNetbios, kDcerpc };
  static constexpr uint32_t kPrefixBytes = 1024;

  explicit PduFramer(Kind kind) : kind_(kind) {}

  // Feeds one in-order segment; calls on_message(prefix, prefix_len, message_len) for every message whose prefix is
  // complete (prefix_len = min(message_len, kPrefixBytes)). NetBIOS messages of a type other than session message are
  // skipped. Returns false once framing is lost (a DCE-RPC header that is not one): the caller stops feeding.
  template <typename OnMessage>
  bool Feed(const uint8_t* data, uint32_t len, OnMessage&& on_message) {
    if (lost_) return false;
    while (len > 0) {
      if (skip_ > 0) {
        const uint32_t n = len < skip_ ? len : skip_;
        skip_ -= n;
        data += n;
        len -= n;
        continue;
      }
      const uint32_t need = in_message_ ? want_ : HeaderBytes();
      const uint32_t n = need - have_ < len ? need - have_ : len;
      std::memcpy(buf_ + have_, data, n);
      have_ += n;
      data += n;
      len -= n;
      if (have_ < need) break;
      if (!in_message_) {
        if (!StartMessage()) return false;
        if (in_message_ && have_ < want_) continue;
        if (!in_message_) continue;
      }
      on_message(static_cast<const uint8_t*>(buf_), have_, message_len_);
      skip_ = message_len_ - have_;
      in_message_ = false;
      have_ = 0;
    }
    return true;
  }

  bool lost() const { return lost_; }
  uint32_t messages() const { return messages_; }

 private:
  uint32_t HeaderBytes() const { return kind_ == Kind::kNetbios ? 4 : kDcerpcHeaderBytes; }

  // The header is in buf_[0..HeaderBytes()): sets up the message (or the bytes to skip). False when framing is lost.
  bool StartMessage() {
    messages_++;
    if (kind_ == Kind::kNetbios) {
      const uint32_t length = (static_cast<uint32_t>(buf_[1]) << 16) | (static_cast<uint32_t>(buf_[2]) << 8) | buf_[3];
      have_ = 0;
      if (buf_[0] != 0x00 || length == 0) {  // session request, keep-alive, ...: not a message to parse
        skip_ = length;
        return true;
      }
      message_len_ = length;
    } else {
      if (!LooksLikeDcerpcHeader(buf_, have_)) {
        lost_ = true;
        return false;
      }
      message_len_ = DcerpcFragLength(buf_);
    }
    want_ = message_len_ < kPrefixBytes ? message_len_ : kPrefixBytes;
    in_message_ = true;
    return true;
  }

  Kind kind_;
  bool lost_ = false;
  bool in_message_ = false;
  uint32_t have_ = 0;         // bytes in buf_ (header, then the message prefix)
  uint32_t want_ = 0;         // prefix bytes wanted of the current message
  uint32_t message_len_ = 0;  // bytes of the current message (NetBIOS: after its header)
  uint32_t skip_ = 0;         // bytes still to skip (the rest of a message)
  uint32_t messages_ = 0;
  uint8_t buf_[kPrefixBytes];
};

}  // namespace vigil
