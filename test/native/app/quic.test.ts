/**
 * QUIC Initial reader (native/app/quic.h) through the test-only `_parseQuic`: RFC 9001 / RFC 9369 Appendix A test
 * vectors, real captures checked against tshark (which decrypts Initials itself), Initials sealed here with
 * node:crypto (an independent implementation of RFC 9001 §5, itself checked against the RFC's packet) for the edge
 * cases captures lack, and truncation at every byte.
 */
import { expect } from 'chai';
import { createCipheriv, createHmac } from 'node:crypto';
import path from 'node:path';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';
import { readClassicPcap, type PcapRecord } from '../../helpers/pcap-file.js';
import { FIXTURES } from '../../helpers/setup.js';

const addon = loadBinding();
const parse = (datagrams: Uint8Array[], fromServer?: boolean, odcid?: Uint8Array): Binding.ParsedQuic => addon._parseQuic(datagrams, fromServer, odcid);

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const toHex = (b: Uint8Array | null): string => (b ? Buffer.from(b).toString('hex') : '');
const V1 = 0x00000001;
const V2 = 0x6b3343cf;
const STATUSES = ['quic_ok', 'quic_need_more', 'quic_not_initial', 'quic_bad_header', 'quic_decrypt_failed', 'quic_bad_frame', 'quic_too_large'];

// ---- RFC 9001 Appendix A (v1) and RFC 9369 Appendix A (v2): the same keys' inputs, ClientHello and ServerHello ----
const RFC_DCID = hex('8394c8f03e515708'); // A.1: the client's Destination Connection ID
// A.2: the client's CRYPTO frame (type 06, offset 00, length 40f1) holds this ClientHello (type 01, length 0000ed).
const RFC_CLIENT_HELLO = hex(`
  010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e86804fe3a47f06a2b69484c000004130113020100
  00c000000010000e00000b6578616d706c652e636f6dff01000100000a00080006001d0017001800100007000504616c
  706e000500050100000000003300260024001d00209370b2c9caa47fbabaf4559fedba753de171fa71f50f1ce15d43e9
  94ec74d748002b0003020304000d0010000e0403050306030203080408050806002d00020101001c0002400100390032
  0408ffffffffffffffff05048000ffff07048000ffff0801100104800075300901100f088394c8f03e51570806048000ffff`);
// A.3: the server's CRYPTO frame holds this ServerHello (after an ACK frame 02 00 00 00 00).
const RFC_SERVER_HELLO = hex(`
  020000560303eefce7f7b37ba1d1632e96677825ddf73988cfc79825df566dc5430b9a045a1200130100002e00330024
  001d00209d3c940d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00020304`);

