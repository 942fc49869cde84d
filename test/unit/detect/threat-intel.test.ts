import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { loadDetectionConfig } from '../../../src/config/detection.js';
import { ConfigError } from '../../../src/errors.js';
import { loadThreatIntel, ThreatIntelIndex } from '../../../src/detect/threat-intel.js';
import { tempDir } from '../../helpers/setup.js';

/** Writes `text` to a new file `name` in a temp dir; returns its path. */
function listFile(name: string, text: string | Buffer): string {
  const file = path.join(tempDir('intel-'), name);
  writeFileSync(file, text);
  return file;
}

describe('detect/threat-intel: loadThreatIntel()', () => {
  it('reads plain address and prefix lines with comments, counting malformed lines and where the first was', () => {
    const file = listFile(
      'drop.txt',
      [
        '# a comment line',
        '203.0.113.7',
        '198.51.100.0/24 ; SBL123 (Spamhaus DROP style)',
        '   ',
        '2001:db8:bad::/48   # inline comment',
        'not an address at all',
        '10.0.0.0/0',
        '300.1.2.3',
      ].join('\n'),
    );
    const index = loadThreatIntel([file]);
    expect(index.lists).to.deep.equal([{ list: 'drop.txt', file, addresses: 3, names: 0, malformed: 3, firstMalformedLine: 6 }]);
    expect(index.matchAddress('203.0.113.7')).to.deep.equal({ list: 'drop.txt', entry: '203.0.113.7' });
    expect(index.matchAddress('203.0.113.8')).to.equal(null);
    expect(index.matchAddress('198.51.100.200')).to.deep.equal({ list: 'drop.txt', entry: '198.51.100.0/24' });
    expect(index.matchAddress('198.51.101.1')).to.equal(null);
    expect(index.matchAddress('2001:db8:bad:ffff::1')).to.deep.equal({ list: 'drop.txt', entry: '2001:db8:bad::/48' });
    expect(index.matchAddress('2001:db8:bae::1')).to.equal(null);
    // "300.1.2.3" is malformed, not taken as a name.
    expect(index.matchName('300.1.2.3')).to.equal(null);
  });

  it('reads ipset save output (create lines are directives) and prefers the most specific prefix', () => {
    const file = listFile(
      'feodo.ipset',
      [
        'create feodo hash:net family inet hashsize 1024 maxelem 65536',
        'add feodo 192.0.2.0/24',
        'add feodo 192.0.2.66',
        'add feodo',
        'add feodo 192.0.2',
      ].join('\n'),
    );
    const index = loadThreatIntel([file]);
    expect(index.lists[0]).to.include({ addresses: 2, names: 0, malformed: 2, firstMalformedLine: 4 });
    expect(index.matchAddress('192.0.2.66')).to.deep.equal({ list: 'feodo.ipset', entry: '192.0.2.66' });
    expect(index.matchAddress('192.0.2.67')).to.deep.equal({ list: 'feodo.ipset', entry: '192.0.2.0/24' });
  });

  it('reads hosts files (the sink address is not an entry; localhost is skipped) and domain lists matching subdomains', () => {
    const hosts = listFile('hosts', ['127.0.0.1 localhost', '0.0.0.0 ads.bad.example tracker.bad.example', ':: ipv6.bad.example', '0.0.0.0 !!!'].join('\n'));
    const domains = listFile('domains.txt', ['evil.example', '*.c2.example.net', 'EVIL2.Example.', 'bad_label!'].join('\n'));
    const index = loadThreatIntel([hosts, domains]);
    expect(index.lists.map((l) => [l.list, l.names, l.malformed])).to.deep.equal([
      ['hosts', 2, 1],
      ['domains.txt', 3, 1],
    ]);
    expect(index.matchAddress('0.0.0.0')).to.equal(null);
    expect(index.matchAddress('127.0.0.1')).to.equal(null);
    expect(index.matchName('localhost')).to.equal(null);
    expect(index.matchName('ads.bad.example')).to.deep.equal({ list: 'hosts', entry: 'ads.bad.example' });
    expect(index.matchName('bad.example')).to.equal(null);
    expect(index.matchName('x.y.Evil.Example')).to.deep.equal({ list: 'domains.txt', entry: 'evil.example' });
    expect(index.matchName('notevil.example')).to.equal(null);
    expect(index.matchName('beacon.c2.example.net.')).to.deep.equal({ list: 'domains.txt', entry: 'c2.example.net' });
    expect(index.matchName('evil2.example')).to.deep.equal({ list: 'domains.txt', entry: 'evil2.example' });
  });

  it('keeps the first list that names an entry', () => {
    const index = new ThreatIntelIndex();
    index.addList('/a/one.txt', '203.0.113.7\nbad.example');
    index.addList('/b/two.txt', '203.0.113.7\nbad.example');
    expect(index.matchAddress('203.0.113.7')?.list).to.equal('one.txt');
    expect(index.matchName('bad.example')?.list).to.equal('one.txt');
    expect(index.size).to.deep.equal({ addresses: 1, names: 1 });
  });

  it('refuses a file it cannot read, naming the variable and the file', () => {
    const missing = path.join(tempDir('intel-'), 'nope.txt');
    expect(() => loadThreatIntel([missing]))
      .to.throw(ConfigError, `VIGIL_INTEL_FILES: cannot read threat list ${missing}: ENOENT`)
      .with.property('variable', 'VIGIL_INTEL_FILES');
  });

  it('refuses a file that is not text, naming the file and the line', () => {
    const file = listFile('blob.bin', Buffer.concat([Buffer.from('203.0.113.7\n198.51.100.1\n'), Buffer.from([0x41, 0x00, 0x42, 0x0a])]));
    expect(() => loadThreatIntel([file])).to.throw(ConfigError, `VIGIL_INTEL_FILES: threat list ${file} line 3 is not text`);
    const latin1 = listFile('latin1.txt', Buffer.from([0x61, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(() => loadThreatIntel([latin1])).to.throw(ConfigError, `threat list ${latin1} line 2 is not text`);
  });

  it('is configured by VIGIL_INTEL_FILES (comma list, resolved paths; none by default)', () => {
    expect(loadDetectionConfig({}).intelFiles).to.deep.equal([]);
    expect(loadDetectionConfig({ VIGIL_INTEL_FILES: ' /x/a.txt, rel/b.txt ,' }).intelFiles).to.deep.equal(['/x/a.txt', path.resolve('rel/b.txt')]);
  });
});
