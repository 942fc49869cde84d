import { expect } from 'chai';
import { DEFAULT_MODEL_PATH, loadDetectionConfig } from '../../../src/config/detection.js';
import { ConfigError } from '../../../src/errors.js';

describe('config/detection: loadDetectionConfig()', () => {
  it('has the documented defaults and is frozen', () => {
    const c = loadDetectionConfig({});
    expect(c.ml).to.include({ enabled: true, modelPath: DEFAULT_MODEL_PATH, threads: 1, maxInFlight: 2, maxQueuedFlows: 65536, maxBatch: 1024, minPackets: 3 });
    expect(c.portScan).to.deep.equal({ windowSec: 60, minPorts: 20, minHosts: 20, minUnansweredRatio: 0.7, slowWindowSec: 3600, slowMinDistinct: 60 });
    expect(c.synFlood).to.deep.equal({ windowSec: 10, minSyn: 500, burstWindowSec: 1, burstMinSyn: 100, burstMaxCompleted: 0.1 });
    expect(c.ipv6Covert).to.deep.equal({ windowSec: 600, minBytes: 256, minPackets: 2 });
    expect(c.flood).to.deep.equal({ windowSec: 10, minPackets: 2000, maxReplyRatio: 0.05 });
    expect(c.bruteForce).to.deep.equal({
      windowSec: 120,
      minAttempts: 8,
      maxDurationSec: 30,
      maxSizeCv: 0.3,
      maxReplyRatio: 4,
      maxAttemptBytes: 32768,
      longWindowSec: 1800,
      longMinAttempts: 30,
    });
    expect(c.beacon).to.deep.include({ windowSec: 86400, minConnections: 8, minIntervalSec: 1, maxJitter: 0.2, minSizeScore: 0.7 });
    expect(c.beacon.allowApps).to.deep.equal(['dns', 'mdns', 'llmnr', 'ntp', 'dhcp', 'dhcpv6', 'netbios', 'ssdp', 'sip']);
    expect(c.beacon.allowNames).to.include.members(['www.msftconnecttest.com', 'push.apple.com']);
    // Configured names add to the defaults.
    expect(loadDetectionConfig({ VIGIL_DETECT_BEACON_ALLOW_NAMES: 'backup.example.com' }).beacon.allowNames).to.include.members([
      'backup.example.com',
      'captive.apple.com',
    ]);
    expect(c.arp).to.deep.equal({ windowSec: 600, sweepWindowSec: 30, sweepMinTargets: 16, gateways: [] });
    expect(c.dnsTunnel).to.deep.equal({
      windowSec: 600,
      minUniqueNames: 30,
      minQueriesPerFlow: 20,
      minQueryBytes: 70,
      minEntropy: 3.5,
      minTunnelQtypeShare: 0.5,
      shortMinQueries: 10,
      shortMinQtypeShare: 0.8,
      shortMinNameLength: 24,
      allow: ['mcafee.com', 'sophosxl.net', 'cymru.com'],
    });
    expect(c.autoBlock).to.deep.equal({ level: 'off', durationSec: 3600 });
    expect(c.alertWindowSec).to.equal(600);
    expect(Object.isFrozen(c) && Object.isFrozen(c.portScan)).to.equal(true);
  });

  it('reads overrides and names the variable on bad input', () => {
    const c = loadDetectionConfig({ VIGIL_AUTOBLOCK: 'HIGH', VIGIL_DETECT_SCAN_MIN_PORTS: '50', VIGIL_ML: 'off' });
    expect(c.autoBlock.level).to.equal('high');
    expect(c.portScan.minPorts).to.equal(50);
    expect(c.ml.enabled).to.equal(false);
    expect(() => loadDetectionConfig({ VIGIL_AUTOBLOCK: 'always' })).to.throw(ConfigError, /VIGIL_AUTOBLOCK/);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_SCAN_MIN_UNANSWERED: '2' })).to.throw(ConfigError, /VIGIL_DETECT_SCAN_MIN_UNANSWERED/);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_SYN_BURST_MAX_COMPLETED: '1.5' })).to.throw(ConfigError, /VIGIL_DETECT_SYN_BURST_MAX_COMPLETED/);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_IPV6_COVERT_MIN_BYTES: '0' })).to.throw(ConfigError, /VIGIL_DETECT_IPV6_COVERT_MIN_BYTES/);
    const tunnel = loadDetectionConfig({
      VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QUERIES: '15',
      VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QTYPE_SHARE: '0.9',
      VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_NAME_LENGTH: '30',
    }).dnsTunnel;
    expect(tunnel).to.include({ shortMinQueries: 15, shortMinQtypeShare: 0.9, shortMinNameLength: 30 });
    expect(() => loadDetectionConfig({ VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QUERIES: '1' })).to.throw(ConfigError, /VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QUERIES/);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QTYPE_SHARE: '0.3' })).to.throw(
      ConfigError,
      /VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_QTYPE_SHARE/,
    );
    expect(() => loadDetectionConfig({ VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_NAME_LENGTH: 'long' })).to.throw(
      ConfigError,
      /VIGIL_DETECT_DNS_TUNNEL_SHORT_MIN_NAME_LENGTH/,
    );
    expect(loadDetectionConfig({ VIGIL_DETECT_ARP_GATEWAYS: ' 192.168.1.1, 10.0.0.1 ' }).arp.gateways).to.deep.equal(['192.168.1.1', '10.0.0.1']);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_ARP_GATEWAYS: '192.168.1.1,router' })).to.throw(ConfigError, /VIGIL_DETECT_ARP_GATEWAYS.*router/);
  });

  it('bruteForce: the long window is 0 (off) or at least the short one, its threshold at least the short one', () => {
    expect(loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: '3600', VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS: '50' }).bruteForce).to.include({
      longWindowSec: 3600,
      longMinAttempts: 50,
    });
    expect(loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: '0' }).bruteForce.longWindowSec).to.equal(0);
    expect(() => loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: '60' })).to.throw(
      ConfigError,
      /VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC.*at least VIGIL_DETECT_BRUTE_WINDOW_SEC \(120\), got 60/,
    );
    expect(() => loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS: '5' })).to.throw(
      ConfigError,
      /VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS.*at least VIGIL_DETECT_BRUTE_MIN_ATTEMPTS \(8\), got 5/,
    );
    expect(() => loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: 'soon' })).to.throw(ConfigError, /VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC/);
  });
});
