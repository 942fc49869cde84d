import { expect } from 'chai';
import { judgeHeartbeats, TlsHeartbeatDetector } from '../../../../src/detect/detectors/tls-heartbeat.js';
import type { FlowTls, FlowTlsHeartbeatSide } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const side = (over: Partial<FlowTlsHeartbeatSide> = {}): FlowTlsHeartbeatSide => ({
  records: 0,
  maxLen: 0,
  early: false,
  overlong: false,
  short: false,
  ...over,
});
const tls = (client: FlowTlsHeartbeatSide, server: FlowTlsHeartbeatSide): FlowTls => ({
  version: 'TLS 1.2',
  sni: null,
  alpn: null,
  ja3: null,
  ja4: null,
  ja4s: null,
  cipher: 'c014',
  heartbeats: { client, server },
});

describe('detect/detectors/tls-heartbeat', () => {
  describe('judgeHeartbeats()', () => {
    it('calls the Heartbleed request of zeek_tls_heartbleed.pcap high: overlong and early, unanswered', () => {
      // What the capture core reports for that capture's client: one 16368-byte plaintext request claiming 16365.
      const v = judgeHeartbeats(side({ records: 1, maxLen: 16368, early: true, overlong: true }), side());
      expect(v).to.deep.equal({ signals: ['overlong_request', 'early_heartbeat'], attacker: 'client', severity: 'high' });
    });

    it('calls a response larger than the request critical (memory leaked)', () => {
      const encrypted = judgeHeartbeats(side({ records: 1, maxLen: 67 }), side({ records: 1, maxLen: 16403 }));
      expect(encrypted).to.deep.include({ signals: ['large_response'], attacker: 'client', severity: 'critical' });
      const answered = judgeHeartbeats(side({ records: 1, maxLen: 24, overlong: true, early: true }), side({ records: 1, maxLen: 24 }));
      expect(answered?.signals).to.deep.equal(['overlong_request', 'large_response', 'early_heartbeat']);
      expect(answered?.severity).to.equal('critical');
      // An echo within 64 bytes is a normal answer.
      expect(judgeHeartbeats(side({ records: 1, maxLen: 67 }), side({ records: 1, maxLen: 67 + 64 }))).to.equal(null);
    });

    it('says nothing of heartbeats an honest peer sends: after data, answered, long enough', () => {
      expect(judgeHeartbeats(side({ records: 3, maxLen: 40 }), side({ records: 3, maxLen: 40 }))).to.equal(null);
      expect(judgeHeartbeats(side(), side())).to.equal(null);
    });

    it('reports scans: short records, early heartbeats and unanswered requests (medium)', () => {
      expect(judgeHeartbeats(side({ records: 1, maxLen: 3, short: true }), side())).to.deep.include({ signals: ['short_heartbeat'], severity: 'medium' });
      expect(judgeHeartbeats(side({ records: 1, maxLen: 40, early: true }), side())).to.deep.include({ signals: ['early_heartbeat'], severity: 'medium' });
      expect(judgeHeartbeats(side({ records: 3, maxLen: 40 }), side())).to.equal(null);
      expect(judgeHeartbeats(side({ records: 5, maxLen: 40 }), side({ records: 1, maxLen: 40 }))).to.deep.include({ signals: ['unanswered_requests'] });
    });

    it('blames the server when its requests are the malformed ones (a server attacking its clients)', () => {
      const v = judgeHeartbeats(side({ records: 1, maxLen: 16403 }), side({ records: 1, maxLen: 24, overlong: true }));
      expect(v).to.deep.include({ attacker: 'server', severity: 'critical' });
      expect(v?.signals).to.include('overlong_request');
    });
  });

  describe('TlsHeartbeatDetector#observe()', () => {
    it('raises one exploit finding per attacker, victim and port, with the evidence', () => {
      const attack = side({ records: 1, maxLen: 16368, early: true, overlong: true });
      const flows = [
        makeFlow({ srcIp: '173.203.79.216', dstIp: '162.219.2.166', dstPort: 443, app: 'tls', tls: tls(attack, side()) }),
        makeFlow({ srcIp: '173.203.79.216', dstIp: '162.219.2.166', dstPort: 443, app: 'tls', tls: tls(attack, side({ records: 1, maxLen: 16384 })) }),
        makeFlow({
          srcIp: '10.0.0.2',
          dstIp: '10.0.0.9',
          dstPort: 443,
          app: 'tls',
          tls: tls(side({ records: 2, maxLen: 40 }), side({ records: 2, maxLen: 40 })),
        }),
        makeFlow({ srcIp: '10.0.0.3', dstIp: '10.0.0.9', dstPort: 443, app: 'tls', tls: tls(attack, side()), endReason: 'snapshot' }),
        makeFlow({ srcIp: '10.0.0.4', dstIp: '10.0.0.9', dstPort: 443, app: 'tls' }),
      ];
      const out = new TlsHeartbeatDetector().observe(flows);
      expect(out).to.have.length(1);
      const f = out[0]!;
      expect(f).to.include({
        category: 'exploit',
        source: 'rule',
        severity: 'critical',
        srcIp: '173.203.79.216',
        dstIp: '162.219.2.166',
        dstPort: 443,
        target: '162.219.2.166:443/6',
        threatIp: '173.203.79.216',
        count: 2,
      });
      expect(f.details).to.deep.include({ detector: 'tls_heartbeat', cve: 'CVE-2014-0160', connections: 2 });
      expect(f.details.signals).to.deep.equal(['overlong_request', 'large_response', 'early_heartbeat']);
      expect(f.details.heartbeats).to.deep.equal({ client: attack, server: side() });
      expect(f.title).to.contain('Heartbleed');
    });
  });
});
