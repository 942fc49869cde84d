/**
 * The application layer against tshark, an independent dissector, per flow on every fixture capture (the shared
 * captures, FoxIO's JA4 captures and the captures we made ourselves): the first ClientHello's SNI (TLS and QUIC), the
 * first DNS question, the first HTTP request's Host and URI, JA3, both SSH banners, and every TCP/UDP flow's Community ID (tshark's `communityid`). tshark runs here (the CI
 * installs it), so a new fixture is compared without recording anything.
 *
 * Each tshark packet is matched to the Vigil flow of the same (outer VLAN, protocol, endpoints) whose lifetime holds the packet's
 * time; a field agrees when the flow's value equals tshark's value in the flow's first packet that has one (for SSH,
 * per direction). Every disagreement must be listed, with its reason, in test/fixtures/app-parity/known-differences.json
 * (and docs/app-layer.md): an unexplained one fails, and so does a listed one that no longer happens.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { replayFile } from '../../src/native/capture.js';
import type { FlowRecord } from '../../src/native/types.js';
import { FIXTURES } from '../helpers/setup.js';

const PCAPS = path.join(FIXTURES, 'pcaps');
/** libpcap 1.10 cannot open it (per-interface snapshot lengths): the decoder suite covers that. */
const UNREADABLE = new Set(['zeek_pcapng_126_idbs_mixed_linktypes.pcapng']);

/** Capture files under test/fixtures/pcaps (one level of subfolders), relative names. */
function captures(): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(PCAPS, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      for (const f of readdirSync(path.join(PCAPS, entry.name))) if (/\.pcap(ng)?$/.test(f)) out.push(`${entry.name}/${f}`);
    } else if (/\.pcap(ng)?$/.test(entry.name) && !UNREADABLE.has(entry.name)) out.push(entry.name);
  }
  return out.sort();
}

type Field = 'tls.sni' | 'tls.ja3' | 'dns.query' | 'http.host' | 'http.uri' | 'ssh.client' | 'ssh.server' | 'communityId';

const TSHARK_FIELDS = [
  'frame.number',
  'frame.time_epoch',
  'vlan.id',
  'ip.proto',
  'ipv6.nxt',
  'ip.src',
  'ip.dst',
  'ipv6.src',
  'ipv6.dst',
  'tcp.srcport',
  'tcp.dstport',
  'udp.srcport',
  'udp.dstport',
  'tls.handshake.type',
  'tls.handshake.extensions_server_name',
  'tls.handshake.ja3',
  'dns.qry.name',
  'http.request',
  'http.host',
  'http.request.uri',
  'ssh.protocol',
  'communityid',
] as const;

interface Packet {
  frame: number;
  vlan: number;
  timeMs: number;
  proto: number;
  src: string;
  dst: string;
  sport: number;
  dport: number;
  values: Partial<Record<Field, string>>;
}

/**
 * The packets of `file` that carry one of the compared fields, as tshark dissects them; with `communityIds`, every TCP
 * and UDP packet with only its Community ID (tshark's `communityid` protocol, seed 0).
 */
