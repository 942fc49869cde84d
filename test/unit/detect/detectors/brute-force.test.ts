import { expect } from 'chai';
import { loadDetectionConfig } from '../../../../src/config/detection.js';
import { ATTACK_TOOL_SSH_CLIENTS, BruteForceDetector } from '../../../../src/detect/detectors/brute-force.js';
import type { FlowRecord } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const T0 = 1_700_000_000_000;
const config = loadDetectionConfig({});

/** An SSH connection to 10.0.0.9:902: a full login dialogue (3.5 KB) or an early reset after the banners (46 bytes). */
function sshAttempt(i: number, client: string, full: boolean, over: Partial<FlowRecord> = {}): FlowRecord {
  return makeFlow({
    srcIp: '10.0.0.66',
    srcPort: 50000 + i,
    dstIp: '10.0.0.9',
    dstPort: 902,
    firstSeenMs: T0 + i * 300,
    durationUs: full ? 3.5e6 : 2000,
    fwdPayloadBytes: full ? 1744 : 24,
    bwdPayloadBytes: full ? 1839 : 22,
    endReason: full ? 'fin' : 'rst',
    app: 'ssh',
    appBy: 'content',
    ssh: { client, server: full ? 'SSH-2.0-OpenSSH_9.6p1' : null },
    ...over,
  });
}

