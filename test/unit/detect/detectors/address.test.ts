/**
 * src/detect/detectors/address.ts: the per-batch address tests and the compact detector keys, against the rules on
 * address text they replace (random IPv4, IPv4-mapped and IPv6 addresses, column batches and plain-record batches).
 */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import {
  addressesOfPairKey,
  addressKey,
  addressOfKey,
  addressOfRef,
  addressPairKey,
  addressRef,
  isGroupAddress,
  isGroupAddressAt,
  ipv4At,
  ipv4OfText,
  isPrivateAt,
  isUnspecifiedIpv4At,
} from '../../../../src/detect/detectors/address.js';
import { flowColumns, type FlowColumns } from '../../../../src/native/flow-batch.js';
import { formatAddress } from '../../../../src/net/address.js';
import { isPrivate } from '../../../../src/net/classify.js';
import type { TableKey } from '../../../../src/detect/lru-map.js';
import { makeFlow } from '../flow-factory.js';

const rnd = seededRandom(12345);

/** A random 16-byte address: mostly IPv4-mapped from a small pool (repeats), some IPv6, some special ones. */
function randomAddress(): number[] {
  const b = new Array<number>(16).fill(0);
  const kind = rnd(10);
  if (kind < 6) {
    b[10] = 0xff;
    b[11] = 0xff;
    const specials = [
      [0, 0, 0, 0],
      [224, 0, 0, 251],
      [10, 0, 0, 255],
      [255, 255, 255, 255],
      [239, 1, 2, 3],
    ];
    const v4 = rnd(5) === 0 ? (specials[rnd(specials.length)] as number[]) : [rnd(3) === 0 ? 10 : 200 + rnd(40), rnd(2), rnd(3), rnd(4) * 85];
    b.splice(12, 4, ...v4);
  } else if (kind < 9) {
    b[0] = rnd(2) === 0 ? 0xfe : 0xff;
    b[1] = rnd(2) === 0 ? 0x80 : 0x02;
    b[15] = rnd(4);
    b[7] = rnd(2);
  } else {
    b[15] = rnd(2); // :: and ::1
  }
  return b;
}

/** A key's identity as text (what a table compares: the string, or the two numbers as Map keys compare them). */
const identity = (k: Readonly<TableKey>): string => (k.text !== null ? `text ${k.text}` : `numbers ${k.a} ${k.b}`);

/** A hand-built column batch (only the addresses matter here). */
function columnBatch(addresses: number[][]): FlowColumns {
  const n = addresses.length / 2;
  const addrs = Uint8Array.from(addresses.flat());
  const addrWords = new Uint32Array(addrs.buffer);
  return { n, cols: new Float64Array(0), addrs, addrWords, ip: (k) => formatAddress(addrs, k * 16), firstSeenMs: () => 0, lastSeenMs: () => 0 };
}

