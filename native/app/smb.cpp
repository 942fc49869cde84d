// SMB2 session summary: tree connects, creates, writes/reads, DCE-RPC on named pipes (see smb.h).
#include "app/smb.h"

#include <cstring>

#include "app/display_text.h"
#include "common/byte_order.h"
#include "common/reader.h"

namespace vigil {

namespace {

// MS-SMB2 2.2.1.2 commands read here.
constexpr uint16_t kTreeConnect = 3, kCreate = 5, kRead = 8, kWrite = 9, kIoctl = 11;
constexpr uint32_t kFlagResponse = 0x1, kFlagRelated = 0x4;
constexpr uint32_t kFsctlPipeTransceive = 0x0011C017;
constexpr uint32_t kStatusPending = 0x00000103;  // STATUS_PENDING (MS-SMB2 3.3.4.2: interim response)
// DesiredAccess bits that write (MS-SMB2 2.2.13.1.1): FILE_WRITE_DATA, FILE_APPEND_DATA, GENERIC_ALL, GENERIC_WRITE.
constexpr uint32_t kWriteAccess = 0x00000002 | 0x00000004 | 0x10000000 | 0x40000000;
constexpr int kMaxCompound = 16;  // compounded messages followed in one prefix

// CreateDisposition values that create or replace the file: SUPERSEDE 0, CREATE 2, OVERWRITE 4, OVERWRITE_IF 5.
bool DispositionWrites(uint32_t d) { return d == 0 || d == 2 || d == 4 || d == 5; }

bool EndsWithIpc(const NameText& path) {
  static const char kIpc[] = "\\ipc$";
  const size_t n = sizeof(kIpc) - 1;
  if (path.len < n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = path.data[path.len - n + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kIpc[i]) return false;
  }
  return true;
}

int Priority(const SmbFile& f) {
  return (f.written ? 8 : 0) + (f.write_access ? 4 : 0) + (f.pipe ? 0 : 2) + (f.read ? 1 : 0);
}

uint64_t Channel(const uint8_t fid[16]) { return le64(fid) ^ le64(fid + 8); }

bool AllOnes(const uint8_t fid[16]) {
  for (int i = 0; i < 16; ++i) {
    if (fid[i] != 0xFF) return false;
  }
  return true;
}

SmbFile* FindFile(SmbSummary* smb, const uint8_t fid[16]) {
  for (int i = 0; i < smb->file_count; ++i) {
    SmbFile& f = smb->files[i];
    if (f.opened && std::memcmp(f.file_id, fid, 16) == 0) return &f;
  }
  return nullptr;
}

void RemoveFile(SmbSummary* smb, int i) {
  for (int k = i; k + 1 < smb->file_count; ++k) smb->files[k] = smb->files[k + 1];
  smb->files[--smb->file_count] = SmbFile();
}

// A pipe's data (WRITE or transceive input): one or more client PDUs back to back.
void TakeRpc(const uint8_t* data, uint32_t len, uint64_t channel, DcerpcSummary* rpc) {
  for (int guard = 0; guard < 4 && LooksLikeDcerpcClient(data, len); ++guard) {
    DcerpcPdu pdu;
    const DcerpcStatus st = ParseDcerpcPdu(data, len, &pdu);
    if (st != DcerpcStatus::kOk) return;
    rpc->Take(pdu, channel);
    if (pdu.frag_len >= len) return;
    data += pdu.frag_len;
    len -= pdu.frag_len;
  }
}

struct Header {
  uint32_t status = 0;
  uint16_t command = 0;
  uint32_t flags = 0;
  uint32_t next = 0;
  uint64_t message_id = 0;
  uint32_t tree_id = 0;
};

// m[0..len) is one message (its header checked); body = m + 64. Offsets inside the body are from m.
SmbStatus OnRequest(const Header& h, const uint8_t* m, uint32_t len, int* last_create, SmbSummary* smb,
                    DcerpcSummary* rpc) {
  smb->requests++;
  Reader body(m, len);
  body.Skip(kSmb2HeaderBytes);
  switch (h.command) {
    case kTreeConnect: {
      smb->trees++;
      uint16_t size = 0, flags = 0, offset = 0, length = 0;
      if (!body.ReadLe16(size) || !body.ReadLe16(flags) || !body.ReadLe16(offset) || !body.ReadLe16(length)) {
        return SmbStatus::kNeedMore;
      }
      Reader path(m, len);
      if (!path.Skip(offset) || !path.Has(length)) return SmbStatus::kBadOffset;
      if (smb->share_count == SmbSummary::kMaxShares) return SmbStatus::kOk;
      SmbShare& s = smb->shares[smb->share_count++];
      s = SmbShare();
      Utf16DisplayText(path.current(), length, &s.path);
      s.message_id = h.message_id;
      s.pipe = EndsWithIpc(s.path);
      return SmbStatus::kOk;
    }
    case kCreate: {
      smb->creates++;
      *last_create = -1;
      uint32_t access = 0, disposition = 0;
      uint16_t offset = 0, length = 0;
      if (!body.Skip(24) || !body.ReadLe32(access) || !body.Skip(8) || !body.ReadLe32(disposition) || !body.Skip(4) ||
          !body.ReadLe16(offset) || !body.ReadLe16(length)) {
        return SmbStatus::kNeedMore;
      }
      if (length == 0) return SmbStatus::kOk;  // the share's root
      Reader name(m, len);
      if (!name.Skip(offset) || !name.Has(length)) return SmbStatus::kBadOffset;
      SmbFile f;
      Utf16DisplayText(name.current(), length, &f.name);
      f.message_id = h.message_id;
      for (int i = 0; i < smb->share_count; ++i) {
        if (smb->shares[i].connected && smb->shares[i].tree_id == h.tree_id) f.share = static_cast<int8_t>(i);
      }
      f.pipe = f.share >= 0 && smb->shares[f.share].pipe;
      f.write_access = (access & kWriteAccess) != 0 || DispositionWrites(disposition);
      int slot = smb->file_count;
      if (slot == SmbSummary::kMaxFiles) {
        // Full: the new one replaces the least telling (nothing written, read-only, a pipe), if it is worth as much.
        slot = 0;
        for (int i = 1; i < smb->file_count; ++i) {
          if (Priority(smb->files[i]) < Priority(smb->files[slot])) slot = i;
        }
        if (Priority(f) < Priority(smb->files[slot])) {
          smb->files_dropped++;
          return SmbStatus::kOk;
        }
        smb->files_dropped++;
      } else {
        smb->file_count++;
      }
      smb->files[slot] = f;
      *last_create = slot;
      return SmbStatus::kOk;
    }
    case kWrite:
    case kRead: {
      (h.command == kWrite ? smb->writes : smb->reads)++;
      uint16_t size = 0, data_offset = 0;
      uint32_t length = 0;
      uint8_t fid[16];
      if (!body.ReadLe16(size) || !body.ReadLe16(data_offset) || !body.ReadLe32(length) || !body.Skip(8) ||
          !body.Read(fid)) {
        return SmbStatus::kNeedMore;
      }
      SmbFile* f = nullptr;
      if ((h.flags & kFlagRelated) != 0 && AllOnes(fid)) {
        if (*last_create >= 0) f = &smb->files[*last_create];
      } else {
        f = FindFile(smb, fid);
      }
      if (h.command == kRead) {
        if (f != nullptr) f->read = true;
        return SmbStatus::kOk;
      }
      if (f != nullptr) f->written = true;
      // WRITE: the data (on a pipe, or a file we do not know, that starts like a client PDU) may be DCE-RPC.
      if (f != nullptr && !f->pipe) return SmbStatus::kOk;
      Reader data(m, len);
      if (!data.Skip(data_offset)) return SmbStatus::kOk;  // the data lies past the prefix kept
      TakeRpc(data.current(), data.remaining() < length ? data.remaining() : length, Channel(fid), rpc);
      return SmbStatus::kOk;
    }
    case kIoctl: {
      uint16_t size = 0, reserved = 0;
      uint32_t ctl = 0, in_offset = 0, in_count = 0;
      uint8_t fid[16];
      if (!body.ReadLe16(size) || !body.ReadLe16(reserved) || !body.ReadLe32(ctl) || !body.Read(fid) ||
          !body.ReadLe32(in_offset) || !body.ReadLe32(in_count)) {
        return SmbStatus::kNeedMore;
      }
      if (ctl != kFsctlPipeTransceive) return SmbStatus::kOk;
      Reader data(m, len);
      if (!data.Skip(in_offset)) return SmbStatus::kOk;
      TakeRpc(data.current(), data.remaining() < in_count ? data.remaining() : in_count, Channel(fid), rpc);
      return SmbStatus::kOk;
    }
    default:
      return SmbStatus::kOk;
  }
}

SmbStatus OnResponse(const Header& h, const uint8_t* m, uint32_t len, SmbSummary* smb) {
  if (h.status == kStatusPending) return SmbStatus::kOk;  // an interim response: the final one follows
  Reader body(m, len);
  body.Skip(kSmb2HeaderBytes);
  if (h.command == kTreeConnect) {
    for (int i = 0; i < smb->share_count; ++i) {
      SmbShare& s = smb->shares[i];
      if (s.connected || s.message_id != h.message_id) continue;
      if (h.status != 0) return SmbStatus::kOk;  // refused: stays unconnected (not reported)
      uint16_t size = 0;
      uint8_t type = 0;
      s.connected = true;
      s.tree_id = h.tree_id;
      if (body.ReadLe16(size) && body.ReadU8(type) && type == 0x02) s.pipe = true;  // ShareType PIPE
      return SmbStatus::kOk;
    }
    return SmbStatus::kOk;
  }
  if (h.command == kCreate) {
    for (int i = 0; i < smb->file_count; ++i) {
      SmbFile& f = smb->files[i];
      if (f.opened || f.message_id != h.message_id) continue;
      if (h.status != 0) {  // not found, access denied, ...: the file was not opened
        RemoveFile(smb, i);
        return SmbStatus::kOk;
      }
      if (!body.Skip(64) || !body.Read(f.file_id)) return SmbStatus::kNeedMore;
      f.opened = true;
      return SmbStatus::kOk;
    }
  }
  return SmbStatus::kOk;
}

}  // namespace

const char* SmbStatusName(SmbStatus s) {
  static const char* const kNames[] = {"smb_ok", "smb_need_more", "smb_not_smb", "smb_bad_header", "smb_bad_offset"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(SmbStatus::kCount), "one name each");
  const int i = static_cast<int>(s);
  return i >= 0 && i < static_cast<int>(SmbStatus::kCount) ? kNames[i] : "smb_unknown";
}

bool LooksLikeSmb(const uint8_t* p, uint32_t len) {
  if (len < 8 || p[0] != 0x00) return false;
  return (p[4] == 0xFE || p[4] == 0xFF || p[4] == 0xFD) && p[5] == 'S' && p[6] == 'M' && p[7] == 'B';
}

void Utf16DisplayText(const uint8_t* s, uint32_t bytes, NameText* out) {
  out->Clear();
  // At most as many code units as the output can hold (each yields at least one byte); 3 bytes each at most, 4 per
  // surrogate pair (two units).
  uint32_t units = bytes / 2;
  if (units > NameText::kCapacity + 1) units = NameText::kCapacity + 1;
  uint8_t utf8[(NameText::kCapacity + 1) * 3];
  uint32_t n = 0;
  Reader r(s, units * 2);
  uint16_t u = 0;
  while (r.ReadLe16(u)) {
    uint32_t cp = u;
    if (u >= 0xD800 && u <= 0xDBFF) {
      uint16_t lo = 0;
      Reader peek = r.Window(2);
      if (peek.ReadLe16(lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        r.Skip(2);
        cp = 0x10000 + ((static_cast<uint32_t>(u) - 0xD800) << 10) + (lo - 0xDC00);
      } else {
        cp = 0xFFFD;
      }
    } else if (u >= 0xDC00 && u <= 0xDFFF) {
      cp = 0xFFFD;
    }
    if (cp < 0x80) {
      utf8[n++] = static_cast<uint8_t>(cp);
    } else if (cp < 0x800) {
      utf8[n++] = static_cast<uint8_t>(0xC0 | (cp >> 6));
      utf8[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      utf8[n++] = static_cast<uint8_t>(0xE0 | (cp >> 12));
      utf8[n++] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      utf8[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    } else {
      utf8[n++] = static_cast<uint8_t>(0xF0 | (cp >> 18));
      utf8[n++] = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
      utf8[n++] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      utf8[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    }
    if (n + 4 > sizeof(utf8)) break;
  }
  AppendDisplayText(utf8, n, out);
  if (bytes / 2 > units) out->truncated = true;
}

SmbStatus ParseSmbMessage(const uint8_t* prefix, uint32_t prefix_len, uint32_t message_len, SmbSummary* smb,
                          DcerpcSummary* rpc) {
  (void)message_len;  // the prefix is all that is read; compounded messages past it are skipped with the rest
  uint32_t at = 0;
  int last_create = -1;  // the file a related compound's CREATE made (its FileId is all ones in the chain)
  for (int i = 0; i < kMaxCompound; ++i) {
    Reader r(prefix, prefix_len);
    if (!r.Skip(at) || !r.Has(4)) return SmbStatus::kNeedMore;
    const uint8_t* m = r.current();
    if (m[1] != 'S' || m[2] != 'M' || m[3] != 'B') return SmbStatus::kNotSmb;
    if (m[0] == 0xFF) {
      smb->smb1++;
      return SmbStatus::kOk;
    }
    if (m[0] == 0xFD) {
      smb->encrypted++;
      return SmbStatus::kOk;
    }
    if (m[0] != 0xFE) return SmbStatus::kNotSmb;
    Header h;
    uint16_t size = 0, charge = 0, credit = 0;
    uint32_t reserved = 0;
    if (!r.Skip(4) || !r.ReadLe16(size) || !r.ReadLe16(charge) || !r.ReadLe32(h.status) || !r.ReadLe16(h.command) ||
        !r.ReadLe16(credit) || !r.ReadLe32(h.flags) || !r.ReadLe32(h.next) || !r.ReadLe64(h.message_id) ||
        !r.ReadLe32(reserved) || !r.ReadLe32(h.tree_id)) {
      return SmbStatus::kNeedMore;
    }
    if (size != kSmb2HeaderBytes) return SmbStatus::kBadHeader;
    if (h.next != 0 && (h.next < kSmb2HeaderBytes || h.next % 8 != 0)) return SmbStatus::kBadHeader;
    const uint32_t avail = prefix_len - at;
    const uint32_t len = h.next != 0 && h.next < avail ? h.next : avail;
    const SmbStatus st =
        (h.flags & kFlagResponse) != 0 ? OnResponse(h, m, len, smb) : OnRequest(h, m, len, &last_create, smb, rpc);
    if (st != SmbStatus::kOk) return st;
    if (h.next == 0 || h.next >= avail) return SmbStatus::kOk;
    at += h.next;
  }
  return SmbStatus::kOk;
}

}  // namespace vigil
