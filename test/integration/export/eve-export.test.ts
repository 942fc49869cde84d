/**
 * The EVE JSON export through the real runtime: fixture captures replayed by the capture core (`VIGIL_EVE_FILE` set),
 * stored by the pipeline, detected, and written by `src/export/`. Every line is validated against Suricata's published
 * EVE schema (`etc/schema.json`), installed by `scripts/suricata-schema.sh` (never committed here); its path can be
 * changed with VIGIL_TEST_SURICATA_SCHEMA.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import { loadDesktopConfig } from '../../../src/config/desktop.js';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { EventBus } from '../../../src/events.js';
import type { FlowRecord } from '../../../src/native/flow-record.js';
import { createSensorRuntime } from '../../../src/sensor/runtime.js';
import { closeStore, openStore } from '../../../src/store/database.js';
import { FIXTURES, tempDir } from '../../helpers/setup.js';

const SCHEMA_FILE = process.env.VIGIL_TEST_SURICATA_SCHEMA ?? '/usr/local/share/suricata/schema.json';
const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);

type Eve = Record<string, any>;

interface Run {
  lines: string[];
  records: Eve[];
  flows: FlowRecord[];
  storedFlows: number;
  stats: ReturnType<NonNullable<Awaited<ReturnType<typeof createSensorRuntime>>['eve']>['stats']>;
}

/** Replays `name` through createSensorRuntime with the EVE export on; returns the file's lines and the sensor's flows. */
async function replayWithEve(name: string, opts: { detection: boolean; ml?: boolean }): Promise<Run> {
  const dir = tempDir('eve-run-');
  const file = path.join(dir, 'eve.json');
  const store = await openStore(path.join(dir, 'vigil.db'));
  const config = loadDesktopConfig({
    VIGIL_DATA_DIR: dir,
    VIGIL_CAPTURE_FILE: pcap(name),
    VIGIL_REPLAY_SPEED: 'max',
    VIGIL_REPLAY_LOOP: 'false',
    VIGIL_EVE_FILE: file,
  });
  const runtime = await createSensorRuntime({
    config,
    store,
    events: new EventBus(),
    firewall: null,
    detection: opts.detection ? loadDetectionConfig(opts.ml ? {} : { VIGIL_ML: 'off' }) : null,
    geo: null,
    samplePath: pcap(name),
  });
  const flows: FlowRecord[] = [];
  runtime.sensor.on('flows', (batch) => flows.push(...batch));
  const ended = new Promise<void>((resolve) => runtime.sensor.on('end', () => resolve()));
  try {
    await runtime.monitoring.startConfigured();
    await ended;
    await runtime.pipeline.idle();
  } finally {
    await runtime.close();
    await closeStore(store);
  }
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).to.equal(true);
  const lines = text.slice(0, -1).split('\n');
  return { lines, records: lines.map((l) => JSON.parse(l) as Eve), flows, storedFlows: runtime.pipeline.counters.storedFlows, stats: runtime.eve!.stats() };
}

let validate: ValidateFunction | null = null;
/** Suricata's schema, compiled once; fails (never skips) with how to install it when it is missing. */
function schema(): ValidateFunction {
  if (validate) return validate;
  if (!existsSync(SCHEMA_FILE)) {
    throw new Error(
      `Suricata's EVE schema is not installed at ${SCHEMA_FILE}: run \`sudo bash scripts/suricata-schema.sh\` (or set VIGIL_TEST_SURICATA_SCHEMA)`,
    );
  }
  // The ajv in node_modules (6.x, eslint's) ignores Suricata's own annotation keywords (`suricata`, `optional`).
  const ajv = new Ajv({ allErrors: true });
  validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  return validate;
}

