// fuzz_tls: libFuzzer target over the TLS record assembler, the ClientHello / ServerHello parsers and the JA3 / JA4 /
// JA4S fingerprints and the server certificate. Input format:
//   byte 0     split control: the rest is fed to the assembler in segments of (byte 0 % 16) + 1 bytes, so record
//              headers and handshake headers straddle segment boundaries
//   bytes 1-   TLS records of one direction of a TCP stream
// The assembled message is then parsed as a ClientHello and as a ServerHello (whatever its type), and every
// fingerprint is computed; the assembler then goes on to the next message (NextCertificate, fed the rest of the
// stream in the same segments), which is parsed as a Certificate. The same segments go through a TlsRecordWalker
// (record headers, heartbeats), whose counts must not depend on how the stream was split. The raw input (minus byte 0)
// is also parsed directly as a handshake message, ending exactly at the end of libFuzzer's allocation so that
// AddressSanitizer flags any read past the length.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/tls.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckText(const char* s, size_t expect_len) { Check(std::strlen(s) == expect_len); }

void ParseAll(const uint8_t* msg, uint32_t len) {
  vigil::TlsClientHello ch;
  const vigil::TlsStatus cs = vigil::ParseClientHello(msg, len, &ch);
  Check(cs < vigil::TlsStatus::kCount && cs != vigil::TlsStatus::kNeedMore);
  Check(ch.sni.len <= vigil::NameText::kCapacity && ch.alpn.len <= 255 && ch.alpn_first.len <= 64);
  char ja3[33];
  char ja4[40];
  vigil::Ja3(ch, ja3);
  CheckText(ja3, 32);
  vigil::Ja4(ch, len % 2 == 0, ja4);
  CheckText(ja4, 36);

  vigil::TlsServerHello sh;
  const vigil::TlsStatus ss = vigil::ParseServerHello(msg, len, &sh);
  Check(ss < vigil::TlsStatus::kCount && ss != vigil::TlsStatus::kNeedMore);
  char ja4s[32];
  vigil::Ja4s(sh, len % 2 == 1, ja4s);
  CheckText(ja4s, 25);

  vigil::TlsCertificate cert;
  const vigil::TlsStatus cs2 = vigil::ParseCertificate(msg, len, &cert);
  Check(cs2 < vigil::TlsStatus::kCount && cs2 != vigil::TlsStatus::kNeedMore);
  for (const vigil::TlsCertName* n : {&cert.subject, &cert.issuer})
    Check(n->cn.len <= 255 && n->o.len <= 255 && n->ou.len <= 255);
  Check(cs2 == vigil::TlsStatus::kOk || (!cert.self_signed && !cert.has_validity));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size - 1 > 1u << 20) return -1;
  const uint32_t step = (data[0] % 16) + 1;
  const uint8_t* stream = data + 1;
  const uint32_t len = static_cast<uint32_t>(size - 1);

  vigil::LooksLikeTlsHandshake(stream, len);
  ParseAll(stream, len);

  vigil::TlsHandshakeAssembler assembler;
  vigil::TlsStatus s = vigil::TlsStatus::kNeedMore;
  uint32_t seg_start = 0, seg_end = 0;  // the segment the first message ended in
  for (uint32_t pos = 0; pos < len && s == vigil::TlsStatus::kNeedMore; pos += step) {
    const uint32_t n = len - pos < step ? len - pos : step;
    s = assembler.Feed(stream + pos, n);
    seg_start = pos;
    seg_end = pos + n;
  }
  Check(s < vigil::TlsStatus::kCount);
  if (s == vigil::TlsStatus::kOk) {
    Check(assembler.message() != nullptr);
    Check(assembler.message_len() >= 4 && assembler.message_len() <= vigil::TlsHandshakeAssembler::kMaxBytes);
    ParseAll(assembler.message(), assembler.message_len());
    const uint32_t used = assembler.consumed();
    Check(assembler.Feed(stream, len) == vigil::TlsStatus::kOk);  // done: further bytes change nothing
    Check(assembler.consumed() == used);
    // The next message, from where the first one ended: the rest of its segment, then the later segments.
    Check(used <= seg_end - seg_start);
    assembler.NextCertificate();
    vigil::TlsStatus c = vigil::TlsStatus::kNeedMore;
    for (uint32_t at = seg_start + used; at < len && c == vigil::TlsStatus::kNeedMore;) {
      const uint32_t end = at < seg_end ? seg_end : (len - at < step ? len : at + step);
      c = assembler.Feed(stream + at, end - at);
      at = end;
    }
    Check(c < vigil::TlsStatus::kCount);
    if (c == vigil::TlsStatus::kOk) {
      Check(assembler.message_len() >= 4 && assembler.message_len() <= vigil::TlsHandshakeAssembler::kMaxBytes);
      ParseAll(assembler.message(), assembler.message_len());
    }
  } else {
    Check(assembler.message() == nullptr && assembler.message_len() == 0);
  }
  assembler.Reset();
  Check(assembler.message() == nullptr);

  const bool peer = (data[0] & 0x10) != 0;
  vigil::TlsRecordWalker split;
  vigil::TlsRecordWalker whole;
  for (uint32_t pos = 0; pos < len; pos += step) split.Feed(stream + pos, len - pos < step ? len - pos : step, peer);
  const vigil::TlsStatus ws = whole.Feed(stream, len, peer);
  Check(ws == vigil::TlsStatus::kNeedMore || ws == vigil::TlsStatus::kOk || ws == vigil::TlsStatus::kBadRecord);
  Check(ws == vigil::TlsStatus::kNeedMore || whole.done());
  Check(split.records() == whole.records() && split.done() == whole.done());
  Check(whole.records() <= vigil::TlsRecordWalker::kMaxRecords);
  const vigil::TlsHeartbeats& a = split.heartbeats();
  const vigil::TlsHeartbeats& b = whole.heartbeats();
  Check(a.records == b.records && a.max_len == b.max_len && a.early == b.early && a.short_record == b.short_record &&
        a.overlong == b.overlong);
  Check(b.records <= whole.records() && b.max_len <= 16384 + 2048);
  Check(!b.short_record || b.records > 0);
  return 0;
}
