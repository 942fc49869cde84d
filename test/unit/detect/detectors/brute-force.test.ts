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

  /** Cleartext HTTP by content whose first request is `method uri`, answered `status`. */
  const http = (method: string, uri: string, status: number | null): Partial<FlowRecord> => ({
    app: 'http',
    appBy: 'content',
    http: { method, host: 'intranet.example', uri, userAgent: 'x', status, requests: 1 },
  });
  const judge = (flows: FlowRecord[]) => new BruteForceDetector(config.bruteForce, 1000).observe(flows);

  it('cleartext HTTP: a POST to a login path counts whatever the answer (WordPress answers a failed login 200); GETs do not', () => {
    expect(judge(alike(80, http('GET', '/login.php', 200)))).to.deep.equal([]);
    for (const uri of ['/login.php', '/dvwa/login.php?x=1', '/wp-login.php', '/xmlrpc.php', '/users/sign_in', '/api/auth', '/j_security_check']) {
      const [f, ...rest] = judge(alike(80, http('POST', uri, 200)));
      expect(rest, uri).to.deep.equal([]);
      expect(f, uri).to.deep.include({ category: 'brute_force', dstPort: 80, count: 12, severity: 'medium' });
    }
  });

  it('cleartext HTTP: 401 and 407 answers count whatever the method, 403 only to a POST', () => {
    expect(judge(alike(8080, http('POST', '/api/v1/items', 401)))[0]).to.deep.include({ dstPort: 8080, count: 12 });
    expect(judge(alike(8080, http('GET', '/admin/', 401)))[0]).to.deep.include({ dstPort: 8080, count: 12 });
    expect(judge(alike(3128, http('GET', 'http://example.com/', 407)))[0]).to.deep.include({ dstPort: 3128, count: 12 });
    expect(judge(alike(8080, http('POST', '/api/v1/items', 403)))[0]).to.deep.include({ dstPort: 8080, count: 12 });
    expect(judge(alike(8080, http('GET', '/private/', 403)))).to.deep.equal([]);
    // Posts elsewhere answered 200 (an API client, a form) are no attempts; nor is a path that merely contains "login".
    expect(judge(alike(8080, http('POST', '/api/v1/items', 200)))).to.deep.equal([]);
    expect(judge(alike(8080, http('POST', '/blog/loginless-tips', 200)))).to.deep.equal([]);
    expect(judge(alike(8080, http('POST', '/oauth2/token', 200)))).to.deep.equal([]);
  });

  it("a UPnP control point polling its router (80 alike SOAP POSTs in 17 s, Windows' GetTotalBytesSent) raises nothing", () => {
    // As in SniperDZ-Pro/Cyber-Forensics-Workshop tcp_syn_flood.pcap: 192.168.1.175 -> 192.168.1.1:48640.
    const upnp = Array.from({ length: 80 }, (_, i) =>
      makeFlow({
        srcIp: '192.168.1.175',
        srcPort: 17100 + i,
        dstIp: '192.168.1.1',
        dstPort: 48640,
        firstSeenMs: T0 + i * 212,
        durationUs: 7400,
        fwdPayloadBytes: 623 + (i % 2) * 8,
        bwdPayloadBytes: 532 + (i % 2) * 15,
        app: 'http',
        appBy: 'content',
        http: {
          method: 'POST',
          host: '192.168.1.1:48640',
          uri: i % 2 ? '/upnp/control/WANCommonIFC1' : '/ctl/CmnIfCfg',
          userAgent: 'Microsoft-Windows/10.0 UPnP/1.0',
          status: 200,
          requests: 1,
        },
      }),
    );
    expect(judge(upnp)).to.deep.equal([]);
    // The same connections answered 401 (the router refusing them) would be guessing.
    const refused = upnp.map((f) => ({ ...f, http: { ...f.http!, status: 401 } }));
    expect(judge(refused)[0]).to.deep.include({ dstPort: 48640, count: 80, severity: 'high' });
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

describe('detect/detectors/brute-force: slow guessing on the long window', () => {
  /**
   * An attempt against 10.0.0.9:22 every `gapSec` seconds: a failed SSH password dialogue of ~3 KB lasting 11 s (as
   * hydra's libssh attempts in Trace-Share's SSH-Hydra capture), or what `over` makes of it.
   */
  const attempt = (i: number, gapSec: number, client = 'SSH-2.0-OpenSSH_9.6', over: Partial<FlowRecord> = {}): FlowRecord =>
    makeFlow({
      srcIp: '10.0.0.66',
      srcPort: 52000 + i,
      dstIp: '10.0.0.9',
      dstPort: 22,
      firstSeenMs: T0 + i * gapSec * 1000,
      durationUs: 11e6,
      fwdPayloadBytes: 1133,
      bwdPayloadBytes: 1863,
      app: 'ssh',
      appBy: 'content',
      ssh: { client, server: 'SSH-2.0-OpenSSH_6.7p1' },
      ...over,
    });
  /** Feeds the flows one batch each (as they end, one by one) and returns every finding. */
  const run = (flows: FlowRecord[], c = config.bruteForce) => {
    const d = new BruteForceDetector(c, 1000);
    return flows.flatMap((f, i) => d.observe([f]).map((finding) => ({ at: i, finding })));
  };

  it('35 attempts 40 s apart (never 8 within 120 s) raise a medium slow brute force from the 30th on, each attempt counted once', () => {
    const out = run(Array.from({ length: 35 }, (_, i) => attempt(i, 40)));
    expect(out.map((o) => o.at)).to.deep.equal([29, 30, 31, 32, 33, 34]);
    const first = out[0]!.finding;
    expect(first).to.deep.include({
      category: 'brute_force',
      severity: 'medium',
      dstPort: 22,
      count: 30,
      firstSeenMs: T0,
      lastSeenMs: T0 + 29 * 40_000 + 11_000,
    });
    expect(first.details).to.deep.include({ attemptsInWindow: 30, windowSec: 1800, threshold: 30, slow: true, loginService: true, sizeCv: 0 });
    expect(out.slice(1).map((o) => o.finding.count)).to.deep.equal([1, 1, 1, 1, 1]);
    expect(out[5]!.finding.details).to.deep.include({ attemptsInWindow: 35 });
  });

  it("hydra's pace (61 libssh attempts 20 s apart) is high by the tool banner; 29 attempts are not enough", () => {
    const out = run(Array.from({ length: 61 }, (_, i) => attempt(i, 20, 'SSH-2.0-libssh-0.6.3')));
    expect(out[0]).to.deep.include({ at: 29 });
    expect(out[0]!.finding).to.deep.include({ severity: 'high', count: 30 });
    expect(out[0]!.finding.details).to.deep.include({ toolBannerAttempts: 30, clientBanners: ['SSH-2.0-libssh-0.6.3'], slow: true });
    expect(out.reduce((sum, o) => sum + o.finding.count, 0)).to.equal(61);
    expect(run(Array.from({ length: 29 }, (_, i) => attempt(i, 20, 'SSH-2.0-libssh-0.6.3')))).to.deep.equal([]);
  });

  it('attempts leave the long window: 29, an hour of silence, 29 more raise nothing', () => {
    const flows = [...Array.from({ length: 29 }, (_, i) => attempt(i, 40)), ...Array.from({ length: 29 }, (_, i) => attempt(i + 120, 40))];
    expect(run(flows)).to.deep.equal([]);
  });

  it('a fast run then slow attempts: the long window reports only what the short one did not', () => {
    const fast = Array.from({ length: 8 }, (_, i) => attempt(i, 2));
    const slow = Array.from({ length: 25 }, (_, i) => attempt(i + 10, 40));
    const out = run([...fast, ...slow]);
    expect(out.map((o) => [o.at, o.finding.count, o.finding.details['slow']])).to.deep.equal([
      [7, 8, false],
      [29, 22, true],
      [30, 1, true],
      [31, 1, true],
      [32, 1, true],
    ]);
  });

  it('completed logins repeated (long sessions, large or server-heavy transfers, unlike sizes, not a login service) raise nothing', () => {
    const n = 40;
    // An interactive or scripted session that ran 45 s.
    expect(run(Array.from({ length: n }, (_, i) => attempt(i, 40, undefined, { durationUs: 45e6 })))).to.deep.equal([]);
    // git fetch over SSH: the server sends the pack (reply 10 times the client's bytes).
    expect(
      run(Array.from({ length: n }, (_, i) => attempt(i, 40, undefined, { durationUs: 2e6, fwdPayloadBytes: 1500, bwdPayloadBytes: 15000 }))),
    ).to.deep.equal([]);
    // rsync or scp of a file: over maxAttemptBytes.
    expect(run(Array.from({ length: n }, (_, i) => attempt(i, 40, undefined, { fwdPayloadBytes: 40000, bwdPayloadBytes: 2000 })))).to.deep.equal([]);
    // A monitoring check whose output size varies (size variation over maxSizeCv).
    expect(
      run(Array.from({ length: n }, (_, i) => attempt(i, 40, undefined, { fwdPayloadBytes: 1133 * (1 + (i % 4)), bwdPayloadBytes: 1863 * (1 + (i % 4)) }))),
    ).to.deep.equal([]);
    // Alike short connections to a port that is no login service, recognised as nothing: pollers.
    expect(run(Array.from({ length: n }, (_, i) => attempt(i, 40, undefined, { dstPort: 8081, app: null, appBy: null, ssh: null })))).to.deep.equal([]);
  });

  it('VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC=0 turns the slow path off; a shorter long window lets the attempts go sooner', () => {
    const flows = Array.from({ length: 35 }, (_, i) => attempt(i, 40));
    expect(run(flows, loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: '0' }).bruteForce)).to.deep.equal([]);
    // 35 attempts over 1360 s against a 900 s window (counted in 150 s buckets): at most 24 attempts in it.
    expect(run(flows, loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_WINDOW_SEC: '900' }).bruteForce)).to.deep.equal([]);
    expect(run(flows, loadDetectionConfig({ VIGIL_DETECT_BRUTE_LONG_MIN_ATTEMPTS: '20' }).bruteForce)[0]).to.deep.include({ at: 19 });
  });
});
