import path from 'node:path';
import { expect } from 'chai';
import type { DesktopCaptureConfig } from '../../../src/config/desktop.js';
import { MonitoringService } from '../../../src/sensor/monitoring.js';
import { EventBus, type VigilEventMap } from '../../../src/events.js';
import { createSensor } from '../../../src/native/capture.js';
import type { SensorStats } from '../../../src/native/types.js';
import { FIXTURES, IS_ROOT } from '../../helpers/setup.js';

const pcap = (name: string): string => path.join(FIXTURES, 'pcaps', name);
const SMALL = pcap('zeek_qinq_8021ad_http.pcap'); // 14 packets
const OTHER = pcap('sv_rawip_dlt101_tcp_tls.pcap'); // 42 packets

function capture(over: Partial<DesktopCaptureConfig>): DesktopCaptureConfig {
  return {
    mode: 'replay',
    interface: undefined,
    filter: undefined,
    file: SMALL,
    replaySpeed: 0,
    replayLoop: false,
    appLayer: true,
    communityIdSeed: 0,
    processes: true,
    processCpuPercent: 1,
    ...over,
  };
}

describe('sensor/MonitoringService (real sensor)', function () {
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
    const m = new MonitoringService({
      sensor,
      capture: capture({ replayLoop: true }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
      loopDelayMs: 20,
    });
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

  it('auto mode with no interface falls back to the bundled sample when the default device cannot be opened, and says why', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ mode: 'auto', file: undefined }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
      defaultInterface: () => 'nosuchif9',
    });
    const end = new Promise<SensorStats>((resolve) => sensor.on('end', resolve));
    const s = await m.startConfigured();
    expect(s).to.include({ source: 'replay', sample: true, file: 'sv_rawip_dlt101_tcp_tls.pcap' });
    expect(s.fallbackReason).to.match(/nosuchif9/);
    expect(s.description).to.match(/bundled sample/);
    await end;
    await m.stop();
  });

  it('auto mode with a configured interface does not fall back: the capture error stops startConfigured()', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ mode: 'auto', file: undefined, interface: 'nosuchif9' }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
    });
    let err: { code?: string; message?: string } = {};
    await m.startConfigured().catch((e: { code: string; message: string }) => (err = e));
    expect(err.code).to.be.oneOf(['capture_no_such_device', 'capture_permission_denied']); // the latter without CAP_NET_RAW
    expect(err.message).to.contain('nosuchif9');
    expect(m.state()).to.include({ running: false, source: null, sample: false, fallbackReason: null });
  });

  it('auto mode with a bad filter fails with capture_bad_filter instead of replaying the sample', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ mode: 'auto', file: undefined, filter: 'tcp port (' }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
      defaultInterface: () => 'lo',
    });
    let err: { code?: string; message?: string } = {};
    await m.startConfigured().catch((e: { code: string; message: string }) => (err = e));
    expect(err.code).to.equal('capture_bad_filter');
    // With the capture permission the live open fails on the filter, and the sample is not tried.
    if (IS_ROOT) expect(err.message).to.match(/^Cannot open interface lo: invalid BPF filter 'tcp port \('/);
    expect(m.state().running).to.equal(false);
  });

  it('live capture on the default device reports the device by name', async function () {
    if (!IS_ROOT) this.skip(); // live capture needs CAP_NET_RAW
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ mode: 'auto', file: undefined }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
      defaultInterface: () => 'lo',
    });
    try {
      const s = await m.startConfigured();
      expect(s).to.include({ running: true, source: 'live', interface: 'lo', sample: false, description: 'live capture on lo (the default interface)' });
      expect(sensor.source).to.include({ kind: 'live', interface: 'lo' }); // what is opened is what is reported
    } finally {
      await m.stop();
    }
  });

  it('concurrent starts open one source, and the state reports the one that runs', async function () {
    if (!IS_ROOT) this.skip();
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ replaySpeed: 0.01 }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
    });
    try {
      const [a, b] = await Promise.allSettled([m.start({ interface: 'lo' }), m.start()]);
      expect(a.status).to.equal('fulfilled');
      expect(b.status).to.equal('fulfilled'); // the second finds capture running: idempotent
      expect(m.state()).to.include({ running: true, source: 'live', interface: 'lo' });
      expect(sensor.source).to.include({ kind: 'live', interface: 'lo' });
      if (a.status === 'fulfilled' && b.status === 'fulfilled') expect(b.value.startedAt).to.equal(a.value.startedAt);
    } finally {
      await m.stop();
    }
  });

  it('live mode fails with the capture error; a running capture refuses another interface with 409', async () => {
    const sensor = createSensor();
    const live = new MonitoringService({
      sensor,
      capture: capture({ mode: 'live', file: undefined, interface: 'nosuchif9' }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
    });
    let code = '';
    await live.startConfigured().catch((e: { code: string }) => (code = e.code));
    expect(code).to.equal('capture_no_such_device');

    const sensor2 = createSensor();
    const m = new MonitoringService({
      sensor: sensor2,
      capture: capture({ replaySpeed: 0.01 }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
    });
    await m.startConfigured();
    let conflict = '';
    await m.start({ interface: 'eth0' }).catch((e: { code: string; status: number }) => (conflict = `${e.status} ${e.code}`));
    expect(conflict).to.equal('409 capture_running');
    expect((await m.start()).running).to.equal(true); // same source: idempotent
    await m.stop();
  });
});

describe('sensor/MonitoringService errors', () => {
  it('a file that cannot be opened is reported by state().error and the problem keeps the capture code', async () => {
    const sensor = createSensor();
    const m = new MonitoringService({
      sensor,
      capture: capture({ file: pcap('does-not-exist.pcap') }),
      samplePath: OTHER,
      events: new EventBus(),
      clock: { now: () => Date.now() },
    });
    let err: { code?: string; status?: number } = {};
    await m.startConfigured().catch((e: { code: string; status: number }) => (err = e));
    expect(err.code).to.equal('capture_file_unreadable');
    expect(err.status).to.equal(400);
    const s = m.state();
    expect(s.running).to.equal(false);
    expect(s.error).to.match(/does-not-exist\.pcap|No such file|unreadable|cannot/i);
  });
});