function tsharkPackets(file: string, communityIds = false): Packet[] {
  const args = ['-r', file, '-n', '-T', 'fields', '-E', 'separator=\t', '-E', 'occurrence=f', '-E', 'quote=n', '--enable-protocol', 'communityid'];
  for (const f of TSHARK_FIELDS) args.push('-e', f);
  args.push('-Y', communityIds ? 'tcp or udp' : 'tls.handshake.type == 1 or dns.qry.name or http.request or ssh.protocol');
  const out = execFileSync('tshark', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  const packets: Packet[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const c = line.split('\t');
    const get = (name: (typeof TSHARK_FIELDS)[number]): string => c[TSHARK_FIELDS.indexOf(name)] ?? '';
    const tcp = get('tcp.srcport') !== '';
    const udp = get('udp.srcport') !== '';
    if (!tcp && !udp) continue;
    const v4 = get('ip.src') !== '';
    const values: Partial<Record<Field, string>> = {};
    if (communityIds) {
      if (get('communityid') !== '') values.communityId = get('communityid');
    } else if (get('tls.handshake.type') === '1') {
      values['tls.sni'] = get('tls.handshake.extensions_server_name');
      if (get('tls.handshake.ja3') !== '') values['tls.ja3'] = get('tls.handshake.ja3');
    }
    if (!communityIds && get('dns.qry.name') !== '') values['dns.query'] = get('dns.qry.name');
    if (!communityIds && get('http.request') !== '') {
      values['http.host'] = get('http.host');
      values['http.uri'] = get('http.request.uri');
    }
    if (!communityIds && get('ssh.protocol') !== '') values['ssh.client'] = get('ssh.protocol'); // direction decided per flow below
    packets.push({
      frame: Number(get('frame.number')),
      vlan: Number(get('vlan.id') || 0),
      timeMs: Number(get('frame.time_epoch')) * 1000,
      proto: tcp ? 6 : 17,
      src: v4 ? get('ip.src') : get('ipv6.src'),
      dst: v4 ? get('ip.dst') : get('ipv6.dst'),
      sport: Number(tcp ? get('tcp.srcport') : get('udp.srcport')),
      dport: Number(tcp ? get('tcp.dstport') : get('udp.dstport')),
      values,
    });
  }
  return packets;
}

/** (VLAN, protocol, endpoints in either order): Vigil keys flows by VLAN too (docs/flow-features.md). */
const endpointsKey = (vlan: number, proto: number, a: string, ap: number, b: string, bp: number): string => {
  const x = `${a}|${ap}`;
  const y = `${b}|${bp}`;
  return `${vlan} ${proto} ${x < y ? `${x} ${y}` : `${y} ${x}`}`;
};

/** Vigil's value of a field for a flow ('' when absent, as tshark prints an absent field). */
function vigilValue(f: FlowRecord, field: Field): string {
  switch (field) {
    case 'tls.sni':
      return f.tls?.sni ?? '';
    case 'tls.ja3':
      return f.tls?.ja3 ?? '';
    case 'dns.query':
      return f.dns?.query ?? '';
    case 'http.host':
      return f.http?.host ?? '';
    case 'http.uri':
      return f.http?.uri ?? '';
    case 'ssh.client':
      return f.ssh?.client ?? '';
    case 'ssh.server':
      return f.ssh?.server ?? '';
    case 'communityId':
      return f.communityId ?? '';
  }
}

interface Difference {
  file: string;
  field: Field;
  flow: string;
  tshark: string;
  vigil: string;
}

interface KnownDifference extends Difference {
  reason: string;
}

const known = JSON.parse(readFileSync(path.join(FIXTURES, 'app-parity', 'known-differences.json'), 'utf8')) as KnownDifference[];

describe('native: application layer vs tshark, per flow', function () {
  this.timeout(300_000);

  const totals = new Map<Field, { compared: number; agreed: number }>();
  const differences: Difference[] = [];

  before(async () => {
    for (const name of captures()) {
      const file = path.join(PCAPS, name);
      const { flows } = await replayFile(file);
      const byKey = new Map<string, FlowRecord[]>();
      for (const f of flows) {
        if (f.protocol !== 6 && f.protocol !== 17) continue;
        const k = endpointsKey(f.vlanOuter, f.protocol, f.srcIp, f.srcPort, f.dstIp, f.dstPort);
        let list = byKey.get(k);
        if (list === undefined) byKey.set(k, (list = []));
        list.push(f);
      }
      // The first tshark value of each (flow, field).
      const firstValue = new Map<FlowRecord, Map<Field, string>>();
      for (const p of [...tsharkPackets(file), ...tsharkPackets(file, true)]) {
        const candidates = byKey.get(endpointsKey(p.vlan, p.proto, p.src, p.sport, p.dst, p.dport)) ?? [];
        const flow = candidates.find((f) => p.timeMs >= f.firstSeenMs - 0.001 && p.timeMs <= f.lastSeenMs + 0.001);
        if (flow === undefined) continue; // a packet Vigil's decoder refused (counted in its decode errors)
        let values = firstValue.get(flow);
        if (values === undefined) firstValue.set(flow, (values = new Map()));
        for (const [field, value] of Object.entries(p.values) as Array<[Field, string]>) {
          // SSH: the initiator's banner is the client's, the responder's the server's.
          const f = field === 'ssh.client' && (p.src !== flow.srcIp || p.sport !== flow.srcPort) ? 'ssh.server' : field;
          if (!values.has(f)) values.set(f, value);
        }
      }
      for (const [flow, values] of firstValue) {
        for (const [field, expected] of values) {
          const t = totals.get(field) ?? { compared: 0, agreed: 0 };
          t.compared++;
          const actual = vigilValue(flow, field);
          if (actual === expected) t.agreed++;
          else {
            const flowText = `${flow.protocol === 6 ? 'tcp' : 'udp'} ${flow.srcIp}:${flow.srcPort} > ${flow.dstIp}:${flow.dstPort} @${flow.firstSeen}`;
            differences.push({ file: name, field, flow: flowText, tshark: expected, vigil: actual });
          }
          totals.set(field, t);
        }
      }
    }
  });

  it('compares every kind of field on real traffic', () => {
    const summary = Object.fromEntries([...totals].map(([field, t]) => [field, `${t.agreed}/${t.compared}`]));
    // The fixtures hold each kind of message: a comparison of nothing must not pass.
    for (const field of ['tls.sni', 'tls.ja3', 'dns.query', 'http.host', 'http.uri', 'ssh.client', 'ssh.server', 'communityId'] as Field[]) {
      expect(totals.get(field)?.compared ?? 0, `${field} compared (${JSON.stringify(summary)})`).to.be.at.least(5);
    }
  });

  it('agrees with tshark on at least 99% of flows for every field', () => {
    for (const [field, t] of totals) {
      expect(t.agreed / t.compared, `${field}: ${t.agreed}/${t.compared}`).to.be.at.least(0.99);
    }
  });

  it('has no disagreement that known-differences.json (and docs/app-layer.md) does not explain, and no stale entry', () => {
    const key = (d: Difference): string => `${d.file} ${d.field} ${d.flow}`;
    const knownKeys = new Map(known.map((d) => [key(d), d]));
    const unexplained = differences.filter((d) => !knownKeys.has(key(d)));
    expect(unexplained, 'disagreements not in test/fixtures/app-parity/known-differences.json').to.deep.equal([]);
    const observed = new Set(differences.map(key));
    const stale = known.filter((d) => !observed.has(key(d)));
    expect(stale, 'listed differences that no longer happen').to.deep.equal([]);
    for (const d of differences) {
      const k = knownKeys.get(key(d))!;
      expect([k.tshark, k.vigil], key(d)).to.deep.equal([d.tshark, d.vigil]);
    }
  });
});
