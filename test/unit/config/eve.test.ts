import path from 'node:path';
import { expect } from 'chai';
import { loadEveConfig } from '../../../src/config/eve.js';
import { ConfigError } from '../../../src/errors.js';

describe('config/eve loadEveConfig()', () => {
  it('is off by default and with `off`; sizes default to 100 MiB, 5 kept, a 16 MiB queue', () => {
    expect(loadEveConfig({})).to.deep.equal({ file: undefined, maxBytes: 100 * 1048576, keep: 5, queueBytes: 16 * 1048576 });
    expect(loadEveConfig({ VIGIL_EVE_FILE: 'off' }).file).to.equal(undefined);
  });

  it('resolves the file and reads the limits', () => {
    const c = loadEveConfig({ VIGIL_EVE_FILE: 'logs/eve.json', VIGIL_EVE_MAX_MB: '1', VIGIL_EVE_KEEP: '0', VIGIL_EVE_QUEUE_MB: '2' });
    expect(c).to.deep.equal({ file: path.resolve('logs/eve.json'), maxBytes: 1048576, keep: 0, queueBytes: 2 * 1048576 });
  });

  for (const [name, value] of [
    ['VIGIL_EVE_MAX_MB', '0'],
    ['VIGIL_EVE_MAX_MB', 'big'],
    ['VIGIL_EVE_KEEP', '-1'],
    ['VIGIL_EVE_QUEUE_MB', '0.5'],
  ] as const) {
    it(`refuses ${name}=${value}, naming the variable`, () => {
      expect(() => loadEveConfig({ VIGIL_EVE_FILE: '/tmp/eve.json', [name]: value }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(new RegExp(`^${name}: expected an integer`));
    });
  }
});