// RFC 9001 A.2: the protected client Initial (1200 bytes; header c0 00000001 08 8394c8f03e515708 00 00 449e + PN).
const RFC9001_CLIENT = hex(`
  c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11d242b123dc9bd8bab936b47d92ec356c
  0bab7df5976d27cd449f63300099f3991c260ec4c60d17b31f8429157bb35a1282a643a8d2262cad67500cadb8e7378c
  8eb7539ec4d4905fed1bee1fc8aafba17c750e2c7ace01e6005f80fcb7df621230c83711b39343fa028cea7f7fb5ff89
  eac2308249a02252155e2347b63d58c5457afd84d05dfffdb20392844ae812154682e9cf012f9021a6f0be17ddd0c208
  4dce25ff9b06cde535d0f920a2db1bf362c23e596d11a4f5a6cf3948838a3aec4e15daf8500a6ef69ec4e3feb6b1d98e
  610ac8b7ec3faf6ad760b7bad1db4ba3485e8a94dc250ae3fdb41ed15fb6a8e5eba0fc3dd60bc8e30c5c4287e53805db
  059ae0648db2f64264ed5e39be2e20d82df566da8dd5998ccabdae053060ae6c7b4378e846d29f37ed7b4ea9ec5d82e7
  961b7f25a9323851f681d582363aa5f89937f5a67258bf63ad6f1a0b1d96dbd4faddfcefc5266ba6611722395c906556
  be52afe3f565636ad1b17d508b73d8743eeb524be22b3dcbc2c7468d54119c7468449a13d8e3b95811a198f3491de3e7
  fe942b330407abf82a4ed7c1b311663ac69890f4157015853d91e923037c227a33cdd5ec281ca3f79c44546b9d90ca00
  f064c99e3dd97911d39fe9c5d0b23a229a234cb36186c4819e8b9c5927726632291d6a418211cc2962e20fe47feb3edf
  330f2c603a9d48c0fcb5699dbfe5896425c5bac4aee82e57a85aaf4e2513e4f05796b07ba2ee47d80506f8d2c25e50fd
  14de71e6c418559302f939b0e1abd576f279c4b2e0feb85c1f28ff18f58891ffef132eef2fa09346aee33c28eb130ff2
  8f5b766953334113211996d20011a198e3fc433f9f2541010ae17c1bf202580f6047472fb36857fe843b19f5984009dd
  c324044e847a4f4a0ab34f719595de37252d6235365e9b84392b061085349d73203a4a13e96f5432ec0fd4a1ee65accd
  d5e3904df54c1da510b0ff20dcc0c77fcb2c0e0eb605cb0504db87632cf3d8b4dae6e705769d1de354270123cb11450e
  fc60ac47683d7b8d0f811365565fd98c4c8eb936bcab8d069fc33bd801b03adea2e1fbc5aa463d08ca19896d2bf59a07
  1b851e6c239052172f296bfb5e72404790a2181014f3b94a4e97d117b438130368cc39dbb2d198065ae3986547926cd2
  162f40a29f0c3c8745c0f50fba3852e566d44575c29d39a03f0cda721984b6f440591f355e12d439ff150aab7613499d
  bd49adabc8676eef023b15b65bfc5ca06948109f23f350db82123535eb8a7433bdabcb909271a6ecbcb58b936a88cd4e
  8f2e6ff5800175f113253d8fa9ca8885c2f552e657dc603f252e1a8e308f76f0be79e2fb8f5d5fbbe2e30ecadd220723
  c8c0aea8078cdfcb3868263ff8f0940054da48781893a7e49ad5aff4af300cd804a6b6279ab3ff3afb64491c85194aab
  760d58a606654f9f4400e8b38591356fbf6425aca26dc85244259ff2b19c41b9f96f3ca9ec1dde434da7d2d392b905dd
  f3d1f9af93d1af5950bd493f5aa731b4056df31bd267b6b90a079831aaf579be0a39013137aac6d404f518cfd4684064
  7e78bfe706ca4cf5e9c5453e9f7cfd2b8b4c8d169a44e55c88d4a9a7f9474241e221af44860018ab0856972e194cd934`);
// RFC 9001 A.3: the protected server Initial (SCID f067a5502a4262b5, packet number 1).
const RFC9001_SERVER = hex(`
  cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a5816b6394100f37a1c69797554780bb3
  8cc5a99f5ede4cf73c3ec2493a1839b3dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73cc3f3bded74b562bfb19fb84
  022f8ef4cdd93795d77d06edbb7aaf2f58891850abbdca3d20398c276456cbc42158407dd074ee`);
