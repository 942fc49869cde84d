// DCE-RPC connection-oriented PDUs (The Open Group C706 ch. 12, MS-RPCE 2.2.2): the common header, the abstract
// syntaxes a bind or alter_context asks for, and the context id and opnum of a request; plus the per-flow summary of
// what an RPC client called (interfaces bound, requests per (interface, opnum)). Learned from Zeek's DCE_RPC analyzer
// (src/analyzer/protocol/dce-rpc/dce_rpc.pac) and Suricata's rust/src/dcerpc/: no code taken.
#pragma once

#include <cstdint>

namespace vigil {

enum class DcerpcStatus : uint8_t { kOk = 0, kNeedMore, kNotDcerpc, kBadLength, kBadContext, kCount };
const char* DcerpcStatusName(DcerpcStatus s);  // "dcerpc_bad_length", ...

constexpr uint32_t kDcerpcHeaderBytes = 16;
constexpr int kDcerpcMaxContexts = 4;  // context elements of one bind read (Windows sends 1 to 3)

// PDU types (C706 12.6.4.x) this code reads.
enum DcerpcPtype : uint8_t { kDcerpcRequest = 0, kDcerpcBind = 11, kDcerpcAlterContext = 14 };
constexpr uint8_t kDcerpcFirstFrag = 0x01;   // pfc_flags PFC_FIRST_FRAG
constexpr uint8_t kDcerpcObjectUuid = 0x80;  // pfc_flags PFC_OBJECT_UUID: a request carries an object UUID

struct DcerpcContext {
  uint16_t id = 0;
  uint8_t uuid[16] = {};  // the abstract syntax, in canonical (big-endian, as written) byte order
  uint16_t version = 0;   // its major version
};

struct DcerpcPdu {
  uint8_t ptype = 0;
  uint8_t flags = 0;
  uint16_t frag_len = 0;  // bytes of the whole PDU, header included
  int contexts = 0;       // bind / alter_context: context elements read (at most kDcerpcMaxContexts)
  DcerpcContext ctx[kDcerpcMaxContexts];
  uint16_t ctx_id = 0;  // request: presentation context id
  uint16_t opnum = 0;   // request: operation number
};

// A version 5.0/5.1 header with a known type, a data representation of ASCII/IEEE and sane lengths (>= 16 bytes,
// authentication inside the fragment). Cheap: header bytes only.
bool LooksLikeDcerpcHeader(const uint8_t* p, uint32_t len);
// The same, and a PDU a client sends first (bind, alter_context, request): content recognition of a TCP flow.
bool LooksLikeDcerpcClient(const uint8_t* p, uint32_t len);
// The PDU's declared length (frag_length, in its data representation's byte order). Caller checked the header.
uint16_t DcerpcFragLength(const uint8_t* p);

// Reads one PDU from p[0..len), which may be a prefix of it (len < frag_len): the header, and for a bind or
// alter_context the context elements inside len, for a request its context id and opnum. kNeedMore when len
// ends before the fields wanted.
DcerpcStatus ParseDcerpcPdu(const uint8_t* p, uint32_t len, DcerpcPdu* out);

// The well-known interface an abstract syntax UUID names ("svcctl", "netlogon", ...); nullptr when unknown.
const char* DcerpcInterfaceName(const uint8_t uuid[16]);
// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower case) into out[37].
void DcerpcUuidText(const uint8_t uuid[16], char out[37]);

// What one flow's RPC client called: bounded (interfaces, (interface, opnum) counts, and the context ids each
// channel bound), so a long session costs a fixed few hundred bytes. Capture thread only.
struct DcerpcSummary {
  static constexpr int kMaxInterfaces = 6;
  static constexpr int kMaxOps = 8;
  static constexpr int kMaxBindings = 8;
  static constexpr uint8_t kNoInterface = 0xFF;  // a request whose binding was not seen (or not kept)

  struct Op {
    uint8_t iface = kNoInterface;  // index into ifaces, or kNoInterface
    uint16_t opnum = 0;
    uint32_t count = 0;
  };
  struct Binding {
    uint64_t channel = 0;  // the named pipe's SMB2 file id (folded to 64 bits), 0 over plain TCP
    uint16_t ctx_id = 0;
    uint8_t iface = kNoInterface;
  };

  uint8_t ifaces[kMaxInterfaces][16] = {};
  int iface_count = 0;
  Op ops[kMaxOps];
  int op_count = 0;
  Binding bindings[kMaxBindings];
  int binding_count = 0;
  int binding_next = 0;      // the slot a new binding overwrites once all are used (oldest first)
  uint32_t binds = 0;        // bind and alter_context PDUs
  uint32_t requests = 0;     // request PDUs (first fragments)
  uint32_t ops_dropped = 0;  // requests of an (interface, opnum) beyond kMaxOps distinct ones

  // Accounts one client PDU on `channel`.
  void Take(const DcerpcPdu& pdu, uint64_t channel);
  bool empty() const { return binds == 0 && requests == 0; }
};

}  // namespace vigil
