import { expect } from 'chai';
import { toAdapterEntry } from '../../../src/firewall/context.js';

describe('firewall/context', () => {
  describe('toAdapterEntry()', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const expiresIn = (ms: number): string => new Date(at.getTime() + ms).toISOString();
    const kernelTimeouts = { maxTimeoutSeconds: 3600 };

    it('keeps the key, the family and whether it is a prefix; a permanent block has no timeout', () => {
      expect(toAdapterEntry(kernelTimeouts, { ip: '2001:db8::/48', family: 6, expires_at: null }, at)).to.deep.equal({
        key: '2001:db8::/48',
        family: 6,
        isPrefix: true,
        timeoutSeconds: null,
      });
      expect(toAdapterEntry(kernelTimeouts, { ip: '192.0.2.1', family: 4, expires_at: null }, at)).to.deep.equal({
        key: '192.0.2.1',
        family: 4,
        isPrefix: false,
        timeoutSeconds: null,
      });
    });

    it('turns the remaining lifetime into whole seconds, rounded up, at least 1', () => {
      const timeout = (ms: number): number | null =>
        toAdapterEntry(kernelTimeouts, { ip: '192.0.2.1', family: 4, expires_at: expiresIn(ms) }, at).timeoutSeconds;
      expect(timeout(1500)).to.equal(2);
      expect(timeout(60_000)).to.equal(60);
      expect(timeout(0)).to.equal(1);
      expect(timeout(-5000)).to.equal(1);
      expect(timeout(3_600_000)).to.equal(3600);
    });

    it('leaves the expiry to the sweep when it is beyond the backend maximum or the backend has no timeouts', () => {
      expect(toAdapterEntry(kernelTimeouts, { ip: '192.0.2.1', family: 4, expires_at: expiresIn(3_601_000) }, at).timeoutSeconds).to.equal(null);
      expect(toAdapterEntry({ maxTimeoutSeconds: 0 }, { ip: '192.0.2.1', family: 4, expires_at: expiresIn(60_000) }, at).timeoutSeconds).to.equal(null);
    });
  });
});
