// SMB2 (MS-SMB2 2.2): the messages of a session that say what a client did on a server: the shares it connected to
// (TREE_CONNECT), the files and named pipes it opened or created and with what access (CREATE), whether it wrote or
// read them (WRITE, READ), and the DCE-RPC PDUs it sent on named pipes (WRITE, IOCTL FSCTL_PIPE_TRANSCEIVE), handed
// to a DcerpcSummary. Responses are read for the ids the server assigns (TreeId, FileId) and for failures. Learned
// from Zeek's SMB analyzer (src/analyzer/protocol/smb/smb2-*.pac) and MITRE BZAR's bzar_smb2_detect.zeek: no code
// taken. Bounded per flow; no allocation. Capture thread only.
#pragma once

#include <cstdint>

#include "app/bounded_text.h"
#include "app/dcerpc.h"

namespace vigil {

enum class SmbStatus : uint8_t { kOk = 0, kNeedMore, kNotSmb, kBadHeader, kBadOffset, kCount };
const char* SmbStatusName(SmbStatus s);  // "smb_bad_offset", ...

constexpr uint32_t kSmb2HeaderBytes = 64;

// The first bytes of a NetBIOS session message carrying SMB (SMB1 0xFF 'SMB', SMB2 0xFE 'SMB', SMB3 transform
// 0xFD 'SMB').
bool LooksLikeSmb(const uint8_t* p, uint32_t len);

// Renders UTF-16LE s[0..bytes) into out as UTF-8 display text (display_text.h rules; unpaired surrogates become
// U+FFFD), cut at out's capacity.
void Utf16DisplayText(const uint8_t* s, uint32_t bytes, NameText* out);

struct SmbShare {
  NameText path;  // "\\server\share" as the client wrote it
  uint32_t tree_id = 0;
  uint64_t message_id = 0;  // of the request, to match its response
  bool connected = false;   // the response granted it
  bool pipe = false;        // IPC$ (by name or the response's ShareType)
};

struct SmbFile {
  NameText name;  // as the client wrote it (relative to the share)
  uint8_t file_id[16] = {};
  uint64_t message_id = 0;
  int8_t share = -1;          // index into SmbSummary::shares; -1 when the tree is not known
  bool opened = false;        // the response granted it (FileId known)
  bool write_access = false;  // DesiredAccess asked for writing, or the disposition creates/overwrites
  bool written = false;       // a WRITE to it followed
  bool read = false;          // a READ of it followed
  bool pipe = false;          // on an IPC$ tree: a named pipe
};

// What one SMB2 session did (both directions: requests by the client, responses for ids and failures).
struct SmbSummary {
  static constexpr int kMaxShares = 4;
  static constexpr int kMaxFiles = 8;

  SmbShare shares[kMaxShares];
  int share_count = 0;
  SmbFile files[kMaxFiles];
  int file_count = 0;
  uint32_t requests = 0;       // SMB2 requests (compounded ones each)
  uint32_t trees = 0;          // TREE_CONNECT requests
  uint32_t creates = 0;        // CREATE requests
  uint32_t writes = 0;         // WRITE requests
  uint32_t reads = 0;          // READ requests
  uint32_t smb1 = 0;           // SMB1 messages (a negotiation's first request; not parsed further)
  uint32_t encrypted = 0;      // SMB3 transform messages (encrypted: not readable)
  uint32_t files_dropped = 0;  // CREATE requests not kept (the list was full of files worth more)

  bool empty() const { return requests == 0 && smb1 == 0 && encrypted == 0; }
};

// Reads the SMB2 messages of one NetBIOS session message (prefix = its first prefix_len bytes, message_len in all;
// compounded messages inside the prefix are followed). Fills `smb`; DCE-RPC PDUs on pipes go to `rpc`.
SmbStatus ParseSmbMessage(const uint8_t* prefix, uint32_t prefix_len, uint32_t message_len, SmbSummary* smb,
                          DcerpcSummary* rpc);

}  // namespace vigil
