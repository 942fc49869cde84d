// DNS message parsing (RFC 1035 §4, name compression §4.1.4; mDNS RFC 6762 §18; LLMNR RFC 4795 §2.1).
// Names are decompressed into presentation form as tshark prints `dns.qry.name` (display_text.h for the bytes).
#include "app/dns.h"

#include <cstring>

#include "app/display_text.h"
#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {
namespace {

constexpr uint32_t kHeaderBytes = 12;
constexpr uint32_t kMaxNameWireBytes = 255;  // RFC 1035 §2.3.4: length octets, label octets and the final zero
constexpr int kMaxPointerJumps = 32;         // far more than any real name needs (one per suffix)
constexpr uint16_t kTypeA = 1;
constexpr uint16_t kTypeCname = 5;
constexpr uint16_t kTypeAaaa = 28;
constexpr uint16_t kClassMask = 0x7fff;  // mDNS: the top bit is unicast-response (questions) or cache-flush (records)

// The wire header (RFC 1035 §4.1.1). All fields big-endian.
struct DnsHeader {
  uint8_t id[2];
  uint8_t flags[2];  // QR(1) OPCODE(4) AA TC RD RA Z AD CD RCODE(4)
  uint8_t qdcount[2];
  uint8_t ancount[2];
  uint8_t nscount[2];
  uint8_t arcount[2];
};
static_assert(sizeof(DnsHeader) == kHeaderBytes, "DNS header is 12 bytes");

// Decodes the (possibly compressed) name starting at msg[pos] into `out`; *end is the offset just past the name where
// it starts (after its first pointer, or after the root label). The root name is "<Root>", as tshark prints it.
// Pointers may go anywhere inside msg; one that targets a place already visited, or a chain of more than
// kMaxPointerJumps, is a loop. `out` is cleared on entry and may hold a partial name on error.
DnsStatus ReadName(const uint8_t* msg, uint32_t len, uint32_t pos, NameText* out, uint32_t* end) {
  out->Clear();
  uint32_t visited[kMaxPointerJumps];
  int jumps = 0;
  uint32_t wire = 0;
  bool jumped = false;
  for (;;) {
    if (pos >= len) return DnsStatus::kTruncated;
    const uint8_t b = msg[pos];
    if (b == 0) {
      if (!jumped) *end = pos + 1;
      if (wire == 0) out->Assign("<Root>");
      return DnsStatus::kOk;
    }
    if ((b & 0xc0) == 0xc0) {
      if (len - pos < 2) return DnsStatus::kTruncated;
      const uint32_t target = (static_cast<uint32_t>(b & 0x3f) << 8) | msg[pos + 1];
      if (!jumped) *end = pos + 2;
      jumped = true;
      for (int i = 0; i < jumps; ++i) {
        if (visited[i] == target) return DnsStatus::kPointerLoop;
      }
      if (jumps == kMaxPointerJumps) return DnsStatus::kPointerLoop;
      visited[jumps++] = target;
      pos = target;  // a target past the end fails at the top of the loop (kTruncated: data we do not have)
      continue;
    }
    if ((b & 0xc0) != 0) return DnsStatus::kBadLabel;  // 0x40 extended and 0x80 reserved label types
    wire += 1u + b;
    if (wire + 1 > kMaxNameWireBytes) return DnsStatus::kBadLabel;  // no room left for the final zero
    if (len - pos - 1 < b) return DnsStatus::kTruncated;
    if (!out->truncated) {  // once cut, the rest is only checked, so the text stays a prefix of the whole name
      const uint16_t before = out->len;
      if (before > 0) out->Push('.');
      AppendDisplayText(msg + pos + 1, b, out);
      // No dangling dot before a label that did not fit at all.
      if (before > 0 && out->truncated && out->len == before + 1) out->len = before;
    }
    pos += 1u + b;
  }
}

// Moves past a name without decoding it: labels up to the root label or the first pointer.
DnsStatus SkipName(Reader& r) {
  for (;;) {
    uint8_t b;
    if (!r.ReadU8(b)) return DnsStatus::kTruncated;
    if (b == 0) return DnsStatus::kOk;
    if ((b & 0xc0) == 0xc0) return r.Skip(1) ? DnsStatus::kOk : DnsStatus::kTruncated;
    if ((b & 0xc0) != 0) return DnsStatus::kBadLabel;
    if (!r.Skip(b)) return DnsStatus::kTruncated;
  }
}

}  // namespace

const char* DnsStatusName(DnsStatus s) {
  switch (s) {
    case DnsStatus::kOk:
      return "dns_ok";
    case DnsStatus::kTruncated:
      return "dns_truncated";
    case DnsStatus::kBadLabel:
      return "dns_bad_label";
    case DnsStatus::kPointerLoop:
      return "dns_pointer_loop";
    case DnsStatus::kNoQuestion:
      return "dns_no_question";
    case DnsStatus::kCount:
      break;
  }
  return "dns_unknown";
}

