import path from 'node:path';
import { expect } from 'chai';
import type { DesktopCaptureConfig } from '../../../../src/config/desktop.js';
import { MonitoringService } from '../../../../src/desktop-api/services/monitoring.service.js';
import { EventBus, type VigilEventMap } from '../../../../src/events.js';
import { createSensor } from '../../../../src/native/capture.js';
import type { SensorStats } from '../../../../src/native/types.js';
import { FIXTURES } from '../../../helpers/setup.js';

const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);
const SMALL = pcap('zeek_qinq_8021ad_http.pcap'); // 14 packets
const OTHER = pcap('sv_rawip_dlt101_tcp_tls.pcap'); // 42 packets

function capture(over: Partial<DesktopCaptureConfig>): DesktopCaptureConfig {
  return { mode: 'replay', interface: undefined, filter: undefined, file: SMALL, replaySpeed: 0, replayLoop: false, ...over };
}

describe('desktop-api/services/MonitoringService (real sensor)', function () {
  this.timeout(20_000);

  it('startConfigured() replays the configured file; stop() is idempotent; totals add up over sessions', async () => {
    const sensor = createSensor();
    const events = new EventBus();
    const seen: Array<VigilEventMap['monitoring']> = [];
    events.on('monitoring', (m) => seen.push(m));
    const m = new MonitoringService({ sensor, capture: capture({}), samplePath: OTHER, events, clock: { now: () => Date.now() } });
    const ended = () => new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    let end = ended();
    const s = await m.startConfigured();
    expect(s).to.include({ running: true, source: 'replay', file: 'zeek_qinq_8021ad_http.pcap', sample: false });
    expect(s.startedAt).to.be.a('string');
    await end;
    expect(m.totals().packets).to.equal(14);
    end = ended();
    const again = await m.start();
    expect(again.running).to.equal(true);
    await end;
    expect(m.totals().packets).to.equal(28);
    const st = await m.stop();
    expect(st).to.include({ running: false, startedAt: null, source: 'replay' });
    expect((await m.stop()).running).to.equal(false);
    expect(seen[0]).to.include({ running: true, source: 'replay' });
    expect(seen.at(-1)).to.include({ running: false });
  });

  it('a looping replay restarts when the file ends and keeps counting', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({ sensor, capture: capture({ replayLoop: true }), samplePath: OTHER, events: new EventBus(), clock: { now: () => Date.now() }, loopDelayMs: 20 });
    let ends = 0;
    sensor.on('end', () => ends++);
    await m.startConfigured();
    const deadline = Date.now() + 10_000;
    while (ends < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(ends).to.be.at.least(3);
    expect(m.state().running).to.equal(true);
    await m.stop();
    expect(m.totals().packets % 14).to.equal(0);
    expect(m.totals().packets).to.be.at.least(42);
    const after = ends;
    await new Promise((r) => setTimeout(r, 100));
    expect(ends).to.equal(after); // stop() cancels the loop
    expect(m.state().running).to.equal(false);
  });

  it('auto mode falls back to the bundled sample when live capture cannot be opened, and says why', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({ sensor, capture: capture({ mode: 'auto', file: undefined, interface: 'nosuchif9' }), samplePath: OTHER, events: new EventBus(), clock: { now: () => Date.now() } });
    const end = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    const s = await m.startConfigured();
    expect(s).to.include({ source: 'replay', sample: true, file: 'sv_rawip_dlt101_tcp_tls.pcap' });
    expect(s.fallbackReason).to.match(/nosuchif9/);
    expect(s.description).to.match(/bundled sample/);
    await end;
    await m.stop();
  });

  it('live mode fails with the capture error; a running capture refuses another interface with 409', async () => {
    const sensor = createSensor();
    const live = new MonitoringService({ sensor, capture: capture({ mode: 'live', file: undefined, interface: 'nosuchif9' }), samplePath: OTHER, events: new EventBus(), clock: { now: () => Date.now() } });
    let code = '';
    await live.startConfigured().catch((e: { code: string }) => (code = e.code));
    expect(code).to.equal('capture_no_such_device');

    const sensor2 = createSensor();
    const m = new MonitoringService({ sensor: sensor2, capture: capture({ replaySpeed: 0.01 }), samplePath: OTHER, events: new EventBus(), clock: { now: () => Date.now() } });
    await m.startConfigured();
    let conflict = '';
    await m.start({ interface: 'eth0' }).catch((e: { code: string; status: number }) => (conflict = `${e.status} ${e.code}`));
    expect(conflict).to.equal('409 capture_running');
    expect((await m.start()).running).to.equal(true); // same source: idempotent
    await m.stop();
  });
});

describe('desktop-api/services/MonitoringService errors', () => {
  it('a file that cannot be opened is reported by state().error and the problem keeps the capture code', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({ sensor, capture: capture({ file: pcap('does-not-exist.pcap') }), samplePath: OTHER, events: new EventBus(), clock: { now: () => Date.now() } });
    let err: { code?: string; status?: number } = {};
    await m.startConfigured().catch((e: { code: string; status: number }) => (err = e));
    expect(err.code).to.equal('capture_file_unreadable');
    expect(err.status).to.equal(400);
    const s = m.state();
    expect(s.running).to.equal(false);
    expect(s.error).to.match(/does-not-exist\.pcap|No such file|unreadable|cannot/i);
  });
});
