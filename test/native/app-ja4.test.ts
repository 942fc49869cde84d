/**
 * JA4 and JA4S end to end: every capture under test/fixtures/pcaps/ replayed through the whole capture core, each TLS
 * stream's flow carrying the fingerprints FoxIO's reference implementation (python/ja4.py, run once with tshark;
 * test/fixtures/tls/ja4-reference.json says how) printed for that stream. The specification's worked examples are
 * checked message by message in test/native/app/tls.test.ts.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { FIXTURES } from '../helpers/setup.js';

interface Reference {
  file: string;
  stream: number;
  src: string;
  dst: string;
  srcport: string;
  dstport: string;
  ja4?: string;
  ja4s?: string;
}

const { records } = JSON.parse(readFileSync(path.join(FIXTURES, 'tls', 'ja4-reference.json'), 'utf8')) as { records: Reference[] };

const endpoints = (a: string, ap: number, b: string, bp: number): string => {
  const x = `${a}|${ap}`;
  const y = `${b}|${bp}`;
  return x < y ? `${x} ${y}` : `${y} ${x}`;
};

describe("native: JA4/JA4S through the whole core equal FoxIO's reference implementation", function () {
  this.timeout(120_000);

  it('gives every TLS stream the JA4 and JA4S ja4.py prints', async () => {
    expect(records.filter((r) => r.ja4).length).to.be.at.least(25);
    expect(records.filter((r) => r.ja4s).length).to.be.at.least(10);
    expect(new Set(records.map((r) => r.ja4)).size).to.be.at.least(10); // several client stacks, TLS 1.2 and 1.3
    const mismatches: string[] = [];
    let compared = 0;
    for (const file of [...new Set(records.map((r) => r.file))]) {
      const { flows } = await replayFile(path.join(FIXTURES, 'pcaps', file));
      const byEndpoints = new Map<string, FlowRecord[]>();
      for (const f of flows) {
        if (f.protocol !== 6) continue;
        const k = endpoints(f.srcIp, f.srcPort, f.dstIp, f.dstPort);
        byEndpoints.set(k, [...(byEndpoints.get(k) ?? []), f]);
      }
      for (const r of records.filter((x) => x.file === file)) {
        const flow = (byEndpoints.get(endpoints(r.src, Number(r.srcport), r.dst, Number(r.dstport))) ?? []).find((f) => f.tls != null);
        const key = `${file} stream ${r.stream}`;
        if (flow === undefined) {
          mismatches.push(`${key}: no flow with TLS`);
          continue;
        }
        if (r.ja4 !== undefined && flow.tls!.ja4 !== r.ja4) mismatches.push(`${key}: ja4 ${flow.tls!.ja4} vs ${r.ja4}`);
        if (r.ja4s !== undefined && flow.tls!.ja4s !== r.ja4s) mismatches.push(`${key}: ja4s ${flow.tls!.ja4s} vs ${r.ja4s}`);
        compared++;
      }
    }
    expect(mismatches).to.deep.equal([]);
    expect(compared).to.equal(records.length);
  });
});