function expectValid(records: readonly Eve[]): void {
  const check = schema();
  for (const r of records) {
    if (!check(r)) expect.fail(`${JSON.stringify(check.errors)}\nin ${JSON.stringify(r)}`);
  }
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+0000$/;
const flowKey = (src: string, sport: number, dst: string, dport: number, proto: string): string => `${src}|${sport}|${dst}|${dport}|${proto}`;
const PROTO: Record<number, string> = { 6: 'TCP', 17: 'UDP' };

describe('export: EVE JSON written by the runtime (VIGIL_EVE_FILE)', function () {
  this.timeout(120_000);

  it("the schema check itself works: Suricata's schema refuses a key of Vigil's own and a malformed timestamp", () => {
    const check = schema();
    const good = { timestamp: '2026-11-27T10:00:00.000000+0000', event_type: 'flow', src_ip: '10.0.0.1', proto: 'TCP' };
    expect(check(good)).to.equal(true);
    expect(check({ ...good, vigil_score: 0.9 })).to.equal(false);
    expect(check({ ...good, proto: 6 })).to.equal(false);
    expect(check({ ...good, timestamp: '2026-11-27T10:00:00Z' })).to.equal(false);
    expect(check({ ...good, tls: { ja3: 'e7d705a3286e19ea42f587b344ee6865' } })).to.equal(false);
  });

  it("DNS, TLS and HTTP capture: one valid flow record per stored flow, carrying the flow record's community_id, sni and DNS name", async () => {
    const run = await replayWithEve('sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap', { detection: false });
    expectValid(run.records);
    expect(run.records.every((r) => r.event_type === 'flow')).to.equal(true);
    expect(run.records).to.have.length(run.storedFlows);
    expect(run.records).to.have.length(run.flows.length);
    expect(run.stats).to.include({ flows: run.flows.length, written: run.flows.length, dropped: 0, errors: 0, queuedBytes: 0 });

    const byKey = new Map<string, Eve>();
    for (const r of run.records) byKey.set(flowKey(r.src_ip, r.src_port, r.dest_ip, r.dest_port, r.proto) + `|${r.flow.start}|${r.flow.end}`, r);
    let dns = 0;
    let tls = 0;
    let http = 0;
    let contentTypes = 0;
    for (const f of run.flows) {
      if (!(f.protocol in PROTO)) continue;
      const r = byKey.get(flowKey(f.srcIp, f.srcPort, f.dstIp, f.dstPort, PROTO[f.protocol]!) + `|${eveTime(f.firstSeenMs)}|${eveTime(f.lastSeenMs)}`);
      expect(r, `EVE record of ${f.srcIp}:${f.srcPort} -> ${f.dstIp}:${f.dstPort}`).to.not.equal(undefined);
      expect(r!.timestamp).to.match(TIMESTAMP);
      expect(r!.timestamp).to.equal(r!.flow.end);
      expect(r!.community_id).to.equal(f.communityId);
      expect(r!.community_id).to.match(/^1:[A-Za-z0-9+/]{27}=$/);
      expect(r!.flow.pkts_toserver + r!.flow.pkts_toclient).to.equal(f.packets);
      if (f.dns) {
        dns++;
        expect(r!.dns.version).to.equal(3);
        expect(r!.dns.queries[0].rrname).to.equal(f.dns.query);
        expect((r!.dns.answers ?? []).map((a: Eve) => a.rdata)).to.deep.equal(f.dns.answers.map((a) => a.value));
      }
      if (f.tls?.sni) {
        tls++;
        expect(r!.tls.sni).to.equal(f.tls.sni);
        if (f.tls.ja3) expect(r!.tls.ja3).to.deep.equal({ hash: f.tls.ja3 });
        if (f.tls.ja4) expect(r!.tls.ja4).to.equal(f.tls.ja4);
      }
      if (f.http?.host) {
        http++;
        expect(r!.http.hostname).to.equal(f.http.host);
        expect(r!.http.url).to.equal(f.http.uri);
        expect(r!.http.http_content_type).to.equal(f.http.contentType ?? undefined);
        if (f.http.contentType) contentTypes++;
      }
    }
    // A snapshot of a long flow and its final record are both written (the same flow_id and community_id).
    expect(run.flows.filter((f) => f.endReason === 'snapshot').length).to.equal(run.records.filter((r) => r.flow.reason === undefined).length);
    // The capture holds each kind (docs/app-layer.md's fixture table); a mapping that lost one fails here.
    expect(dns).to.be.greaterThan(0);
    expect(tls).to.be.greaterThan(0);
    expect(http).to.be.greaterThan(0);
    expect(contentTypes).to.be.greaterThan(0);
  });

  it('SSH password guessing: a valid alert record with the evidence under alert.metadata and the Community ID of an SSH flow', async () => {
    const run = await replayWithEve('zeek_ssh_password_guessing.pcap', { detection: true });
    expectValid(run.records);
    const alerts = run.records.filter((r) => r.event_type === 'alert');
    expect(alerts).to.have.length(1);
    const a = alerts[0]!;
    expect(a).to.deep.include({ src_ip: '192.168.56.1', dest_ip: '192.168.56.103', dest_port: 22, proto: 'TCP' });
    expect(a.timestamp).to.match(TIMESTAMP);
    expect(a.alert).to.deep.include({ action: 'allowed', gid: 1, signature_id: 1790004, rev: 1, category: 'Attempted User Privilege Gain' });
    expect([1, 2]).to.include(a.alert.severity);
    expect(a.alert.metadata.vigil.category).to.equal('brute_force');
    expect(a.alert.metadata.vigil.source).to.equal('rule');
    expect(a.alert.metadata.vigil.count).to.equal(11);
    expect(a.alert.metadata.vigil.details).to.be.an('object').that.is.not.empty;
    expect(a.alert.metadata.signature_severity).to.have.length(1);
    // Linked to a flow of the alert's service, written before it: same Community ID and flow_id.
    const sshFlows = run.records.filter((r) => r.event_type === 'flow' && r.dest_port === 22 && r.src_ip === '192.168.56.1');
    expect(sshFlows.length).to.be.at.least(11);
    const linked = sshFlows.find((r) => r.flow_id === a.flow_id);
    expect(linked, 'the flow record the alert names').to.not.equal(undefined);
    expect(a.community_id).to.equal(linked!.community_id);
    expect(run.flows.map((f) => f.communityId)).to.include(a.community_id);
    expect(run.records.indexOf(linked!)).to.be.lessThan(run.records.indexOf(a));
    // The flow records carry the SSH banners.
    expect(sshFlows.some((r) => typeof r.ssh?.client?.software_version === 'string')).to.equal(true);
  });

  it("CICIDS2017 SQL injection: the model's web_attack alert carries its explanation under alert.metadata, valid", async () => {
    const run = await replayWithEve('ndpi_cicids2017_webattack_sqli.pcap', { detection: true, ml: true });
    expectValid(run.records);
    const ml = run.records.filter((r) => r.event_type === 'alert' && r.alert.metadata.vigil.source === 'ml');
    const web = ml.find((r) => r.alert.metadata.vigil.category === 'web_attack');
    expect(web, 'a web_attack alert record from the model').to.not.equal(undefined);
    expect(web!.alert).to.deep.include({ signature_id: 1790009, category: 'Web Application Attack' });
    const details = web!.alert.metadata.vigil.details as { model: { name: string }; explanation: Array<{ feature: string; value: number }> };
    expect(details.model.name).to.be.a('string');
    expect(details.explanation).to.have.length(loadDetectionConfig({}).ml.explainTop);
    for (const e of details.explanation) expect(web!.alert.metadata.vigil.description).to.include(`${e.feature}=`);
    expect(web!.alert.metadata.vigil.score).to.be.within(0, 1);
    expect(run.flows.map((f) => f.communityId)).to.include(web!.community_id);
  });
});

/** Epoch ms in EVE's format, written out here rather than through the code under test. */
function eveTime(ms: number): string {
  const us = Math.round(ms * 1000);
  const s = Math.floor(us / 1e6);
  return `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(us - s * 1e6).padStart(6, '0')}+0000`;
}