// RFC 9369 A.2: the same ClientHello protected with the v2 salt and labels (Initial type bits 01).
const RFC9369_CLIENT = hex(`
  d76b3343cf088394c8f03e5157080000449ea0c95e82ffe67b6abcdb4298b485dd04de806071bf03dceebfa162e75d6c
  96058bdbfb127cdfcbf903388e99ad049f9a3dd4425ae4d0992cfff18ecf0fdb5a842d09747052f17ac2053d21f57c5d
  250f2c4f0e0202b70785b7946e992e58a59ac52dea6774d4f03b55545243cf1a12834e3f249a78d395e0d18f4d766004
  f1a2674802a747eaa901c3f10cda5500cb9122faa9f1df66c392079a1b40f0de1c6054196a11cbea40afb6ef5253cd68
  18f6625efce3b6def6ba7e4b37a40f7732e093daa7d52190935b8da58976ff3312ae50b187c1433c0f028edcc4c2838b
  6a9bfc226ca4b4530e7a4ccee1bfa2a3d396ae5a3fb512384b2fdd851f784a65e03f2c4fbe11a53c7777c023462239dd
  6f7521a3f6c7d5dd3ec9b3f233773d4b46d23cc375eb198c63301c21801f6520bcfb7966fc49b393f0061d974a2706df
  8c4a9449f11d7f3d2dcbb90c6b877045636e7c0c0fe4eb0f697545460c806910d2c355f1d253bc9d2452aaa549e27a1f
  ac7cf4ed77f322e8fa894b6a83810a34b361901751a6f5eb65a0326e07de7c1216ccce2d0193f958bb3850a833f7ae43
  2b65bc5a53975c155aa4bcb4f7b2c4e54df16efaf6ddea94e2c50b4cd1dfe06017e0e9d02900cffe1935e0491d77ffb4
  fdf85290fdd893d577b1131a610ef6a5c32b2ee0293617a37cbb08b847741c3b8017c25ca9052ca1079d8b78aebd4787
  6d330a30f6a8c6d61dd1ab5589329de714d19d61370f8149748c72f132f0fc99f34d766c6938597040d8f9e2bb522ff9
  9c63a344d6a2ae8aa8e51b7b90a4a806105fcbca31506c446151adfeceb51b91abfe43960977c87471cf9ad4074d30e1
  0d6a7f03c63bd5d4317f68ff325ba3bd80bf4dc8b52a0ba031758022eb025cdd770b44d6d6cf0670f4e990b22347a7db
  848265e3e5eb72dfe8299ad7481a408322cac55786e52f633b2fb6b614eaed18d703dd84045a274ae8bfa73379661388
  d6991fe39b0d93debb41700b41f90a15c4d526250235ddcd6776fc77bc97e7a417ebcb31600d01e57f32162a8560cacc
  7e27a096d37a1a86952ec71bd89a3e9a30a2a26162984d7740f81193e8238e61f6b5b984d4d3dfa033c1bb7e4f0037fe
  bf406d91c0dccf32acf423cfa1e7071010d3f270121b493ce85054ef58bada42310138fe081adb04e2bd901f2f13458b
  3d6758158197107c14ebb193230cd1157380aa79cae1374a7c1e5bbcb80ee23e06ebfde206bfb0fcbc0edc4ebec30966
  1bdd908d532eb0c6adc38b7ca7331dce8dfce39ab71e7c32d318d136b6100671a1ae6a6600e3899f31f0eed19e3417d1
  34b90c9058f8632c798d4490da4987307cba922d61c39805d072b589bd52fdf1e86215c2d54e6670e07383a27bbffb5a
  ddf47d66aa85a0c6f9f32e59d85a44dd5d3b22dc2be80919b490437ae4f36a0ae55edf1d0b5cb4e9a3ecabee93dfc6e3
  8d209d0fa6536d27a5d6fbb17641cde27525d61093f1b28072d111b2b4ae5f89d5974ee12e5cf7d5da4d6a31123041f3
  3e61407e76cffcdcfd7e19ba58cf4b536f4c4938ae79324dc402894b44faf8afbab35282ab659d13c93f70412e85cb19
  9a37ddec600545473cfb5a05e08d0b209973b2172b4d21fb69745a262ccde96ba18b2faa745b6fe189cf772a9f84cbfc`);
// RFC 9369 A.3: the protected server Initial (first byte 0xdc: type bits 01, v2's Initial).
const RFC9369_SERVER = hex(`
  dc6b3343cf0008f067a5502a4262b5004075d92faaf16f05d8a4398c47089698baeea26b91eb761d9b89237bbf872630
  17915358230035f7fd3945d88965cf17f9af6e16886c61bfc703106fbaf3cb4cfa52382dd16a393e42757507698075b2
  c984c707f0a0812d8cd5a6881eaf21ceda98f4bd23f6fe1a3e2c43edd9ce7ca84bed8521e2e140`);

