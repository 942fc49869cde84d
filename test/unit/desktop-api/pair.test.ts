import { expect } from 'chai';
import { pairingInfo, reachableHost } from '../../../src/cli/commands/pair.js';
import { tempDir } from '../../helpers/setup.js';

describe('vigil pair pairingInfo()', () => {
  it('shows the configured host, the token and a vigil:// link; warns when the API is loopback-only', () => {
    const dir = tempDir();
    const a = pairingInfo({ VIGIL_DATA_DIR: dir, VIGIL_DESKTOP_PORT: '9000' });
    expect(a.url).to.equal('http://127.0.0.1:9000');
    expect(a.token).to.have.length(43);
    expect(a.link).to.equal(`vigil://pair?url=${encodeURIComponent('http://127.0.0.1:9000')}&token=${a.token}`);
    expect(a.warning).to.match(/VIGIL_DESKTOP_HOST=0\.0\.0\.0/);
    const b = pairingInfo({ VIGIL_DATA_DIR: dir, VIGIL_DESKTOP_HOST: '192.168.1.20' });
    expect(b.token).to.equal(a.token);
    expect(b.url).to.equal('http://192.168.1.20:7878');
    expect(b.warning).to.equal(null);
    expect(pairingInfo({ VIGIL_DATA_DIR: dir, VIGIL_DESKTOP_HOST: '::1' }).url).to.equal('http://[::1]:7878');
    expect(pairingInfo({ VIGIL_DATA_DIR: dir, VIGIL_DESKTOP_HOST: '10.0.0.5', VIGIL_REQUIRE_TOKEN: 'never' }).warning).to.match(/without the token/);
  });

  it('reachableHost() picks a non-internal IPv4 when bound to all addresses', () => {
    const h = reachableHost({ host: '0.0.0.0' });
    expect(h).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    expect(reachableHost({ host: '10.1.2.3' })).to.equal('10.1.2.3');
  });
});