describe('detect/detectors/brute-force: application-layer evidence', () => {
  /** Twelve alike connections (same sizes and timing as a guessing run) from 10.0.0.66 to 10.0.0.9:port. */
  const alike = (port: number, over: Partial<FlowRecord>): FlowRecord[] =>
    Array.from({ length: 12 }, (_, i) =>
      makeFlow({
        srcIp: '10.0.0.66',
        srcPort: 40000 + i,
        dstIp: '10.0.0.9',
        dstPort: port,
        firstSeenMs: T0 + i * 2000,
        durationUs: 300_000,
        fwdPayloadBytes: 600,
        bwdPayloadBytes: 900,
        endReason: 'fin',
        ...over,
      }),
    );

  it('TLS or QUIC by content on a port that is no login service is no attempt (a beacon, a poller); on 993 it is', () => {
    const detector = (): BruteForceDetector => new BruteForceDetector(config.bruteForce, 1000);
    expect(detector().observe(alike(443, { app: 'tls', appBy: 'content' }))).to.deep.equal([]);
    expect(detector().observe(alike(8443, { app: 'quic', appBy: 'content' }))).to.deep.equal([]);
    // The same connections with no recognised protocol are judged as before (medium: not a login port).
    expect(detector().observe(alike(443, { app: null, appBy: null }))[0]).to.deep.include({ severity: 'medium', dstPort: 443 });
    // IMAPS: TLS on a login service.
    expect(detector().observe(alike(993, { app: 'tls', appBy: 'content' }))[0]).to.deep.include({ severity: 'high', dstPort: 993 });
  });

  it('cleartext HTTP counts only when it posts (a login form), not runs of GETs', () => {
    const http = (method: string): Partial<FlowRecord> => ({
      app: 'http',
      appBy: 'content',
      http: { method, host: 'intranet.example', uri: '/login.php', userAgent: 'x', status: 200, requests: 1 },
    });
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(alike(80, http('GET')))).to.deep.equal([]);
    const [f] = new BruteForceDetector(config.bruteForce, 1000).observe(alike(80, http('POST')));
    expect(f).to.deep.include({ category: 'brute_force', dstPort: 80, count: 12 });
  });

  it('ATTACK_TOOL_SSH_CLIENTS: the libraries of attack tools, not OpenSSH or PuTTY', () => {
    const tool = (b: string): boolean => ATTACK_TOOL_SSH_CLIENTS.some((p) => p.test(b));
    for (const b of ['SSH-2.0-libssh2_1.11.0', 'SSH-2.0-libssh_0.9.6', 'SSH-2.0-paramiko_3.4.0', 'SSH-2.0-Ruby/Net::SSH_7.2.0 x86_64-linux', 'SSH-2.0-Go'])
      expect(tool(b), b).to.equal(true);
    for (const b of ['SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.11', 'SSH-2.0-PuTTY_Release_0.78', 'SSH-2.0-WinSCP_release_6.1', 'SSH-2.0-Go-something'])
      expect(tool(b), b).to.equal(false);
  });

  it("nmap's ssh-brute on port 902 (libssh2, full dialogues mixed with early resets) is brute force against a login service", () => {
    const flows = Array.from({ length: 12 }, (_, i) => sshAttempt(i, 'SSH-2.0-libssh2_1.11.0', i % 3 !== 0));
    const [f, ...rest] = new BruteForceDetector(config.bruteForce, 1000).observe(flows);
    expect(rest).to.deep.equal([]);
    expect(f).to.deep.include({ category: 'brute_force', severity: 'high', dstPort: 902, count: 12 });
    expect(f!.details).to.deep.include({ loginService: true, clientBanners: ['SSH-2.0-libssh2_1.11.0'], toolBannerAttempts: 12 });
    expect(f!.details['sizeCv'] as number).to.be.above(config.bruteForce.maxSizeCv);
  });

  it('the same mixed sizes from OpenSSH are not enough (no banner evidence, sizes unlike)', () => {
    const flows = Array.from({ length: 12 }, (_, i) => sshAttempt(i, 'SSH-2.0-OpenSSH_9.6', i % 3 !== 0));
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(flows)).to.deep.equal([]);
  });

  it('a tool banner on fewer than minAttempts of the attempts is not evidence enough for unlike sizes', () => {
    const flows = Array.from({ length: 12 }, (_, i) => sshAttempt(i, i < 7 ? 'SSH-2.0-paramiko_3.4.0' : 'SSH-2.0-OpenSSH_9.6', i % 3 !== 0));
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(flows)).to.deep.equal([]);
    // One more with the banner and it is.
    const more = Array.from({ length: 12 }, (_, i) => sshAttempt(i, i < 8 ? 'SSH-2.0-paramiko_3.4.0' : 'SSH-2.0-OpenSSH_9.6', i % 3 !== 0));
    const [f] = new BruteForceDetector(config.bruteForce, 1000).observe(more);
    expect(f!.details).to.deep.include({ toolBannerAttempts: 8, clientBanners: ['SSH-2.0-paramiko_3.4.0', 'SSH-2.0-OpenSSH_9.6'] });
  });

  it('SSH recognised by content makes any port a login service (high); the same sizes unlabelled stay medium', () => {
    const alike = (over: Partial<FlowRecord>): FlowRecord[] => Array.from({ length: 10 }, (_, i) => sshAttempt(i, 'SSH-2.0-OpenSSH_9.6', true, over));
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(alike({}))[0]).to.deep.include({ severity: 'high' });
    const plain = new BruteForceDetector(config.bruteForce, 1000).observe(alike({ app: null, appBy: null, ssh: null }));
    expect(plain[0]).to.deep.include({ severity: 'medium' });
    expect(plain[0]!.details).to.include({ loginService: false });
  });

  it('FTP servers may answer at length: replies 5.5 times the client bytes still count for FTP (content or port guess)', () => {
    const ftp = (i: number, app: string | null): FlowRecord =>
      makeFlow({
        srcIp: '10.0.0.66',
        srcPort: 51000 + i,
        dstIp: '10.0.0.9',
        dstPort: 21,
        firstSeenMs: T0 + i * 2000,
        durationUs: 2e6,
        fwdPayloadBytes: 25,
        bwdPayloadBytes: 137,
        app,
        appBy: app ? 'port' : null,
      });
    const [f] = new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 10 }, (_, i) => ftp(i, 'ftp')));
    expect(f).to.deep.include({ severity: 'high', count: 10 });
    // The same ratio on a service that is not a talkative login protocol stays out.
    expect(new BruteForceDetector(config.bruteForce, 1000).observe(Array.from({ length: 10 }, (_, i) => ftp(i, null)))).to.deep.equal([]);
  });
});
