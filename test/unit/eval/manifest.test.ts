import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import {
  LIMITS,
  capturesDir,
  fileProblems,
  loadManifest,
  manifestSchema,
  setProblems,
  sha256,
  truthOf,
  type Manifest,
  type ManifestCapture,
} from '../../../eval/manifest.js';
import { ATTACK_FAMILIES } from '../../../eval/verdict.js';
import { tempDir } from '../../helpers/setup.js';

describe('eval: the capture manifest (eval/manifest.json)', () => {
  let manifest: Manifest;
  before(async () => {
    manifest = await loadManifest();
  });

  it('parses: every capture has a source with commit, path and licence, a sha256, a size, a split and ground truth', () => {
    for (const c of manifest.captures) {
      expect(c.source.url, c.file).to.equal(`https://${c.source.repository}/blob/${c.source.commit}/${c.source.path}`);
      expect(c.source.licence, c.file).to.match(/^(MIT|BSD-3-Clause|GPL-2\.0-only|GPL-3\.0|LGPL-3\.0|LicenseRef-[\w-]+)$/);
      expect(c.size, c.file).to.be.at.most(LIMITS.maxFileBytes);
    }
  });

  it('meets the issue: >= 30 attacks in >= 12 families, >= 10 benign, <= 60 MB, a reporting set with its own families and source', () => {
    expect(setProblems(manifest)).to.deep.equal([]);
    const attacks = manifest.captures.filter((c) => c.label === 'attack');
    expect(attacks.length).to.be.at.least(30);
    expect(new Set(attacks.map((c) => c.family)).size).to.be.at.least(12);
    expect(manifest.captures.filter((c) => c.label === 'benign').length).to.be.at.least(10);
    expect(manifest.captures.reduce((n, c) => n + c.size, 0)).to.be.at.most(LIMITS.maxTotalBytes);
  });

  // The capture files are not in the repository (data fetched from other repositories is not committed): `npm run eval`
  // checks every file against the manifest's size and sha256 before it replays anything (fileProblems, tested below).

  it('ground truth becomes the verdict input unchanged', () => {
    const c = manifest.captures.find((x) => x.file === 'sgr_arp_spoofing.pcap')!;
    expect(truthOf(c)).to.deep.equal({ label: 'attack', family: 'arp_spoofing', attackers: [], victims: ['10.0.0.153', '10.0.0.157'] });
    const b = manifest.captures.find((x) => x.label === 'benign')!;
    expect(truthOf(b)).to.deep.equal({ label: 'benign', family: b.family });
    expect(ATTACK_FAMILIES).to.include('c2_beacon');
  });
});

describe('eval: checking a manifest', () => {
  const base = (over: Partial<ManifestCapture> & { file: string }): Record<string, unknown> => ({
    split: 'reporting',
    label: 'benign',
    family: 'browsing',
    attackers: [],
    victims: [],
    description: 'd',
    source: {
      url: `https://github.com/o/r/blob/${'a'.repeat(40)}/p/${over.file}`,
      repository: 'github.com/o/r',
      commit: 'a'.repeat(40),
      path: `p/${over.file}`,
      licence: 'MIT',
      licenceFile: 'LICENSE',
    },
    size: 3,
    sha256: '0'.repeat(64),
    packets: 1,
    reused: false,
    namedInIssue: false,
    ...over,
  });

  it('rejects a capture without a licence, an attack without addresses, and LicenseRef terms left unquoted', () => {
    const noLicence = base({ file: 'a.pcap' });
    (noLicence.source as Record<string, unknown>).licence = '';
    expect(manifestSchema.safeParse({ captures: [noLicence] }).success).to.equal(false);
    const attack = base({ file: 'b.pcap', label: 'attack', family: 'port_scan' } as Partial<ManifestCapture> & { file: string });
    expect(manifestSchema.safeParse({ captures: [attack] }).success).to.equal(false);
    const ref = base({ file: 'c.pcap' });
    (ref.source as Record<string, unknown>).licence = 'LicenseRef-x';
    expect(manifestSchema.safeParse({ captures: [ref] }).success).to.equal(false);
    (ref.source as Record<string, unknown>).licenceNote = 'the terms, quoted';
    expect(manifestSchema.safeParse({ captures: [ref] }).success).to.equal(true);
  });

  it('names a missing file, a wrong size and a wrong sha256', async () => {
    const dir = tempDir('eval-');
    await writeFile(path.join(dir, 'good.pcap'), 'abc');
    await writeFile(path.join(dir, 'long.pcap'), 'abcd');
    await writeFile(path.join(dir, 'bad.pcap'), 'abd');
    const good = sha256(Buffer.from('abc'));
    const m = manifestSchema.parse({
      captures: [
        base({ file: 'good.pcap', sha256: good }),
        base({ file: 'long.pcap', sha256: good }),
        base({ file: 'bad.pcap', sha256: good }),
        base({ file: 'gone.pcap', sha256: good }),
      ],
    });
    const problems = await fileProblems(m, dir);
    expect(problems).to.have.length(3);
    expect(problems[0]).to.equal('long.pcap: 4 bytes, the manifest says 3');
    expect(problems[1]).to.match(/^bad\.pcap: sha256 [0-9a-f]{64}, the manifest says /);
    expect(problems[2]).to.equal('gone.pcap: missing');
  });

  it('names an oversized file, a duplicate, and a set below the issue minimums', () => {
    const m = manifestSchema.parse({ captures: [base({ file: 'x.pcap', size: LIMITS.maxFileBytes + 1 }), base({ file: 'x.pcap' })] });
    const problems = setProblems(m);
    expect(problems).to.include(`x.pcap has ${LIMITS.maxFileBytes + 1} bytes, more than ${LIMITS.maxFileBytes}`);
    expect(problems).to.include('x.pcap is listed twice');
    expect(problems).to.include('0 attack captures, fewer than 30');
    expect(problems).to.include('2 benign captures, fewer than 10');
  });

  it('reads the captures directory from VIGIL_EVAL_CAPTURES_DIR', () => {
    expect(capturesDir({ VIGIL_EVAL_CAPTURES_DIR: '/data/eval' })).to.equal('/data/eval');
    expect(capturesDir({})).to.match(/eval[/\\]captures$/);
  });
});
