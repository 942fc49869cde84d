import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { loadOrCreatePairingToken, tokenMatches } from '../../../../src/desktop-api/services/pairing.service.js';
import { tempDir } from '../../../helpers/setup.js';

describe('desktop-api/services/pairing.service', () => {
  it('loadOrCreatePairingToken() creates a random 0600 token once and then reuses it', () => {
    const file = path.join(tempDir(), 'sub', 'pairing-token');
    const a = loadOrCreatePairingToken(file);
    expect(a).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(loadOrCreatePairingToken(file)).to.equal(a);
    expect(readFileSync(file, 'utf8').trim()).to.equal(a);
    const other = loadOrCreatePairingToken(path.join(tempDir(), 'pairing-token'));
    expect(other).to.not.equal(a);
  });

  it('tightens a token file that others can read, and replaces a truncated one', () => {
    const dir = tempDir();
    const file = path.join(dir, 'pairing-token');
    const a = loadOrCreatePairingToken(file);
    chmodSync(file, 0o644);
    expect(loadOrCreatePairingToken(file)).to.equal(a);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    writeFileSync(file, 'short\n');
    const b = loadOrCreatePairingToken(file);
    expect(b).to.not.equal('short');
    expect(b).to.have.length(43);
  });

  it('tokenMatches() accepts only the exact token', () => {
    const t = 'A'.repeat(43);
    expect(tokenMatches(t, t)).to.equal(true);
    expect(tokenMatches(`${t}A`, t)).to.equal(false);
    expect(tokenMatches(t.slice(1), t)).to.equal(false);
    expect(tokenMatches('B'.repeat(43), t)).to.equal(false);
    expect(tokenMatches('', t)).to.equal(false);
  });
});
