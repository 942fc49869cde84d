// DCE-RPC connection-oriented PDUs: header checks, bind contexts, request opnums, per-flow summary (see dcerpc.h).
#include "app/dcerpc.h"

#include <cstdio>
#include <cstring>

#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {

namespace {

// Abstract syntaxes by name: the interfaces lateral movement, credential theft and domain attacks use, as Zeek's
// scripts/base/protocols/dce-rpc/consts.zeek and MITRE BZAR's bzar_dce-rpc_consts.zeek name them.
struct KnownInterface {
  const char* uuid;
  const char* name;
};
constexpr KnownInterface kInterfaces[] = {
    {"367abb81-9844-35f1-ad32-98f038001003", "svcctl"},
    {"1ff70682-0a51-30e8-076d-740be8cee98b", "atsvc"},
    {"86d35949-83c9-4044-b424-db363231fd0c", "ITaskSchedulerService"},
    {"378e52b0-c0a9-11cf-822d-00aa0051e40f", "sasec"},
    {"12345678-1234-abcd-ef00-01234567cffb", "netlogon"},
    {"12345778-1234-abcd-ef00-0123456789ac", "samr"},
    {"12345778-1234-abcd-ef00-0123456789ab", "lsarpc"},
    {"e3514235-4b06-11d1-ab04-00c04fc2dcd2", "drsuapi"},
    {"e1af8308-5d1f-11c9-91a4-08002b14a0fa", "epm"},
    {"338cd001-2244-31f1-aaaa-900038001003", "winreg"},
    {"4b324fc8-1670-01d3-1278-5a47bf6ee188", "srvsvc"},
    {"6bffd098-a112-3610-9833-46c3f87e345a", "wkssvc"},
    {"82273fdc-e32a-18c3-3f78-827929dc23ea", "eventlog"},
    {"f6beaff7-1e19-4fbb-9f8f-b89e2018337c", "IEventService"},
    {"12345678-1234-abcd-ef00-0123456789ab", "spoolss"},
    {"76f03f96-cdfd-44fc-a22c-64950a001209", "IRemoteWinspool"},
    {"000001a0-0000-0000-c000-000000000046", "IRemoteSCMActivator"},
    {"99fcfec4-5260-101b-bbcb-00aa0021347a", "IObjectExporter"},
    {"9556dc99-828c-11cf-a37e-00aa003240c7", "IWbemServices"},
    {"894de0c0-0d55-11d3-a322-00c04fa321a1", "InitShutdown"},
    {"d95afe70-a6d5-4259-822e-2c84da1ddb0d", "WindowsShutdown"},
    {"c681d488-d850-11d0-8c52-00c04fd90f7e", "efsrpc"},
    {"df1941c5-fe89-4e79-bf10-463657acf44d", "efsrpc"},
};

}  // namespace

const char* DcerpcStatusName(DcerpcStatus s) {
  static const char* const kNames[] = {"dcerpc_ok", "dcerpc_need_more", "dcerpc_not_dcerpc", "dcerpc_bad_length",
                                       "dcerpc_bad_context"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(DcerpcStatus::kCount), "one name each");
  const int i = static_cast<int>(s);
  return i >= 0 && i < static_cast<int>(DcerpcStatus::kCount) ? kNames[i] : "dcerpc_unknown";
}

uint16_t DcerpcFragLength(const uint8_t* p) { return (p[4] & 0x10) != 0 ? le16(p + 8) : be16(p + 8); }

bool LooksLikeDcerpcHeader(const uint8_t* p, uint32_t len) {
  if (len < kDcerpcHeaderBytes) return false;
  // rpc_vers 5, minor 0 or 1, a type C706 defines (0..19), drep: integers big/little, ASCII, IEEE floats.
  if (p[0] != 5 || p[1] > 1 || p[2] > 19 || (p[4] & 0xEF) != 0 || p[5] != 0 || p[6] != 0 || p[7] != 0) return false;
  const uint16_t frag = DcerpcFragLength(p);
  const uint16_t auth = (p[4] & 0x10) != 0 ? le16(p + 10) : be16(p + 10);
  return frag >= kDcerpcHeaderBytes && static_cast<uint32_t>(auth) + kDcerpcHeaderBytes <= frag;
}

bool LooksLikeDcerpcClient(const uint8_t* p, uint32_t len) {
  return LooksLikeDcerpcHeader(p, len) &&
         (p[2] == kDcerpcBind || p[2] == kDcerpcAlterContext || p[2] == kDcerpcRequest);
}

