/**
 * Community ID v1 (native/app/community_id.cpp) through the test-only `_communityId` export, against the test vectors
 * of the specification (corelight/community-id-spec, the three tables of baseline/README.md: seed 0, seed 1, and the
 * hex digest without base64). Every flow of every fixture capture is also compared with tshark's own Community ID in
 * test/native/app-parity.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';
import { FIXTURES } from '../../helpers/setup.js';

const addon = loadBinding();

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
