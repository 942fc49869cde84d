/**
 * Community ID v1 (native/app/community_id.cpp) through the test-only `_communityId` export, against every vector of
 * corelight/community-id-spec (commit b1fe530, BSD-3-Clause, copied into test/fixtures/community-id/ with its
 * COPYING): the three tables of baseline/README.md (seed 0, seed 1, and the hex digest without base64), the JSON
 * baselines baseline/baseline_{deflt,seed1,nob64}.json, and the spec's pcaps/combined.pcap.gz decoded by the real
 * decoder (`_decodePacket`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';
import { FIXTURES } from '../../helpers/setup.js';

const addon = loadBinding();
const DIR = path.join(FIXTURES, 'community-id');

/** The hex form of an ID ("1:" + hex SHA-1), derived from the base64 one, for the spec's no-base64 vectors. */
const toHex = (id: string): string => `1:${Buffer.from(id.slice(2), 'base64').toString('hex')}`;

// baseline/README.md tables: the tuples as packets carry them (ICMP ports = type and code), with the Community ID for
// seed 0, for seed 1, and seed 0 without base64.
const TABLE: { tuple: Binding.CommunityIdTuple; seed0: string; seed1: string; hex: string }[] = [
  {
    tuple: { protocol: 6, src: '1.2.3.4', dst: '5.6.7.8', srcPort: 1122, dstPort: 3344 },
    seed0: '1:wCb3OG7yAFWelaUydu0D+125CLM=',
    seed1: '1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=',
    hex: '1:c026f7386ef200559e95a53276ed03fb5db908b3',
  },
  {
    tuple: { protocol: 6, src: '5.6.7.8', dst: '1.2.3.4', srcPort: 3344, dstPort: 1122 },
    seed0: '1:wCb3OG7yAFWelaUydu0D+125CLM=',
    seed1: '1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=',
    hex: '1:c026f7386ef200559e95a53276ed03fb5db908b3',
  },
  {
    tuple: { protocol: 17, src: '1.2.3.4', dst: '5.6.7.8', srcPort: 1122, dstPort: 3344 },
    seed0: '1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=',
    seed1: '1:OShq+iKDAMVouh/4bMxB9Sz4amw=',
    hex: '1:d0cbbd227431eb3e1988264cffb1d78b658c84e8',
  },
  {
    tuple: { protocol: 17, src: '5.6.7.8', dst: '1.2.3.4', srcPort: 3344, dstPort: 1122 },
    seed0: '1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=',
    seed1: '1:OShq+iKDAMVouh/4bMxB9Sz4amw=',
    hex: '1:d0cbbd227431eb3e1988264cffb1d78b658c84e8',
  },
  {
    tuple: { protocol: 132, src: '1.2.3.4', dst: '5.6.7.8', srcPort: 1122, dstPort: 3344 },
    seed0: '1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=',
    seed1: '1:uitchpn5MMGAQKBJh7bIr/bAr7s=',
    hex: '1:10ab7832cc6ec9a13a98bfa19ab12443d72c0c3f',
  },
  {
    tuple: { protocol: 132, src: '5.6.7.8', dst: '1.2.3.4', srcPort: 3344, dstPort: 1122 },
    seed0: '1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=',
    seed1: '1:uitchpn5MMGAQKBJh7bIr/bAr7s=',
    hex: '1:10ab7832cc6ec9a13a98bfa19ab12443d72c0c3f',
  },
  {
    tuple: { protocol: 1, src: '1.2.3.4', dst: '5.6.7.8', srcPort: 8, dstPort: 0 },
    seed0: '1:crodRHL2FEsHjbv3UkRrfbs4bZ0=',
    seed1: '1:9pr4ZGTICiuZoIh90RRYE2RyXpU=',
    hex: '1:72ba1d4472f6144b078dbbf752446b7dbb386d9d',
  },
  {
    tuple: { protocol: 1, src: '5.6.7.8', dst: '1.2.3.4', srcPort: 0, dstPort: 0 },
    seed0: '1:crodRHL2FEsHjbv3UkRrfbs4bZ0=',
    seed1: '1:9pr4ZGTICiuZoIh90RRYE2RyXpU=',
    hex: '1:72ba1d4472f6144b078dbbf752446b7dbb386d9d',
  },
  {
    tuple: { protocol: 1, src: '1.2.3.4', dst: '5.6.7.8', srcPort: 11, dstPort: 0 },
    seed0: '1:f/YiSyWqczrTgfUCZlBUnvHRcPk=',
    seed1: '1:1DD7cWGC/Yg91YGsQeni8du3pIA=',
    hex: '1:7ff6224b25aa733ad381f5026650549ef1d170f9',
  },
  {
    tuple: { protocol: 58, src: 'fe80:0001:0203:0405:0607:0809:0A0B:0C0D', dst: 'fe80:1011:1213:1415:1617:1819:1A1B:1C1D', srcPort: 128, dstPort: 0 },
    seed0: '1:0bf7hyMJUwt3fMED7z8LIfRpBeo=',
    seed1: '1:IO27GQzPuCtNnwFvjWALMHu5tJE=',
    hex: '1:d1b7fb872309530b777cc103ef3f0b21f46905ea',
  },
  {
    tuple: { protocol: 58, src: 'fe80:1011:1213:1415:1617:1819:1A1B:1C1D', dst: 'fe80:0001:0203:0405:0607:0809:0A0B:0C0D', srcPort: 129, dstPort: 0 },
    seed0: '1:0bf7hyMJUwt3fMED7z8LIfRpBeo=',
    seed1: '1:IO27GQzPuCtNnwFvjWALMHu5tJE=',
    hex: '1:d1b7fb872309530b777cc103ef3f0b21f46905ea',
  },
  {
    tuple: { protocol: 58, src: 'fe80:0001:0203:0405:0607:0809:0A0B:0C0D', dst: 'fe80:1011:1213:1415:1617:1819:1A1B:1C1D', srcPort: 146, dstPort: 0 },
    seed0: '1:fYC8+pz24E+EhANP1EZhpX0Dw10=',
    seed1: '1:Cv4IKJe56BNkF0MBW2YxQ3Nwc3s=',
    hex: '1:7d80bcfa9cf6e04f8484034fd44661a57d03c35d',
  },
  {
    tuple: { protocol: 46, src: '1.2.3.4', dst: '5.6.7.8' },
    seed0: '1:ikv3kmf89luf73WPz1jOs49S768=',
    seed1: '1:/buhqeOmaRCopOZFy9HnoJd5XW8=',
    hex: '1:8a4bf79267fcf65b9fef758fcf58ceb38f52efaf',
  },
  {
    tuple: { protocol: 46, src: '5.6.7.8', dst: '1.2.3.4' },
    seed0: '1:ikv3kmf89luf73WPz1jOs49S768=',
    seed1: '1:/buhqeOmaRCopOZFy9HnoJd5XW8=',
    hex: '1:8a4bf79267fcf65b9fef758fcf58ceb38f52efaf',
  },
  {
    tuple: { protocol: 46, src: 'fe80:0001:0203:0405:0607:0809:0A0B:0C0D', dst: 'fe80:1011:1213:1415:1617:1819:1A1B:1C1D' },
    seed0: '1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=',
    seed1: '1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=',
    hex: '1:c10ff69b0ae75cfe259897077462f978f8d1f9ed',
  },
  {
    tuple: { protocol: 46, src: 'fe80:1011:1213:1415:1617:1819:1A1B:1C1D', dst: 'fe80:0001:0203:0405:0607:0809:0A0B:0C0D' },
    seed0: '1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=',
    seed1: '1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=',
    hex: '1:c10ff69b0ae75cfe259897077462f978f8d1f9ed',
  },
];

