/**
 * SMB2 (MS-SMB2 2.2) and DCE-RPC (C706 ch. 12) messages built byte by byte for tests: the fields the capture core
 * reads (native/app/smb.h, dcerpc.h) with the rest zero. Each builder returns one message; {@link netbios} frames it
 * for TCP 445 and pcap-file.ts's `tcpSessions` writes whole TCP connections into a classic pcap.
 */
import type { Segment } from './pcap-file.js';

/** UTF-16LE bytes of a name. */
export const utf16 = (s: string): Buffer => Buffer.from(s, 'utf16le');

/** A 64-byte SMB2 header. */
export function smb2Header(o: {
  command: number;
  messageId: number;
  treeId?: number;
  status?: number;
  response?: boolean;
  next?: number;
  related?: boolean;
}): Buffer {
  const h = Buffer.alloc(64);
  h.write('\xfeSMB', 0, 'latin1'); // ProtocolId
  h.writeUInt16LE(64, 4); // StructureSize
  h.writeUInt32LE(o.status ?? 0, 8); // Status
  h.writeUInt16LE(o.command, 12); // Command
  h.writeUInt32LE((o.response ? 1 : 0) | (o.related ? 4 : 0), 16); // Flags: SERVER_TO_REDIR, RELATED_OPERATIONS
  h.writeUInt32LE(o.next ?? 0, 20); // NextCommand
  h.writeBigUInt64LE(BigInt(o.messageId), 24); // MessageId
  h.writeUInt32LE(o.treeId ?? 0, 36); // TreeId
  return h;
}

/** TREE_CONNECT request for `path` (`\\host\share`). */
export function treeConnect(messageId: number, path: string): Buffer {
  const name = utf16(path);
  const body = Buffer.alloc(8);
  body.writeUInt16LE(9, 0); // StructureSize
  body.writeUInt16LE(64 + 8, 4); // PathOffset
  body.writeUInt16LE(name.length, 6); // PathLength
  return Buffer.concat([smb2Header({ command: 3, messageId }), body, name]);
}

/** TREE_CONNECT response granting `treeId` (ShareType 1 disk, 2 pipe), or refusing it with `status`. */
export function treeConnectResponse(messageId: number, treeId: number, shareType: number, status = 0): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(16, 0);
  body[2] = shareType;
  return Buffer.concat([smb2Header({ command: 3, messageId, treeId, response: true, status }), body]);
}

/** CREATE request for `name` on `treeId` with DesiredAccess `access` and CreateDisposition `disposition`. */
export function create(messageId: number, treeId: number, name: string, access: number, disposition: number): Buffer {
  const n = utf16(name);
  const body = Buffer.alloc(56);
  body.writeUInt16LE(57, 0); // StructureSize
  body.writeUInt32LE(access >>> 0, 24); // DesiredAccess
  body.writeUInt32LE(disposition, 36); // CreateDisposition
  body.writeUInt16LE(64 + 56, 44); // NameOffset
  body.writeUInt16LE(n.length, 46); // NameLength
  return Buffer.concat([smb2Header({ command: 5, messageId, treeId }), body, n]);
}

/** CREATE response assigning the 16-byte `fileId` (or failing with `status`). */
export function createResponse(messageId: number, treeId: number, fileId: Buffer, status = 0): Buffer {
  const body = Buffer.alloc(88);
  body.writeUInt16LE(89, 0);
  fileId.copy(body, 64); // FileId
  return Buffer.concat([smb2Header({ command: 5, messageId, treeId, response: true, status }), body]);
}

/** WRITE request of `data` to `fileId` (data at offset 0x70). */
export function write(messageId: number, treeId: number, fileId: Buffer, data: Buffer): Buffer {
  const body = Buffer.alloc(48);
  body.writeUInt16LE(49, 0); // StructureSize
  body.writeUInt16LE(64 + 48, 2); // DataOffset
  body.writeUInt32LE(data.length, 4); // Length
  fileId.copy(body, 16); // FileId
  return Buffer.concat([smb2Header({ command: 9, messageId, treeId }), body, data]);
}

