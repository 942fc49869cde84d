// Reader: a bounds-checked forward cursor over one captured frame. Every decoder reads through it, so no read can
// go past the captured length; a failed read leaves the cursor unchanged and returns false.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/byte_order.h"

namespace vigil {

class Reader {
 public:
  // Views data[0..size). The bytes are borrowed: they must outlive the Reader. No allocation.
  Reader(const uint8_t* data, uint32_t size) : data_(data), size_(size) {}

  uint32_t offset() const { return pos_; }
  uint32_t remaining() const { return size_ - pos_; }
  bool Has(uint32_t n) const { return n <= size_ - pos_; }
  // Pointer to the current position; only the first remaining() bytes may be read from it.
  const uint8_t* current() const { return data_ + pos_; }

  bool Skip(uint32_t n) {
    if (!Has(n)) return false;
    pos_ += n;
    return true;
  }

  // Copies sizeof(T) bytes into a wire struct (a POD made of byte arrays) and advances.
  template <typename T>
  bool Read(T& out) {
    if (!Has(sizeof(T))) return false;
    std::memcpy(&out, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  // Copies sizeof(T) bytes at the current position without advancing.
  template <typename T>
  bool Peek(T& out) const {
    if (!Has(sizeof(T))) return false;
    std::memcpy(&out, data_ + pos_, sizeof(T));
    return true;
  }

  bool ReadU8(uint8_t& v) {
    if (!Has(1)) return false;
    v = data_[pos_++];
    return true;
  }

  bool ReadBe16(uint16_t& v) {
    if (!Has(2)) return false;
    v = be16(data_ + pos_);
    pos_ += 2;
    return true;
  }

  bool ReadBe32(uint32_t& v) {
    if (!Has(4)) return false;
    v = be32(data_ + pos_);
    pos_ += 4;
    return true;
  }

  bool ReadLe16(uint16_t& v) {
    if (!Has(2)) return false;
    v = le16(data_ + pos_);
    pos_ += 2;
    return true;
  }

  bool ReadLe32(uint32_t& v) {
    if (!Has(4)) return false;
    v = le32(data_ + pos_);
    pos_ += 4;
    return true;
  }

  bool ReadLe64(uint64_t& v) {
    if (!Has(8)) return false;
    v = le64(data_ + pos_);
    pos_ += 8;
    return true;
  }

  // A reader over the next min(n, remaining()) bytes (the cursor itself does not move): used to confine a layer to
  // the length its parent declared, so trailing padding is never parsed as payload.
  Reader Window(uint32_t n) const { return Reader(data_ + pos_, Has(n) ? n : remaining()); }

 private:
  const uint8_t* data_;
  uint32_t size_;
  uint32_t pos_ = 0;
};

}  // namespace vigil