// ---- An independent sealer (node:crypto): RFC 9001 §5.2-5.4 / RFC 9369 §3.3 ----
const SALT: Record<number, Buffer> = {
  [V1]: hex('38762cf7f55934b34d179ae6a4c80cadccbb7f0a'),
  [V2]: hex('0dede3def700a6db819381be6e269dcbf9bd2ed9'),
};
const hmac = (key: Buffer, data: Buffer): Buffer => createHmac('sha256', key).update(data).digest();
/** HKDF-Expand-Label with an empty context, for outputs of at most one SHA-256 block. */
function expandLabel(secret: Buffer, label: string, length: number): Buffer {
  const full = Buffer.from(`tls13 ${label}`);
  const info = Buffer.concat([Buffer.from([0, length, full.length]), full, Buffer.from([0])]);
  return hmac(secret, Buffer.concat([info, Buffer.from([1])])).subarray(0, length);
}
interface Keys {
  key: Buffer;
  iv: Buffer;
  hp: Buffer;
}
function initialKeys(version: number, dcid: Buffer, server: boolean): Keys {
  const secret = expandLabel(hmac(SALT[version], dcid), server ? 'server in' : 'client in', 32);
  const p = version === V2 ? 'quicv2' : 'quic';
  return { key: expandLabel(secret, `${p} key`, 16), iv: expandLabel(secret, `${p} iv`, 12), hp: expandLabel(secret, `${p} hp`, 16) };
}
const LONG_TYPE = { initial: { [V1]: 0, [V2]: 1 }, handshake: { [V1]: 2, [V2]: 3 } } as const;
interface SealOptions {
  version?: number;
  dcid?: Buffer;
  /** DCID whose keys protect the packet (default `dcid`): differs after the server picked its own ID. */
  keysDcid?: Buffer;
  server?: boolean;
  pn: number;
  pnLen?: number;
  type?: 'initial' | 'handshake';
}
function varint2(n: number): Buffer {
  return Buffer.from([0x40 | (n >> 8), n & 0xff]);
}
/** A protected long-header packet carrying `payload` (frames), padded with PADDING so the sample fits. */
function seal(payload: Buffer, o: SealOptions): Buffer {
  const version = o.version ?? V1;
  const dcid = o.dcid ?? RFC_DCID;
  const pnLen = o.pnLen ?? 4;
  const type = o.type ?? 'initial';
  if (payload.length < 20) payload = Buffer.concat([payload, Buffer.alloc(20 - payload.length)]);
  const keys = initialKeys(version, o.keysDcid ?? dcid, o.server ?? false);
  const pnBytes = Buffer.alloc(pnLen);
  for (let i = 0; i < pnLen; i++) pnBytes[pnLen - 1 - i] = (o.pn >>> (8 * i)) & 0xff;
  const version4 = Buffer.alloc(4);
  version4.writeUInt32BE(version);
  const header = Buffer.concat([
    Buffer.from([0xc0 | (LONG_TYPE[type][version as typeof V1] << 4) | (pnLen - 1)]), // form, fixed, type, PN length
    version4,
    Buffer.from([dcid.length]),
    dcid,
    Buffer.from([0]), // SCID length
    type === 'initial' ? Buffer.from([0]) : Buffer.alloc(0), // token length
    varint2(pnLen + payload.length + 16), // Length
    pnBytes,
  ]);
  const nonce = Buffer.from(keys.iv);
  for (let i = 0; i < 6; i++) nonce[11 - i] ^= Math.floor(o.pn / 2 ** (8 * i)) & 0xff;
  const gcm = createCipheriv('aes-128-gcm', keys.key, nonce);
  gcm.setAAD(header);
  const packet = Buffer.concat([header, gcm.update(payload), gcm.final(), gcm.getAuthTag()]);
  const pnOffset = header.length - pnLen;
  const ecb = createCipheriv('aes-128-ecb', keys.hp, null).setAutoPadding(false);
  const mask = ecb.update(packet.subarray(pnOffset + 4, pnOffset + 20));
  packet[0] ^= mask[0] & 0x0f;
  for (let i = 0; i < pnLen; i++) packet[pnOffset + i] ^= mask[1 + i];
  return packet;
}
/** CRYPTO frame: type 06, offset and length as 4-byte varints (0x80 prefix), then the data. */
function crypto(offset: number, data: Buffer): Buffer {
  const v4 = (n: number): Buffer => Buffer.from([0x80 | (n >>> 24), (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([0x06]), v4(offset), v4(data.length), data]);
}

// ---- Captures: UDP payloads of a classic pcap (Ethernet, IPv4 or IPv6 without extension headers) ----
interface Datagram {
  frame: number;
  srcPort: number;
  payload: Buffer;
}
function udpDatagrams(file: string): Datagram[] {
  const out: Datagram[] = [];
  const { records } = readClassicPcap(path.join(FIXTURES, 'pcaps', file));
  for (let frame = 1; frame <= records.length; frame++) {
    const f = (records[frame - 1] as PcapRecord).frame;
    const ethertype = f.readUInt16BE(12);
    let l4 = -1;
    if (ethertype === 0x0800 && f[14 + 9] === 17) l4 = 14 + (f[14] & 0x0f) * 4;
    if (ethertype === 0x86dd && f[14 + 6] === 17) l4 = 14 + 40;
    if (l4 < 0) continue;
    out.push({ frame, srcPort: f.readUInt16BE(l4), payload: f.subarray(l4 + 8, l4 + f.readUInt16BE(l4 + 4)) });
  }
  return out;
}

/** Minimal ClientHello walk to the server_name extension's host name (RFC 8446 §4.1.2, RFC 6066 §3). */
function sniOf(msg: Uint8Array | null): string {
  if (!msg) return '';
  const b = Buffer.from(msg);
  let p = 4 + 2 + 32; // header, legacy_version, random
  p += 1 + b[p]; // session id
  p += 2 + b.readUInt16BE(p); // cipher suites
  p += 1 + b[p]; // compression methods
  const end = p + 2 + b.readUInt16BE(p);
  for (p += 2; p + 4 <= end; p += 4 + b.readUInt16BE(p + 2)) {
    if (b.readUInt16BE(p) === 0) return b.subarray(p + 9, p + 9 + b.readUInt16BE(p + 7)).toString('latin1');
  }
  return '';
}
const randomOf = (msg: Uint8Array | null): string => toHex(msg ? msg.subarray(6, 38) : null);

describe('QuicInitialReader (native/app/quic.h)', () => {
  describe('RFC 9001 Appendix A (QUIC v1)', () => {
    it('A.2: the client Initial decrypts to the ClientHello of the CRYPTO frame', () => {
      const r = parse([RFC9001_CLIENT]);
      expect(r.status).to.equal('quic_ok');
      expect(r.version).to.equal(V1);
      expect(r.handshakeType).to.equal(1);
      expect(r.handshakeLength).to.equal(RFC_CLIENT_HELLO.length);
      expect(toHex(r.handshake)).to.equal(RFC_CLIENT_HELLO.toString('hex'));
      expect(toHex(r.odcid)).to.equal(RFC_DCID.toString('hex'));
      expect(r.looksLikeInitial).to.deep.equal([true]);
    });

    it('A.3: the server Initial decrypts with the server keys of the client DCID to the ServerHello', () => {
      const r = parse([RFC9001_SERVER], true, RFC_DCID);
      expect(r.status).to.equal('quic_ok');
      expect(r.version).to.equal(V1);
      expect(r.handshakeType).to.equal(2);
      expect(toHex(r.handshake)).to.equal(RFC_SERVER_HELLO.toString('hex'));
    });

    it('A.3 without the client DCID, or with another one, fails to decrypt', () => {
      expect(parse([RFC9001_SERVER], true).status).to.equal('quic_decrypt_failed');
      expect(parse([RFC9001_SERVER], true, hex('8394c8f03e515709')).status).to.equal('quic_decrypt_failed');
      // the client keys do not open the server's packet
      expect(parse([RFC9001_SERVER], false).status).to.equal('quic_decrypt_failed');
    });

    it('the node:crypto sealer used below reproduces the A.2 packet byte for byte', () => {
      const payload = Buffer.concat([Buffer.from([0x06, 0x00, 0x40, 0xf1]), RFC_CLIENT_HELLO]);
      const padded = Buffer.concat([payload, Buffer.alloc(1162 - payload.length)]);
      expect(seal(padded, { pn: 2 }).toString('hex')).to.equal(RFC9001_CLIENT.toString('hex'));
    });
  });

  describe('RFC 9369 Appendix A (QUIC v2)', () => {
    it('A.2: the client Initial decrypts with the v2 salt and labels to the same ClientHello', () => {
      const r = parse([RFC9369_CLIENT]);
      expect(r.status).to.equal('quic_ok');
      expect(r.version).to.equal(V2);
      expect(toHex(r.handshake)).to.equal(RFC_CLIENT_HELLO.toString('hex'));
      expect(r.looksLikeInitial).to.deep.equal([true]);
    });

    it('A.3: the server Initial decrypts to the same ServerHello', () => {
      const r = parse([RFC9369_SERVER], true, RFC_DCID);
      expect(r.status).to.equal('quic_ok');
      expect(r.version).to.equal(V2);
      expect(toHex(r.handshake)).to.equal(RFC_SERVER_HELLO.toString('hex'));
    });

    it('the v2 sealer reproduces the A.2 packet byte for byte', () => {
      const payload = Buffer.concat([Buffer.from([0x06, 0x00, 0x40, 0xf1]), RFC_CLIENT_HELLO]);
      const padded = Buffer.concat([payload, Buffer.alloc(1162 - payload.length)]);
      expect(seal(padded, { pn: 2, version: V2 }).toString('hex')).to.equal(RFC9369_CLIENT.toString('hex'));
    });
  });

  describe('packets it must refuse', () => {
    it('a corrupted tag or ciphertext byte -> quic_decrypt_failed', () => {
      const tag = Buffer.from(RFC9001_CLIENT);
      tag[tag.length - 1] ^= 0x01;
      expect(parse([tag]).status).to.equal('quic_decrypt_failed');
      const body = Buffer.from(RFC9001_CLIENT);
      body[600] ^= 0x80;
      expect(parse([body]).status).to.equal('quic_decrypt_failed');
      const aad = Buffer.from(RFC9001_CLIENT);
      aad[0] ^= 0x08; // a reserved bit of the first byte: protected, and part of the AAD
      expect(parse([aad]).status).to.equal('quic_decrypt_failed');
    });

    it('short header, Handshake, 0-RTT, Retry, version negotiation and unknown versions -> quic_not_initial', () => {
      const handshake = seal(crypto(0, RFC_CLIENT_HELLO), { pn: 0, type: 'handshake' });
      const cases: [string, Buffer][] = [
        ['short header (1-RTT)', hex('40 8394c8f03e515708 00112233 445566778899aabbccddeeff00112233')],
        ['Handshake (v1 type 2)', handshake],
        ['0-RTT (v1 type 1)', Buffer.concat([Buffer.from([0xd0]), RFC9001_CLIENT.subarray(1)])],
        ['Retry (v1 type 3)', hex('f0 00000001 00 08 f067a5502a4262b5 746f6b656e 04a265ba2eff4d829058fb3f0f2496ba')],
        ['version negotiation', hex('80 00000000 08 8394c8f03e515708 00 00000001 6b3343cf')],
        ['draft-29', Buffer.concat([RFC9001_CLIENT.subarray(0, 1), hex('ff00001d'), RFC9001_CLIENT.subarray(5)])],
        ['empty datagram', Buffer.alloc(0)],
      ];
      for (const [name, d] of cases) {
        const r = parse([d]);
        expect(r.status, name).to.equal('quic_not_initial');
        expect(r.looksLikeInitial, name).to.deep.equal([false]);
      }
      // v2 swapped the type encoding: the v1 Initial type bits (00) are a Retry in v2
      const v2AsRetry = Buffer.concat([Buffer.from([0xc0]), RFC9369_CLIENT.subarray(1)]);
      expect(parse([v2AsRetry]).status).to.equal('quic_not_initial');
    });

    it('header fields out of bounds -> quic_bad_header', () => {
      const cases: [string, Buffer][] = [
        ['DCID length 21', Buffer.concat([hex('c0 00000001 15'), Buffer.alloc(30)])],
        ['SCID length 21', Buffer.concat([hex('c0 00000001 00 15'), Buffer.alloc(21)])],
        ['Length past the datagram', Buffer.concat([hex('c0 00000001 00 00 00 4400'), Buffer.alloc(100)])],
        ['token past the datagram', Buffer.concat([hex('c0 00000001 00 00 44ff'), Buffer.alloc(100)])],
        ['no header-protection sample', hex('c0 00000001 00 00 00 10 00112233445566778899aabbccddeeff')],
      ];
      for (const [name, d] of cases) expect(parse([d]).status, name).to.equal('quic_bad_header');
    });

    it('every prefix of the A.2 / A.3 / RFC 9369 A.2 packets gives a status, never a handshake', () => {
      const packets: [Buffer, boolean][] = [
        [RFC9001_CLIENT, false],
        [RFC9001_SERVER, true],
        [RFC9369_CLIENT, false],
      ];
      for (const [packet, fromServer] of packets) {
        for (let n = 0; n < packet.length; n++) {
          const r = parse([packet.subarray(0, n)], fromServer, RFC_DCID);
          expect(STATUSES, `prefix ${n}`).to.include(r.status);
          expect(r.status, `prefix ${n}`).to.not.equal('quic_ok');
          expect(r.handshake).to.equal(null);
        }
        expect(parse([packet], fromServer, RFC_DCID).status).to.equal('quic_ok');
      }
    });
  });

  describe('CRYPTO reassembly and frames (Initials sealed with node:crypto)', () => {
    const ch = RFC_CLIENT_HELLO;

    it('collects out-of-order CRYPTO frames across three datagrams, among PING, ACK and PADDING', () => {
      const ackWithRanges = hex('03 0a 00 02 01 00 00 01 02 01 02 03'); // ACK_ECN: largest 10, delay 0, 2 ranges, ECN
      const d1 = seal(Buffer.concat([hex('01'), crypto(200, ch.subarray(200)), hex('0000'), ackWithRanges]), { pn: 0 });
      const d2 = seal(Buffer.concat([crypto(0, ch.subarray(0, 3)), hex('01')]), { pn: 1 });
      const d3 = seal(Buffer.concat([crypto(100, ch.subarray(100, 200)), crypto(3, ch.subarray(3, 100))]), { pn: 2 });
      const r = parse([d1, d2, d3]);
      expect(r.statuses).to.deep.equal(['quic_need_more', 'quic_need_more', 'quic_ok']);
      expect(toHex(r.handshake)).to.equal(ch.toString('hex'));
      // later datagrams change nothing
      expect(parse([d1, d2, d3, d1]).statuses[3]).to.equal('quic_ok');
    });

    it('overlapping and repeated CRYPTO ranges are placed by offset', () => {
      const d = seal(Buffer.concat([crypto(50, ch.subarray(50)), crypto(0, ch.subarray(0, 60)), crypto(0, ch.subarray(0, 10))]), { pn: 0 });
      expect(toHex(parse([d]).handshake)).to.equal(ch.toString('hex'));
    });

    it('reads every Initial of a coalesced datagram and skips the other packets by their Length', () => {
      const first = seal(crypto(0, ch.subarray(0, 120)), { pn: 0 });
      const handshake = seal(hex('01'), { pn: 0, type: 'handshake' });
      const second = seal(crypto(120, ch.subarray(120)), { pn: 1 });
      const r = parse([Buffer.concat([first, handshake, second, Buffer.alloc(40)])]); // zero padding after the packets
      expect(r.status).to.equal('quic_ok');
      expect(toHex(r.handshake)).to.equal(ch.toString('hex'));
      // a Handshake packet first, then the Initial
      expect(parse([Buffer.concat([handshake, seal(crypto(0, ch), { pn: 0 })])]).status).to.equal('quic_ok');
    });

    it('recovers a full packet number from a 1-byte encoding (the nonce needs it)', () => {
      const a = seal(crypto(0, ch.subarray(0, 10)), { pn: 0x1ff, pnLen: 2 });
      const b = seal(crypto(10, ch.subarray(10)), { pn: 0x200, pnLen: 1 }); // sent as 00: expected 0x200, not 0
      expect(parse([a, b]).statuses).to.deep.equal(['quic_need_more', 'quic_ok']);
    });

    it('keeps the client keys of the original DCID when the client switches to the server-chosen DCID', () => {
      const a = seal(crypto(0, ch.subarray(0, 10)), { pn: 0 });
      const b = seal(crypto(10, ch.subarray(10)), { pn: 1, dcid: hex('aabbccdd'), keysDcid: RFC_DCID });
      const r = parse([a, b]);
      expect(r.status).to.equal('quic_ok');
      expect(toHex(r.odcid)).to.equal(RFC_DCID.toString('hex'));
    });

    it('after a Retry, takes the keys of the new DCID (RFC 9001 §5.2)', () => {
      const retryScid = hex('f067a5502a4262b5');
      const a = seal(crypto(0, ch.subarray(0, 10)), { pn: 0 });
      const b = seal(crypto(10, ch.subarray(10)), { pn: 1, dcid: retryScid });
      const r = parse([a, b]);
      expect(r.status).to.equal('quic_ok');
      expect(toHex(r.odcid)).to.equal(retryScid.toString('hex'));
    });

    it('CONNECTION_CLOSE parses; a frame not allowed in Initials (STREAM) -> quic_bad_frame', () => {
      const close = hex('1c 0a 06 05 68656c6c6f'); // error 10, frame type 6, reason "hello"
      expect(parse([seal(Buffer.concat([close, crypto(0, ch)]), { pn: 0 })]).status).to.equal('quic_ok');
      expect(parse([seal(Buffer.concat([hex('08 00 01 ff')]), { pn: 0 })]).status).to.equal('quic_bad_frame');
      expect(parse([seal(hex('06 00 40ff 0102'), { pn: 0 })]).status).to.equal('quic_bad_frame'); // CRYPTO length past the payload
      expect(parse([seal(hex('02 00 00 7fff 00'), { pn: 0 })]).status).to.equal('quic_bad_frame'); // ACK range count past the payload
    });

    it('a handshake message longer than kMaxCrypto (16384) -> quic_too_large, sticky', () => {
      const big = seal(crypto(0, hex('01 004000 0303')), { pn: 0 }); // body 16384 bytes: 16388 with the header
      const r = parse([big, seal(crypto(0, ch), { pn: 1 })]);
      expect(r.statuses).to.deep.equal(['quic_too_large', 'quic_too_large']);
      const fits = seal(crypto(0, hex('01 003ffc 0303')), { pn: 0 }); // exactly 16384 bytes: waits for more
      expect(parse([fits]).status).to.equal('quic_need_more');
      // data beyond the bound is dropped without harm when the message ends before it
      const beyond = seal(Buffer.concat([crypto(20000, hex('ffff')), crypto(0, ch)]), { pn: 0 });
      expect(parse([beyond]).status).to.equal('quic_ok');
    });
  });

  describe('real captures, against tshark 4.0 (which decrypts Initials itself)', () => {
    // tshark -r F -d udp.port==443,quic -Y tls.handshake -T fields -e frame.number -e quic.version
    //   -e tls.handshake.type -e tls.handshake.length -e tls.handshake.random -e tls.handshake.extensions_server_name
    it('zeek_quic_chromium_ipv6.pcap: Chromium 115 ClientHello (frame 1) and ServerHello (frame 2), QUIC v1', () => {
      const all = udpDatagrams('zeek_quic_chromium_ipv6.pcap');
      const client = parse(all.filter((d) => d.srcPort === 57538).map((d) => d.payload));
      expect(client.statuses[0]).to.equal('quic_ok'); // frame 1: one Initial, CRYPTO frames out of order
      expect(client.version).to.equal(V1);
      expect(client.handshakeType).to.equal(1);
      expect(client.handshakeLength).to.equal(296 + 4); // tls.handshake.length 296
      expect(sniOf(client.handshake)).to.equal('www.google.de'); // tls.handshake.extensions_server_name
      expect(randomOf(client.handshake)).to.equal('ff840230572e7b6c0cf7f56ad5920b28c57b0eb4670f436f5581a972c9f327bb');
      expect(toHex(client.odcid)).to.equal('5a37463b0eb7cc5d'); // quic.dcid of frame 1

      const server = parse(
        all.filter((d) => d.srcPort === 443).map((d) => d.payload),
        true,
        client.odcid ?? undefined,
      );
      expect(server.statuses[0]).to.equal('quic_ok'); // frame 2: Initial (ACK, CRYPTO) coalesced with Handshake
      expect(server.handshakeType).to.equal(2);
      expect(server.handshakeLength).to.equal(86 + 4);
      expect(randomOf(server.handshake)).to.equal('c9ec0076bac64f28dd2171d853dd9d2324a7c8bbb1c616079cd4c9e8e1934118');
    });

    it('every prefix of every captured Initial datagram gives a status', () => {
      for (const file of ['zeek_quic_chromium_ipv6.pcap']) {
        const initials = udpDatagrams(file).filter((d) => d.payload.length > 0 && (d.payload[0] & 0x80) !== 0);
        for (const d of initials.slice(0, 4)) {
          for (let n = 0; n <= d.payload.length; n++) expect(STATUSES).to.include(parse([d.payload.subarray(0, n)], false).status);
        }
      }
    });
  });
});