DnsStatus ParseDns(const uint8_t* data, uint32_t len, DnsMessage* out) {
  out->query.Clear();
  out->kept = 0;
  out->qtype = 0;
  out->qclass = 0;
  Reader r(data, len);
  DnsHeader h;
  if (!r.Read(h)) return DnsStatus::kTruncated;
  const uint16_t flags = be16(h.flags);
  out->id = be16(h.id);
  out->response = (flags & 0x8000) != 0;
  out->opcode = static_cast<uint8_t>((flags >> 11) & 0xf);
  out->rcode = static_cast<uint8_t>(flags & 0xf);
  const uint16_t qdcount = be16(h.qdcount);
  out->answer_count = be16(h.ancount);

  // Questions: the first is decoded (and kept only when whole, as tshark shows it), the others skipped.
  for (uint32_t i = 0; i < qdcount; ++i) {
    uint16_t qtype, qclass;
    if (i == 0) {
      uint32_t end = 0;
      DnsStatus s = ReadName(data, len, r.offset(), &out->query, &end);
      if (s == DnsStatus::kOk) {
        r.Skip(end - r.offset());
        if (!r.ReadBe16(qtype) || !r.ReadBe16(qclass)) s = DnsStatus::kTruncated;
      }
      if (s != DnsStatus::kOk) {
        out->query.Clear();
        return s;
      }
      out->qtype = qtype;
      out->qclass = qclass & kClassMask;
      continue;
    }
    const DnsStatus s = SkipName(r);
    if (s != DnsStatus::kOk) return s;
    if (!r.ReadBe16(qtype) || !r.ReadBe16(qclass)) return DnsStatus::kTruncated;
  }

  // Answer section: A, AAAA and CNAME records are kept, any other type is stepped over by its RDLENGTH.
  for (uint32_t i = 0; i < out->answer_count; ++i) {
    const uint32_t owner = r.offset();
    DnsStatus s = SkipName(r);
    if (s != DnsStatus::kOk) return s;
    uint16_t type, rclass, rdlength;
    uint32_t ttl;
    if (!r.ReadBe16(type) || !r.ReadBe16(rclass) || !r.ReadBe32(ttl) || !r.ReadBe16(rdlength)) {
      return DnsStatus::kTruncated;
    }
    const uint32_t rdata = r.offset();
    if (!r.Skip(rdlength)) return DnsStatus::kTruncated;
    const bool address = (type == kTypeA && rdlength == 4) || (type == kTypeAaaa && rdlength == 16);
    if ((!address && type != kTypeCname) || out->kept >= kDnsMaxAnswers) continue;

    DnsAnswer& a = out->answers[out->kept];
    a.type = type;
    a.ttl = ttl;
    std::memset(a.addr, 0, sizeof a.addr);
    a.cname.Clear();
    uint32_t end = 0;
    s = ReadName(data, len, owner, &a.name, &end);
    if (s != DnsStatus::kOk) return s;
    if (type == kTypeA) {
      a.addr[10] = 0xff;
      a.addr[11] = 0xff;
      std::memcpy(a.addr + 12, data + rdata, 4);
    } else if (type == kTypeAaaa) {
      std::memcpy(a.addr, data + rdata, 16);
    } else {
      s = ReadName(data, len, rdata, &a.cname, &end);  // may be compressed, pointing anywhere in the message
      if (s != DnsStatus::kOk) return s;
    }
    ++out->kept;
  }
  return qdcount == 0 ? DnsStatus::kNoQuestion : DnsStatus::kOk;
}

bool LooksLikeDns(const uint8_t* data, uint32_t len) {
  if (len < kHeaderBytes) return false;
  const uint16_t flags = be16(data + 2);
  const bool response = (flags & 0x8000) != 0;
  const uint8_t opcode = (flags >> 11) & 0xf;
  if (opcode == 3 || opcode > 5) return false;        // QUERY, IQUERY (obsolete, still seen), STATUS, NOTIFY, UPDATE
  if (!response && (flags & 0xf) != 0) return false;  // a query carries no response code
  const uint32_t qd = be16(data + 4), an = be16(data + 6), ns = be16(data + 8), ar = be16(data + 10);
  if (qd > 32) return false;
  if (qd == 0 && !(response && an > 0)) return false;  // only an mDNS response goes without a question
  // A question takes at least 5 bytes (root name, type, class), a record at least 11: the counts must fit.
  if (kHeaderBytes + qd * 5 + (an + ns + ar) * 11 > len) return false;
  // The first name starts with a label length or a pointer.
  const uint8_t first = data[kHeaderBytes];
  return (first & 0xc0) == 0 || (first & 0xc0) == 0xc0;
}

}  // namespace vigil
