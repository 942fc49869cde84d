// TCP decoding.
#include "decode/tcp.h"

#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {

DecodeStatus DecodeTcp(const L4Span& l4, PacketView& out) {
  if (l4.declared < sizeof(TcpHeader)) return DecodeStatus::kBadIpTotalLength;
  Reader r(l4.data, l4.captured);
  TcpHeader h;
  if (!r.Peek(h)) return DecodeStatus::kTruncatedL4;
  out.has_ports = true;
  out.src_port = be16(h.src_port);
  out.dst_port = be16(h.dst_port);
  out.tcp_flags = h.flags;
  out.tcp_window = be16(h.window);
  const uint32_t header_len = (h.data_offset >> 4) * 4u;
  if (header_len < sizeof(TcpHeader) || header_len > l4.declared) return DecodeStatus::kBadTcpHeaderLength;
  out.l4_header_bytes = static_cast<uint16_t>(header_len);
  out.payload_bytes = l4.declared - header_len;
  if (!r.Has(header_len)) return DecodeStatus::kTruncatedL4;
  out.tcp_seq = be32(h.seq);
  if (l4.captured > header_len) {
    out.payload = l4.data + header_len;
    out.payload_captured = l4.captured - header_len;
  }
  return DecodeStatus::kOk;
}

}  // namespace vigil
