// DNS messages (RFC 1035) over UDP and TCP, and mDNS (RFC 6762) / LLMNR (RFC 4795), which share the wire format.
// A pure parser: bytes in, a DnsMessage out. Reads only data[0..len); no allocation; names decompressed with a
// bounded number of pointer jumps.
#pragma once

#include <cstdint>

#include "app/bounded_text.h"

namespace vigil {

// Why a DNS message was not (fully) read. Counted per reason (keys: DnsStatusName).
enum class DnsStatus : uint8_t {
  kOk = 0,
  kTruncated,    // the message ends inside the header, a question or a record
  kBadLabel,     // a label type that is neither a length nor a pointer, or a name longer than 255 bytes
  kPointerLoop,  // compression pointers that loop or jump too often
  kNoQuestion,   // QDCOUNT 0 (nothing to name the flow by)
  kCount
};
const char* DnsStatusName(DnsStatus s);  // "dns_truncated", ...

constexpr int kDnsMaxAnswers = 8;  // answers kept per message (A, AAAA, CNAME); the rest are counted only

struct DnsAnswer {
  uint16_t type = 0;  // 1 A, 28 AAAA, 5 CNAME
  uint32_t ttl = 0;
  uint8_t addr[16] = {};  // A as IPv4-mapped IPv6 (::ffff:a.b.c.d), AAAA as is; zero for CNAME
  NameText name;          // the record's owner name
  NameText cname;         // CNAME target (type 5 only)
};

struct DnsMessage {
  uint16_t id = 0;
  bool response = false;
  uint8_t opcode = 0;
  uint8_t rcode = 0;
  uint16_t qtype = 0;  // of the first question
  uint16_t qclass = 0;
  NameText query;  // first question's name, presentation form without the trailing dot (tshark's dns.qry.name)
  uint16_t answer_count = 0;  // ANCOUNT as read
  uint8_t kept = 0;           // answers[0..kept): A/AAAA/CNAME records of the answer section
  DnsAnswer answers[kDnsMaxAnswers];
};

// Parses one DNS message (for DNS over TCP, without the 2-byte length prefix). On error `out` may hold what was read.
DnsStatus ParseDns(const uint8_t* data, uint32_t len, DnsMessage* out);

// True when data looks like a DNS message header (cheap content check used with the port hint).
bool LooksLikeDns(const uint8_t* data, uint32_t len);

}  // namespace vigil
