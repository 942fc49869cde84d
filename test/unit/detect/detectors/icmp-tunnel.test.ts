import { expect } from 'chai';
import { IcmpTunnelDetector } from '../../../../src/detect/detectors/icmp-tunnel.js';
import type { FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;

/** An echo flow 10.0.0.5 -> 198.51.100.9: `requests` pings and their replies, with per-direction payload statistics. */
function echo(
  requests: number,
  req: { mean: number; max: number; std: number },
  rep: { mean: number; max: number; std: number } | null,
  v6 = false,
): FlowRecord {
  const replies = rep === null ? 0 : requests;
  return makeFlow({
    srcIp: v6 ? 'fd00::5' : '10.0.0.5',
    dstIp: v6 ? '2001:db8::9' : '198.51.100.9',
    protocol: v6 ? 58 : 1,
    srcPort: v6 ? 128 : 8,
    dstPort: 0,
    firstSeenMs: T0,
    packets: requests + replies,
    fwdPackets: requests,
    bwdPackets: replies,
    fwdPayloadBytes: Math.round(req.mean * requests),
    bwdPayloadBytes: rep === null ? 0 : Math.round(rep.mean * replies),
    fwdPktLenMean: req.mean,
    fwdPktLenMax: req.max,
    fwdPktLenStd: req.std,
    bwdPktLenMean: rep?.mean ?? 0,
    bwdPktLenMax: rep?.max ?? 0,
    bwdPktLenStd: rep?.std ?? 0,
    endReason: 'idle',
  });
}

describe('detect/detectors/icmp-tunnel', () => {
  it('leaves ordinary pings alone: one size, replies echo the requests (default and large sizes, ICMPv6 too)', () => {
    const d = new IcmpTunnelDetector(100);
    const same = (size: number) => ({ mean: size, max: size, std: 0 });
    expect(d.observe([echo(100, same(56), same(56)), echo(200, same(1472), same(1472)), echo(100, same(56), same(56), true)])).to.deep.equal([]);
    // Unanswered pings of one size (a host that is down) neither.
    expect(d.observe([echo(300, same(1000), null)])).to.deep.equal([]);
  });

  it('reports replies that do not echo the requests and varying sizes (high), once per pair', () => {
    const d = new IcmpTunnelDetector(100);
    const [f, ...rest] = d.observe([echo(156, { mean: 110, max: 1028, std: 180 }, { mean: 250, max: 1028, std: 300 })]);
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.include({
      category: 'exfiltration',
      severity: 'high',
      srcIp: '10.0.0.5',
      dstIp: '198.51.100.9',
      threatIp: '198.51.100.9',
      protocol: 1,
      count: 156,
    });
    expect(f!.details).to.deep.include({ kind: 'icmp_tunnel', signals: ['asymmetric', 'varying'], requests: 156, replies: 156 });
    expect(d.observe([echo(300, { mean: 110, max: 1028, std: 180 }, { mean: 250, max: 1028, std: 300 })])).to.deep.equal([]);
  });

  it('one signal is medium: replies of another size, or requests of varying size echoed faithfully', () => {
    const [a] = new IcmpTunnelDetector(100).observe([echo(50, { mean: 100, max: 100, std: 0 }, { mean: 600, max: 600, std: 0 })]);
    expect(a).to.deep.include({ severity: 'medium' });
    expect(a!.details).to.deep.include({ signals: ['asymmetric'] });
    const varying = { mean: 300, max: 900, std: 250 };
    const [b] = new IcmpTunnelDetector(100).observe([echo(50, varying, varying, true)]);
    expect(b).to.deep.include({ severity: 'medium', protocol: 58 });
    expect(b!.details).to.deep.include({ signals: ['varying'] });
  });

  it('needs at least 10 requests and 4 KiB of payload', () => {
    const odd = { mean: 300, max: 900, std: 250 };
    expect(new IcmpTunnelDetector(100).observe([echo(9, odd, { mean: 20, max: 20, std: 0 })])).to.deep.equal([]);
    expect(new IcmpTunnelDetector(100).observe([echo(12, { mean: 100, max: 200, std: 40 }, { mean: 60, max: 60, std: 0 })])).to.deep.equal([]);
  });
});