describe('detect/detectors/address', () => {
  const addresses = Array.from({ length: 600 }, randomAddress);
  const c = columnBatch(addresses);
  const texts = Array.from({ length: 2 * c.n }, (_, k) => c.ip(k));

  it('isGroupAddressAt() / isUnspecifiedIpv4At() answer as the rules on the address text do', () => {
    let group = 0;
    for (let k = 0; k < 2 * c.n; k++) {
      expect(isGroupAddressAt(c, k), texts[k]).to.equal(isGroupAddress(texts[k] as string));
      expect(isUnspecifiedIpv4At(c, k), texts[k]).to.equal(texts[k] === '0.0.0.0');
      if (isGroupAddressAt(c, k)) group++;
    }
    expect(group).to.be.above(20);
  });

  it('ipv4At() is the value of a dotted quad (ipv4OfText() of the text), -1 for any other address', () => {
    let v4 = 0;
    for (let k = 0; k < 2 * c.n; k++) {
      expect(ipv4At(c, k), texts[k]).to.equal(ipv4OfText(texts[k] as string));
      if (ipv4At(c, k) >= 0) v4++;
    }
    expect(v4).to.be.within(50, 2 * c.n - 50);
  });

  it('isPrivateAt() answers as isPrivate() on the text, IPv6 from the bytes (first words at the edges of the rule)', () => {
    const words = [0, 1, 0xf, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0xfbf, 0xfc0, 0xfdf, 0xfe0, 0xfe7, 0xfe8, 0xfeb, 0xfec, 0xfbff, 0xfc00, 0xfdff, 0xfe00];
    const edge = [...words, 0xfe7f, 0xfe80, 0xfebf, 0xfec0, 0xffff].flatMap((w) => [
      [w >> 8, w & 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
      [w >> 8, w & 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [w >> 8, w & 255, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ]);
    const all = [...addresses, ...edge, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]];
    const b = columnBatch(all.length % 2 === 0 ? all : [...all, all[0] as number[]]);
    let yes = 0;
    for (let k = 0; k < 2 * b.n; k++) {
      const text = b.ip(k);
      expect(isPrivateAt(b, k), text).to.equal(isPrivate(text));
      if (isPrivateAt(b, k) && text.includes(':')) yes++;
    }
    expect(yes).to.be.above(20);
    // Plain records: addresses that are not dotted quads are judged on their text, whatever its form.
    const odd = ['FD00::1', 'fe80::1%eth0', '::1', '::', '::ffff:10.0.0.1', '2001:db8::1', 'not an address'];
    const p = flowColumns(odd.map((t) => makeFlow({ srcIp: t, dstIp: '10.0.0.1' })));
    odd.forEach((t, i) => expect(isPrivateAt(p, i), t).to.equal(isPrivate(t)));
  });

  it('addressKey() / addressPairKey(): equal exactly when the texts and numbers are, and give the texts back', () => {
    const single = new Map<string, string>();
    const pair = new Map<string, string>();
    for (let i = 0; i < c.n; i++) {
      const a = [0, 1, 2, 65535][rnd(4)] as number;
      const b = [0, 6, 17, 65535][rnd(4)] as number;
      const src = texts[i] as string;
      const dst = texts[c.n + i] as string;
      const key1 = addressKey(c, i, a);
      expect(addressOfKey(key1)).to.equal(src);
      const k1 = identity(key1);
      const key2 = addressPairKey(c, i, c.n + i, a, b);
      expect(addressesOfPairKey(key2)).to.deep.equal([src, dst]);
      const k2 = identity(key2);
      // One key per distinct (text, numbers), and the reverse.
      const t1 = JSON.stringify([src, a]);
      const t2 = JSON.stringify([src, dst, a, b]);
      expect(single.get(k1) ?? t1).to.equal(t1);
      expect(pair.get(k2) ?? t2).to.equal(t2);
      single.set(k1, t1);
      pair.set(k2, t2);
    }
    expect(new Set(single.values()).size).to.equal(single.size);
    expect(new Set(pair.values()).size).to.equal(pair.size);
    expect(single.size).to.be.below(c.n); // the pool repeats addresses
  });

  it('keys and refs of IPv6 addresses remembered by their bytes are those of their texts, batch after batch', () => {
    // More distinct addresses and (pair, numbers) than the memos have slots, in batches that repeat them at other
    // positions: every key is the text built from the addresses' texts (a memo that mixed up two entries would give
    // another one's text).
    const pool = Array.from({ length: 6000 }, (_, i) => [0x20, 0x01, 0x0d, 0xb8, 0, rnd(3), 0, 0, 0, 0, 0, 0, (i >> 8) & 255, i & 255, 0, rnd(2)]);
    const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7];
    let checked = 0;
    for (let batch = 0; batch < 4; batch++) {
      const list = Array.from({ length: 6000 }, (_, k) => (k % 97 === 0 && k < 3000 ? mapped : (pool[rnd(batch === 0 ? 300 : pool.length)] as number[])));
      const b = columnBatch(list);
      for (let i = 0; i < b.n; i++) {
        const [src, dst] = [b.ip(i), b.ip(b.n + i)];
        const a = [0, 53, 443, 65535, 70000][rnd(5)] as number;
        const p = [6, 17, 58][rnd(3)] as number;
        expect(addressOfRef(addressRef(b, i))).to.equal(src);
        expect(addressRef(b, b.n + i)).to.equal(dst);
        expect(addressKey(b, b.n + i, a).text).to.equal(`\u0002${dst}\u0000${String.fromCharCode(a)}`);
        expect(addressOfKey(addressKey(b, b.n + i, a))).to.equal(dst);
        const pair = addressPairKey(b, i, b.n + i, a, p);
        expect(pair.text).to.equal(`\u0002${src}\u0000${dst}\u0000${String.fromCharCode(a, p)}`);
        expect(addressesOfPairKey(pair)).to.deep.equal([src, dst]);
        checked++;
      }
    }
    expect(checked).to.equal(12000);
    // One address pair under thousands of numbers (twice): entries that share the addresses and fill the same slots.
    const one = columnBatch([pool[1] as number[], pool[2] as number[]]);
    const [src, dst] = [one.ip(0), one.ip(1)];
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < 8192; a++) {
        expect(addressKey(one, 1, a).text).to.equal(`\u0002${dst}\u0000${String.fromCharCode(a)}`);
        expect(addressPairKey(one, 0, 1, a, 6).text).to.equal(`\u0002${src}\u0000${dst}\u0000${String.fromCharCode(a, 6)}`);
        expect(addressPairKey(one, 0, 1, 6, a).text).to.equal(`\u0002${src}\u0000${dst}\u0000${String.fromCharCode(6, a)}`);
      }
    }
  });

  it('a batch of plain records keys its addresses as the column batch with the same texts does', () => {
    const flows = Array.from({ length: c.n }, (_, i) => makeFlow({ srcIp: texts[i], dstIp: texts[c.n + i] }));
    const p = flowColumns(flows);
    for (let i = 0; i < c.n; i++) {
      expect(identity(addressPairKey(p, i, p.n + i, 80, 6))).to.equal(identity(addressPairKey(c, i, c.n + i, 80, 6)));
      expect(identity(addressKey(p, p.n + i, 17))).to.equal(identity(addressKey(c, c.n + i, 17)));
      expect(addressRef(p, p.n + i)).to.equal(addressRef(c, c.n + i));
      expect(isGroupAddressAt(p, p.n + i)).to.equal(isGroupAddressAt(c, c.n + i));
    }
    // Text that is not a canonical dotted quad keeps its own identity.
    const odd = flowColumns([makeFlow({ srcIp: '010.0.0.1', dstIp: '10.0.0.1' })]);
    expect(identity(addressKey(odd, 0))).to.not.equal(identity(addressKey(odd, 1)));
    expect(addressOfKey(addressKey(odd, 0))).to.equal('010.0.0.1');
    expect(addressRef(odd, 0)).to.equal('010.0.0.1');
  });

  it('keys of look-alike addresses and numbers differ: IPv4 vs IPv6, port 0, swapped ports or addresses', () => {
    const flows = flowColumns([
      makeFlow({ srcIp: '0.0.0.0', dstIp: '::' }),
      makeFlow({ srcIp: '0.0.0.1', dstIp: '::1' }),
      makeFlow({ srcIp: '255.255.255.255', dstIp: '::ffff:255.255.255.255' }),
      makeFlow({ srcIp: '10.0.0.1', dstIp: '10.0.0.2' }),
    ]);
    const { n } = flows;
    const keys = new Set<string>();
    const add = (k: Readonly<TableKey>): void => {
      const id = identity(k);
      expect(keys.has(id), id).to.equal(false);
      keys.add(id);
    };
    for (let i = 0; i < n; i++) {
      for (const k of [i, n + i]) {
        for (const port of [0, 1, 256, 65535]) add(addressKey(flows, k, port));
      }
    }
    for (const [a, b] of [
      [0, 0],
      [0, 6],
      [6, 0],
      [80, 6],
      [6, 80],
      [65535, 65535],
    ] as const) {
      add(addressPairKey(flows, 3, n + 3, a, b));
      add(addressPairKey(flows, n + 3, 3, a, b));
      add(addressPairKey(flows, 0, n + 0, a, b)); // 0.0.0.0 and ::
      add(addressPairKey(flows, 0, 1, a, b)); // 0.0.0.0 and 0.0.0.1
    }
    // Numbers are taken modulo 65536 (as the string keys always did), the default is 0.
    expect(identity(addressKey(flows, 3, 70000))).to.equal(identity(addressKey(flows, 3, 4464)));
    expect(identity(addressKey(flows, n + 1, 70000))).to.equal(identity(addressKey(flows, n + 1, 4464)));
    expect(identity(addressKey(flows, 3))).to.equal(identity(addressKey(flows, 3, 0)));
    // Refs: IPv4 as a signed 32-bit integer (no allocation), anything else as its text; back to the text.
    expect([0, 1, 2, 3].map((i) => addressRef(flows, i))).to.deep.equal([0, 1, -1, 0x0a000001]);
    expect([0, 1, 2].map((i) => addressRef(flows, n + i))).to.deep.equal(['::', '::1', '::ffff:255.255.255.255']);
    for (let k = 0; k < 2 * n; k++) expect(addressOfRef(addressRef(flows, k))).to.equal(flows.ip(k));
  });
});