interface BaselineEntry {
  proto: number;
  saddr: string;
  daddr: string;
  sport: number | null;
  dport: number | null;
  communityid: string;
}
const baseline = (name: string): BaselineEntry[] => JSON.parse(readFileSync(path.join(DIR, `baseline_${name}.json`), 'utf8')) as BaselineEntry[];
const tupleOf = (e: BaselineEntry, seed: number): Binding.CommunityIdTuple => ({
  seed,
  protocol: e.proto,
  src: e.saddr,
  dst: e.daddr,
  ...(e.sport === null ? {} : { srcPort: e.sport }),
  ...(e.dport === null ? {} : { dstPort: e.dport }),
});

describe('CommunityId (native/app/community_id.cpp)', () => {
  it('gives every value of the specification README tables (seed 0, seed 1, hex digest)', () => {
    for (const row of TABLE) {
      const where = JSON.stringify(row.tuple);
      expect(addon._communityId({ ...row.tuple, seed: 0 }), where).to.equal(row.seed0);
      expect(addon._communityId({ ...row.tuple, seed: 1 }), where).to.equal(row.seed1);
      expect(toHex(addon._communityId(row.tuple)), where).to.equal(row.hex);
    }
  });

  // The JSON baselines list each packet's tuple once, with ICMP's ports already mapped by the reference
  // implementation (type, counterpart type); the mapping gives the same ports again for those, so they can be fed back.
  for (const [name, seed] of [
    ['deflt', 0],
    ['seed1', 1],
    ['nob64', 0],
  ] as const) {
    it(`gives every vector of baseline_${name}.json`, () => {
      const entries = baseline(name);
      expect(entries).to.have.length(23);
      for (const e of entries) {
        const id = addon._communityId(tupleOf(e, seed));
        expect(name === 'nob64' ? toHex(id) : id, JSON.stringify(e)).to.equal(e.communityid);
      }
    });
  }

  it("gives the baseline IDs for the spec's combined.pcap decoded by the real decoder", () => {
    const data = gunzipSync(readFileSync(path.join(DIR, 'combined.pcap.gz')));
    expect(data.readUInt32LE(0)).to.equal(0xa1b2c3d4);
    expect(data.readUInt32LE(20)).to.equal(1); // Ethernet
    const expected = new Set(baseline('deflt').map((e) => e.communityid));
    const seen = new Set<string>();
    let hashed = 0;
    for (let off = 24; off + 16 <= data.length;) {
      const caplen = data.readUInt32LE(off + 8);
      const frame = data.subarray(off + 16, off + 16 + caplen);
      off += 16 + caplen;
      const v = addon._decodePacket(1, frame);
      // Skipped: ARP (not IP), IPv4 packets with a bogus total length (decoded without ports), and SCTP, whose ports
      // the decoder does not read (the table and JSON vectors above cover SCTP).
      if (v.status !== 'ok' || v.protocol === 132) continue;
      const id = addon._communityId({ src: v.src, dst: v.dst, protocol: v.protocol, srcPort: v.srcPort, dstPort: v.dstPort });
      expect(expected.has(id), `${v.src} -> ${v.dst} proto ${v.protocol} ${v.srcPort}/${v.dstPort}: ${id}`).to.equal(true);
      seen.add(id);
      hashed++;
    }
    expect(hashed).to.equal(54); // 68 packets less 6 ARP, 3 with a bogus length, 5 SCTP
    // Every baseline flow but SCTP's was met.
    const sctp = baseline('deflt').filter((e) => e.proto === 132)[0].communityid;
    expect([...expected].filter((id) => !seen.has(id))).to.deep.equal([sctp]);
  });

  it('orders by address then port, keeps one-way ICMP in packet order, and omits ports for other protocols', () => {
    const a = { protocol: 6, src: '10.0.0.1', dst: '10.0.0.1', srcPort: 80, dstPort: 1234 };
    expect(addon._communityId(a)).to.equal(addon._communityId({ ...a, srcPort: 1234, dstPort: 80 }));
    // ICMP destination unreachable (type 3) is one-way: the reverse tuple is another flow.
    const unreach = { protocol: 1, src: '10.0.0.2', dst: '10.0.0.1', srcPort: 3, dstPort: 1 };
    expect(addon._communityId(unreach)).not.to.equal(addon._communityId({ ...unreach, src: '10.0.0.1', dst: '10.0.0.2' }));
    // An echo reply's code does not matter: it is hashed as (0, 8).
    const reply = { protocol: 1, src: '5.6.7.8', dst: '1.2.3.4', srcPort: 0, dstPort: 0 };
    expect(addon._communityId({ ...reply, dstPort: 5 })).to.equal('1:crodRHL2FEsHjbv3UkRrfbs4bZ0=');
    // GRE (47) has no ports: any given are ignored.
    const gre = { protocol: 47, src: '1.2.3.4', dst: '5.6.7.8' };
    expect(addon._communityId({ ...gre, srcPort: 1, dstPort: 2 })).to.equal(addon._communityId(gre));
  });

  it('rejects addresses of two families or that do not parse', () => {
    expect(() => addon._communityId({ protocol: 6, src: '1.2.3.4', dst: '::1' })).to.throw(TypeError);
    expect(() => addon._communityId({ protocol: 6, src: '1.2.3', dst: '1.2.3.4' })).to.throw(TypeError);
  });
});