DcerpcStatus ParseDcerpcPdu(const uint8_t* p, uint32_t len, DcerpcPdu* out) {
  *out = DcerpcPdu();
  if (len < kDcerpcHeaderBytes) return DcerpcStatus::kNeedMore;
  if (!LooksLikeDcerpcHeader(p, len)) return DcerpcStatus::kNotDcerpc;
  const bool le = (p[4] & 0x10) != 0;
  out->ptype = p[2];
  out->flags = p[3];
  out->frag_len = DcerpcFragLength(p);
  // Only the fragment's own bytes are read, whatever follows it.
  Reader r(p, len < out->frag_len ? len : out->frag_len);
  r.Skip(kDcerpcHeaderBytes);
  auto u16 = [&](uint16_t& v) {
    if (!r.ReadLe16(v)) return false;
    if (!le) v = static_cast<uint16_t>((v >> 8) | (v << 8));
    return true;
  };
  if (out->ptype == kDcerpcBind || out->ptype == kDcerpcAlterContext) {
    // max_xmit_frag, max_recv_frag, assoc_group_id, then p_context_elem: n_context_elem, 3 reserved bytes.
    uint8_t n = 0;
    if (!r.Skip(8) || !r.ReadU8(n) || !r.Skip(3)) return DcerpcStatus::kNeedMore;
    if (n == 0) return DcerpcStatus::kBadContext;
    for (int i = 0; i < n; ++i) {
      // p_cont_id, n_transfer_syn, reserved, abstract_syntax (uuid, version), transfer_syntaxes[n] (20 bytes each).
      uint16_t id = 0;
      uint8_t transfers = 0;
      if (!u16(id) || !r.ReadU8(transfers) || !r.Skip(1))
        return out->contexts > 0 ? DcerpcStatus::kOk : DcerpcStatus::kNeedMore;
      uint8_t raw[16];
      uint16_t major = 0;
      if (!r.Read(raw) || !u16(major) || !r.Skip(2)) {
        return out->contexts > 0 ? DcerpcStatus::kOk : DcerpcStatus::kNeedMore;
      }
      if (out->contexts < kDcerpcMaxContexts) {
        DcerpcContext& c = out->ctx[out->contexts++];
        c.id = id;
        c.version = major;
        // time_low, time_mid, time_hi_and_version follow the data representation; the other 8 bytes are as written.
        const int widths[3] = {4, 2, 2};
        int at = 0;
        for (int w : widths) {
          for (int k = 0; k < w; ++k) c.uuid[at + k] = le ? raw[at + w - 1 - k] : raw[at + k];
          at += w;
        }
        std::memcpy(c.uuid + 8, raw + 8, 8);
      }
      if (!r.Skip(static_cast<uint32_t>(transfers) * 20)) return DcerpcStatus::kOk;
    }
    return DcerpcStatus::kOk;
  }
  if (out->ptype == kDcerpcRequest) {
    // alloc_hint, p_cont_id, opnum.
    if (!r.Skip(4) || !u16(out->ctx_id) || !u16(out->opnum)) return DcerpcStatus::kNeedMore;
    return DcerpcStatus::kOk;
  }
  return DcerpcStatus::kOk;
}

void DcerpcUuidText(const uint8_t u[16], char out[37]) {
  std::snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
                u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

const char* DcerpcInterfaceName(const uint8_t uuid[16]) {
  char text[37];
  DcerpcUuidText(uuid, text);
  for (const KnownInterface& k : kInterfaces) {
    if (std::strcmp(k.uuid, text) == 0) return k.name;
  }
  return nullptr;
}

void DcerpcSummary::Take(const DcerpcPdu& pdu, uint64_t channel) {
  if (pdu.ptype == kDcerpcBind || pdu.ptype == kDcerpcAlterContext) {
    binds++;
    for (int i = 0; i < pdu.contexts; ++i) {
      const DcerpcContext& c = pdu.ctx[i];
      uint8_t iface = kNoInterface;
      for (int k = 0; k < iface_count; ++k) {
        if (std::memcmp(ifaces[k], c.uuid, 16) == 0) iface = static_cast<uint8_t>(k);
      }
      if (iface == kNoInterface && iface_count < kMaxInterfaces) {
        std::memcpy(ifaces[iface_count], c.uuid, 16);
        iface = static_cast<uint8_t>(iface_count++);
      }
      Binding* slot = nullptr;
      for (int k = 0; k < binding_count; ++k) {
        if (bindings[k].channel == channel && bindings[k].ctx_id == c.id) slot = &bindings[k];
      }
      if (slot == nullptr) {
        if (binding_count < kMaxBindings) {
          slot = &bindings[binding_count++];
        } else {
          slot = &bindings[binding_next];
          binding_next = (binding_next + 1) % kMaxBindings;
        }
      }
      slot->channel = channel;
      slot->ctx_id = c.id;
      slot->iface = iface;
    }
    return;
  }
  if (pdu.ptype != kDcerpcRequest || (pdu.flags & kDcerpcFirstFrag) == 0) return;
  requests++;
  uint8_t iface = kNoInterface;
  for (int k = 0; k < binding_count; ++k) {
    if (bindings[k].channel == channel && bindings[k].ctx_id == pdu.ctx_id) iface = bindings[k].iface;
  }
  for (int k = 0; k < op_count; ++k) {
    if (ops[k].iface == iface && ops[k].opnum == pdu.opnum) {
      ops[k].count++;
      return;
    }
  }
  if (op_count == kMaxOps) {
    ops_dropped++;
    return;
  }
  ops[op_count].iface = iface;
  ops[op_count].opnum = pdu.opnum;
  ops[op_count].count = 1;
  op_count++;
}

}  // namespace vigil