/** READ request of `fileId`. */
export function read(messageId: number, treeId: number, fileId: Buffer): Buffer {
  const body = Buffer.alloc(49);
  body.writeUInt16LE(49, 0);
  body.writeUInt32LE(65536, 4); // Length
  fileId.copy(body, 16);
  return Buffer.concat([smb2Header({ command: 8, messageId, treeId }), body]);
}

/** IOCTL FSCTL_PIPE_TRANSCEIVE request carrying `input` on `fileId`. */
export function transceive(messageId: number, treeId: number, fileId: Buffer, input: Buffer): Buffer {
  const body = Buffer.alloc(56);
  body.writeUInt16LE(57, 0);
  body.writeUInt32LE(0x0011c017, 4); // CtlCode
  fileId.copy(body, 8); // FileId
  body.writeUInt32LE(64 + 56, 24); // InputOffset
  body.writeUInt32LE(input.length, 28); // InputCount
  return Buffer.concat([smb2Header({ command: 11, messageId, treeId }), body, input]);
}

/** A NetBIOS session message around `message` (type 0, 24-bit length). */
export function netbios(message: Buffer): Buffer {
  const h = Buffer.alloc(4);
  h.writeUIntBE(message.length, 1, 3);
  return Buffer.concat([h, message]);
}

/** A UUID's wire form with little-endian data representation (time fields byte-swapped). */
function uuidLe(uuid: string): Buffer {
  const b = Buffer.from(uuid.replace(/-/g, ''), 'hex');
  return Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]);
}

function dcerpcHeader(ptype: number, length: number, callId: number): Buffer {
  const h = Buffer.alloc(16);
  h[0] = 5; // rpc_vers
  h[2] = ptype;
  h[3] = 0x03; // PFC_FIRST_FRAG | PFC_LAST_FRAG
  h[4] = 0x10; // drep: little-endian, ASCII, IEEE
  h.writeUInt16LE(length, 8); // frag_length
  h.writeUInt32LE(callId, 12);
  return h;
}

/** A bind of context 0 to interface `uuid` version `major` (NDR transfer syntax). */
export function dcerpcBind(uuid: string, major: number, callId = 1): Buffer {
  const body = Buffer.alloc(12 + 44);
  body.writeUInt16LE(4280, 0); // max_xmit_frag
  body.writeUInt16LE(4280, 2); // max_recv_frag
  body[8] = 1; // n_context_elem
  body.writeUInt16LE(0, 12); // p_cont_id
  body[14] = 1; // n_transfer_syn
  uuidLe(uuid).copy(body, 16);
  body.writeUInt16LE(major, 32);
  uuidLe('8a885d04-1ceb-11c9-9fe8-08002b104860').copy(body, 36); // NDR
  body.writeUInt32LE(2, 52);
  return Buffer.concat([dcerpcHeader(11, 16 + body.length, callId), body]);
}

/** A request of `opnum` on context 0 with `stub`. */
export function dcerpcRequest(opnum: number, stub: Buffer, callId = 2): Buffer {
  const body = Buffer.alloc(8);
  body.writeUInt32LE(stub.length, 0); // alloc_hint
  body.writeUInt16LE(opnum, 6);
  return Buffer.concat([dcerpcHeader(0, 16 + 8 + stub.length, callId), body, stub]);
}

/** One SMB2 message from the client, framed for TCP 445. */
export const clientMessage = (m: Buffer): Segment => ({ fromClient: true, payload: netbios(m) });
/** One SMB2 message from the server, framed for TCP 445. */
export const serverMessage = (m: Buffer): Segment => ({ fromClient: false, payload: netbios(m) });
/** A 16-byte SMB2 FileId filled with `k`. */
export const fileId = (k: number): Buffer => Buffer.alloc(16, k);

/** Access mask bits of a CREATE (MS-SMB2 2.2.13.1.1). */
export const FILE_READ_DATA = 0x1;
export const GENERIC_WRITE = 0x40000000;
export const GENERIC_READ = 0x80000000;
/** DCE-RPC interface UUIDs: MS-SCMR svcctl, MS-NRPC netlogon, the endpoint mapper (C706 appendix I). */
export const SVCCTL_UUID = '367abb81-9844-35f1-ad32-98f038001003';
export const NETLOGON_UUID = '12345678-1234-abcd-ef00-01234567cffb';
export const EPM_UUID = 'e1af8308-5d1f-11c9-91a4-08002b14a0fa';
