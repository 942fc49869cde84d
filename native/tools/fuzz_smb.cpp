// fuzz_smb: libFuzzer target over the SMB2/DCE-RPC stream readers. The input is cut into segments (first byte: the
// segment length) and fed through a NetBIOS framer into ParseSmbMessage, and through a DCE-RPC framer into
// ParseDcerpcPdu; the summaries' bounds are checked after every message.
#include <cstdint>
#include <cstdlib>

#include "app/dcerpc.h"
#include "app/pdu_framer.h"
#include "app/smb.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckSummaries(const vigil::SmbSummary& smb, const vigil::DcerpcSummary& rpc) {
  Check(smb.share_count >= 0 && smb.share_count <= vigil::SmbSummary::kMaxShares);
  Check(smb.file_count >= 0 && smb.file_count <= vigil::SmbSummary::kMaxFiles);
  for (int i = 0; i < smb.file_count; ++i) {
    Check(smb.files[i].share < smb.share_count);
    Check(smb.files[i].name.len <= vigil::NameText::kCapacity);
  }
  Check(rpc.iface_count <= vigil::DcerpcSummary::kMaxInterfaces && rpc.op_count <= vigil::DcerpcSummary::kMaxOps);
  Check(rpc.binding_count <= vigil::DcerpcSummary::kMaxBindings);
  for (int i = 0; i < rpc.op_count; ++i) {
    Check(rpc.ops[i].iface == vigil::DcerpcSummary::kNoInterface || rpc.ops[i].iface < rpc.iface_count);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 20) return -1;
  vigil::SmbSummary smb;
  vigil::DcerpcSummary rpc;
  vigil::PduFramer netbios(vigil::PduFramer::Kind::kNetbios);
  vigil::PduFramer dcerpc(vigil::PduFramer::Kind::kDcerpc);
  size_t at = 0;
  while (at < size) {
    const size_t want = 1 + data[at] * 4;
    ++at;
    const uint32_t n = static_cast<uint32_t>(size - at < want ? size - at : want);
    netbios.Feed(data + at, n, [&](const uint8_t* m, uint32_t len, uint32_t all) {
      Check(len <= vigil::PduFramer::kPrefixBytes && len <= all);
      Check(vigil::ParseSmbMessage(m, len, all, &smb, &rpc) < vigil::SmbStatus::kCount);
      CheckSummaries(smb, rpc);
    });
    dcerpc.Feed(data + at, n, [&](const uint8_t* m, uint32_t len, uint32_t all) {
      Check(len <= vigil::PduFramer::kPrefixBytes && len <= all);
      vigil::DcerpcPdu pdu;
      if (vigil::ParseDcerpcPdu(m, len, &pdu) == vigil::DcerpcStatus::kOk) rpc.Take(pdu, 0);
      Check(pdu.contexts <= vigil::kDcerpcMaxContexts);
      CheckSummaries(smb, rpc);
    });
    at += n;
  }
  vigil::NameText name;
  vigil::Utf16DisplayText(data, static_cast<uint32_t>(size), &name);
  Check(name.len <= vigil::NameText::kCapacity);
  return 0;
}
