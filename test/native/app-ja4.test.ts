/**
 * JA4 and JA4S end to end: FoxIO's published test captures (test/fixtures/pcaps/ja4/) replayed through the capture
 * core, each TCP stream's flow carrying the fingerprints FoxIO's expected outputs give (test/fixtures/tls/foxio-ja4.json,
 * which test/native/app/tls.test.ts checks message by message). tshark numbers the streams (`tcp.stream`) the way
 * FoxIO's files do, so it maps each stream to its endpoints here.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { FIXTURES } from '../helpers/setup.js';

interface Expected {
  file: string;
  stream: number;
  ja4?: string;
  ja4s?: string;
}

const expected = JSON.parse(readFileSync(path.join(FIXTURES, 'tls', 'foxio-ja4.json'), 'utf8')) as Expected[];

/** tcp.stream -> "src|sport|dst|dport" of the stream's first packet. */
function streams(file: string): Map<number, string> {
  const out = execFileSync(
    'tshark',
    [
      '-r',
      file,
      '-n',
      '-T',
      'fields',
      '-E',
      'separator=\t',
      '-E',
      'occurrence=f',
      '-e',
      'tcp.stream',
      '-e',
      'ip.src',
      '-e',
      'ipv6.src',
      '-e',
      'ip.dst',
      '-e',
      'ipv6.dst',
      '-e',
      'tcp.srcport',
      '-e',
      'tcp.dstport',
      '-Y',
      'tcp',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const map = new Map<number, string>();
  for (const line of out.split('\n')) {
    const [stream, src4, src6, dst4, dst6, sport, dport] = line.split('\t');
    if (stream === undefined || stream === '' || map.has(Number(stream))) continue;
    map.set(Number(stream), endpoints(src4 || src6 || '', Number(sport), dst4 || dst6 || '', Number(dport)));
  }
  return map;
}

const endpoints = (a: string, ap: number, b: string, bp: number): string => {
  const x = `${a}|${ap}`;
  const y = `${b}|${bp}`;
  return x < y ? `${x} ${y}` : `${y} ${x}`;
};

describe('native: JA4/JA4S of FoxIO test captures through the whole core', function () {
  this.timeout(120_000);

  it('gives every stream the JA4 and JA4S FoxIO expect', async () => {
    const files = [...new Set(expected.map((e) => e.file))];
    let ja4 = 0;
    let ja4s = 0;
    for (const file of files) {
      const full = path.join(FIXTURES, 'pcaps', file);
      const { flows } = await replayFile(full);
      const byEndpoints = new Map<string, FlowRecord[]>();
      for (const f of flows) {
        if (f.protocol !== 6) continue;
        const k = endpoints(f.srcIp, f.srcPort, f.dstIp, f.dstPort);
        byEndpoints.set(k, [...(byEndpoints.get(k) ?? []), f]);
      }
      const map = streams(full);
      for (const e of expected.filter((x) => x.file === file)) {
        const candidates = byEndpoints.get(map.get(e.stream) ?? '') ?? [];
        const flow = candidates.find((f) => f.tls !== null && f.tls !== undefined);
        expect(flow, `${file} stream ${e.stream}: a flow with TLS`).to.not.equal(undefined);
        if (e.ja4) {
          // FoxIO's code prints `99` for a non-alphanumeric ALPN (0xba 0xad); their specification, which a maintainer
          // confirmed as the method (FoxIO-LLC/ja4 issues #178 and #326), gives the hex of its first and last byte.
          const want = file === 'ja4/tls-non-ascii-alpn.pcapng' ? e.ja4.replace(/^(t13d1516)99_/, '$1bd_') : e.ja4;
          expect(flow!.tls!.ja4, `${file} stream ${e.stream} ja4`).to.equal(want);
          ja4++;
        }
        if (e.ja4s) {
          expect(flow!.tls!.ja4s, `${file} stream ${e.stream} ja4s`).to.equal(e.ja4s);
          ja4s++;
        }
      }
    }
    expect([ja4, ja4s]).to.deep.equal([expected.filter((e) => e.ja4).length, expected.filter((e) => e.ja4s).length]);
    expect(ja4).to.be.at.least(100);
  });
});
