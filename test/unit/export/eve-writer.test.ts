import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EveWriter } from '../../../src/export/eve-writer.js';
import { tempDir } from '../../helpers/setup.js';

const lines = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n'), `${file} ends with a newline`).to.equal(true);
  return text.slice(0, -1).split('\n');
};
/** A record of exactly `bytes` bytes with its newline, numbered. */
const record = (i: number, bytes = 100): string =>
  JSON.stringify({ i, pad: '' }).replace('""', `"${'x'.repeat(bytes - 1 - JSON.stringify({ i, pad: '' }).length)}"`);

describe('export/eve-writer EveWriter', () => {
  it('rotates by size between lines: eve.json, .1 .. .keep newest first, the oldest deleted, no line split or lost but the deleted', async () => {
    const file = path.join(tempDir('eve-'), 'eve.json');
    const w = new EveWriter({ file, maxBytes: 1000, keep: 2, queueBytes: 1 << 20 });
    for (let i = 0; i < 45; i++) expect(w.write(record(i))).to.equal(true);
    await w.close();
    // 45 records of 100 bytes: a file fills to 1000 bytes (10 records) before it rotates, so the files were 0-9, 10-19,
    // 20-29, 30-39 and 40-44; with keep 2 the first two were deleted.
    expect(lines(file).map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([40, 41, 42, 43, 44]);
    expect(lines(`${file}.1`).map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    expect(lines(`${file}.2`).map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    expect(existsSync(`${file}.3`)).to.equal(false);
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).to.be.at.most(1000);
    expect(w.stats()).to.include({ written: 45, bytes: 4500, dropped: 0, rotations: 4, errors: 0, queuedBytes: 0 });
  });

  it('keep 0 deletes a full file; a line longer than the limit is written alone to a fresh file', async () => {
    const file = path.join(tempDir('eve-'), 'eve.json');
    const w = new EveWriter({ file, maxBytes: 250, keep: 0, queueBytes: 1 << 20 });
    w.write(record(1));
    w.write(record(2, 400));
    w.write(record(3));
    await w.close();
    expect(lines(file).map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([3]);
    expect(existsSync(`${file}.1`)).to.equal(false);
    expect(w.stats()).to.include({ written: 3, rotations: 2 });
  });

  it('reopen() after the file was moved away (logrotate, then SIGHUP) writes to a new file at the path, losing no line', async () => {
    const dir = tempDir('eve-');
    const file = path.join(dir, 'eve.json');
    const w = new EveWriter({ file, maxBytes: 1 << 20, keep: 3, queueBytes: 1 << 20 });
    for (let i = 0; i < 5; i++) w.write(record(i));
    await w.flush();
    renameSync(file, path.join(dir, 'eve.json-20261127'));
    // Written before the reopen: still the moved file's (the open descriptor follows it), as with Suricata.
    w.write(record(5));
    const reopened = w.reopen();
    for (let i = 6; i < 9; i++) w.write(record(i));
    await reopened;
    await w.close();
    const moved = lines(path.join(dir, 'eve.json-20261127')).map((l) => (JSON.parse(l) as { i: number }).i);
    const fresh = lines(file).map((l) => (JSON.parse(l) as { i: number }).i);
    expect(moved).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(fresh).to.deep.equal([6, 7, 8]);
    expect(w.stats()).to.include({ written: 9, dropped: 0, reopens: 1 });
  });

  it('never waits: past queueBytes a line is dropped and counted, and the queued ones are written', async () => {
    const file = path.join(tempDir('eve-'), 'eve.json');
    const w = new EveWriter({ file, maxBytes: 1 << 20, keep: 1, queueBytes: 350 });
    const accepted = [0, 1, 2, 3, 4].map((i) => w.write(record(i)));
    expect(accepted).to.deep.equal([true, true, true, false, false]);
    expect(w.stats()).to.include({ dropped: 2, queuedBytes: 300 });
    await w.close();
    expect(lines(file)).to.have.length(3);
    expect(w.write(record(9))).to.equal(false);
    expect(w.stats()).to.include({ written: 3, dropped: 3 });
  });

  it('a path it cannot open drops the queued lines and counts the error, and writes again once it can', async () => {
    const dir = tempDir('eve-');
    const file = path.join(dir, 'missing-dir', 'eve.json');
    const logged: string[] = [];
    const w = new EveWriter({ file, maxBytes: 1 << 20, keep: 1, queueBytes: 1 << 20, log: (m) => logged.push(m) });
    w.write(record(1));
    await w.flush();
    expect(w.stats()).to.include({ written: 0, dropped: 1, errors: 1 });
    expect(logged).to.have.length(1);
    expect(logged[0]).to.contain('missing-dir');
    mkdirSync(path.dirname(file));
    w.write(record(2));
    await w.close();
    expect(lines(file).map((l) => (JSON.parse(l) as { i: number }).i)).to.deep.equal([2]);
    expect(w.stats()).to.include({ written: 1, dropped: 1, errors: 1 });
  });
});
