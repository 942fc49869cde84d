import { expect } from 'chai';
import { loadDetectionConfig } from '../../../../src/config/detection.js';
import { Ipv6CovertChannelDetector } from '../../../../src/detect/detectors/ipv6-covert.js';
import type { FlowIpv6Options, FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;
const config = loadDetectionConfig({}).ipv6Covert;

/** An ICMPv6 echo flow from `src` to 2001:db8:1::1 whose requests carried `options`. */
function echo(src: string, options: Partial<FlowIpv6Options> | null, t = T0, over: Partial<FlowRecord> = {}): FlowRecord {
  return makeFlow({
    srcIp: src,
    dstIp: '2001:db8:1::1',
    protocol: 58,
    ipVersion: 6,
    srcPort: 128,
    dstPort: 0,
    firstSeenMs: t,
    endReason: 'idle',
    ipv6Options:
      options === null ? null : { packets: 0, anomalyPackets: 0, anomalies: [], fwdCovertBytes: 0, bwdCovertBytes: 0, maxCovertBytes: 0, ...options },
    ...over,
  });
}

describe('detect/detectors/ipv6-covert: Ipv6CovertChannelDetector#observe()', () => {
  it('reports data hidden in destination options (covert_send6: 18 packets, 23,406 bytes) as high exfiltration', () => {
    const d = new Ipv6CovertChannelDetector(config, 100);
    const flow = echo('2001:db8:2::5', { packets: 18, anomalyPackets: 18, anomalies: ['unknown_option'], fwdCovertBytes: 23_406, maxCovertBytes: 1366 });
    const [f, ...rest] = d.observe([flow]);
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.include({
      category: 'exfiltration',
      source: 'rule',
      severity: 'high',
      srcIp: '2001:db8:2::5',
      dstIp: '2001:db8:1::1',
      target: '2001:db8:1::1',
      threatIp: '2001:db8:2::5',
      protocol: 58,
      count: 23_406,
    });
    expect(f!.details).to.deep.equal({
      detector: 'ipv6_covert',
      kind: 'ipv6_option_covert_channel',
      covertBytes: 23_406,
      packets: 18,
      maxPacketBytes: 1366,
      anomalies: ['unknown_option'],
      destinations: [{ ip: '2001:db8:1::1', bytes: 23_406 }],
      protocols: [58],
      windowSec: 600,
      threshold: { minBytes: 256, minPackets: 2 },
      countUnit: 'bytes',
    });
    expect(f!.description).to.contain('23406 bytes').and.contain('unknown_option');
    // The same flow's bytes are not reported twice; more bytes are, as the new ones.
    expect(d.observe([])).to.deep.equal([]);
    const more = d.observe([echo('2001:db8:2::5', { packets: 2, anomalyPackets: 2, fwdCovertBytes: 500, maxCovertBytes: 250 }, T0 + 1000)]);
    expect(more.map((x) => [x.count, x.details['covertBytes']])).to.deep.equal([[500, 23_906]]);
  });

  it('sums one source over flows and destinations: medium below 16 times the threshold', () => {
    const d = new Ipv6CovertChannelDetector(config, 100);
    const flows = [
      echo('fd00::7', { packets: 1, fwdCovertBytes: 100, maxCovertBytes: 100 }, T0, { dstIp: 'fd00::1' }),
      echo('fd00::7', { packets: 2, anomalyPackets: 2, anomalies: ['padn_non_zero'], fwdCovertBytes: 200, maxCovertBytes: 120 }, T0 + 5000, {
        dstIp: 'fd00::2',
      }),
    ];
    const [f] = d.observe(flows);
    expect(f).to.include({ severity: 'medium', srcIp: 'fd00::7', dstIp: 'fd00::2', count: 300 });
    expect(f!.details).to.deep.include({ covertBytes: 300, packets: 3, anomalies: ['padn_non_zero'] });
    expect(f!.details['destinations']).to.deep.equal([
      { ip: 'fd00::2', bytes: 200 },
      { ip: 'fd00::1', bytes: 100 },
    ]);
  });

  it('ignores what stacks send (MLD: Router Alert and an empty PadN), one odd packet, too few bytes, and bytes spread beyond the window', () => {
    const d = new Ipv6CovertChannelDetector(config, 100);
    const mld = echo('fe80::1', { packets: 40, anomalyPackets: 40, anomalies: ['zero_length_padn'] }, T0, { protocol: 58, srcPort: 143, dstIp: 'ff02::16' });
    expect(d.observe([mld, echo('fd00::8', null)])).to.deep.equal([]);
    expect(d.observe([echo('fd00::9', { packets: 1, anomalyPackets: 1, fwdCovertBytes: 1200, maxCovertBytes: 1200 })]), 'one packet').to.deep.equal([]);
    expect(d.observe([echo('fd00::a', { packets: 10, fwdCovertBytes: 255, maxCovertBytes: 30 })]), '255 bytes').to.deep.equal([]);
    const spread = [0, 700_000, 1_400_000].map((dt) => echo('fd00::b', { packets: 3, fwdCovertBytes: 200, maxCovertBytes: 70 }, T0 + dt));
    expect(
      spread.flatMap((f) => d.observe([f])),
      '200 bytes every 700 s',
    ).to.deep.equal([]);
  });

  it('credits bytes the responder sent to the responder, and counts snapshots once', () => {
    const d = new Ipv6CovertChannelDetector(config, 100);
    const reply = echo('fd00::c', { packets: 4, anomalyPackets: 4, anomalies: ['data_after_none'], bwdCovertBytes: 400, maxCovertBytes: 100 });
    expect(d.observe([reply]).map((f) => [f.srcIp, f.dstIp, f.details['covertBytes']])).to.deep.equal([['2001:db8:1::1', 'fd00::c', 400]]);
    const snap = new Ipv6CovertChannelDetector(config, 100);
    const first = echo('fd00::d', { packets: 2, fwdCovertBytes: 300, maxCovertBytes: 150 }, T0, { id: 77, endReason: 'snapshot' });
    const end = echo('fd00::d', { packets: 3, fwdCovertBytes: 450, maxCovertBytes: 150 }, T0, { id: 77, endReason: 'idle', durationUs: 2_000_000 });
    expect(snap.observe([first]).map((f) => f.details['covertBytes'])).to.deep.equal([300]);
    expect(snap.observe([end]).map((f) => [f.count, f.details['covertBytes'], f.details['packets']])).to.deep.equal([[150, 450, 3]]);
  });

  it('takes its thresholds from the environment', () => {
    const strict = loadDetectionConfig({ VIGIL_DETECT_IPV6_COVERT_MIN_BYTES: '16', VIGIL_DETECT_IPV6_COVERT_MIN_PACKETS: '1' }).ipv6Covert;
    const flow = echo('fd00::e', { packets: 1, fwdCovertBytes: 20, maxCovertBytes: 20 });
    expect(new Ipv6CovertChannelDetector(config, 100).observe([flow])).to.deep.equal([]);
    expect(new Ipv6CovertChannelDetector(strict, 100).observe([flow]).map((f) => f.severity)).to.deep.equal(['medium']);
  });
});
