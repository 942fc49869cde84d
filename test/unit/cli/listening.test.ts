import { createServer } from 'node:net';
import { expect } from 'chai';
import { listenError, whenListening } from '../../../src/cli/listening.js';
import { ConflictError } from '../../../src/errors.js';

describe('listenError()', () => {
  it('turns EADDRINUSE into a ConflictError naming the address and the port variable', () => {
    const err = listenError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', address: '127.0.0.1', port: 7878 }), 'VIGIL_DESKTOP_PORT');
    expect(err).to.be.instanceOf(ConflictError);
    expect(err).to.include({
      code: 'address_in_use',
      status: 409,
      message: '127.0.0.1:7878 is already in use (another Vigil? stop it, or set VIGIL_DESKTOP_PORT to another port)',
    });
  });

  it('puts an IPv6 address in brackets', () => {
    const err = listenError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', address: '::', port: 8787 }), 'VIGIL_WEB_PORT') as Error;
    expect(err.message).to.equal('[::]:8787 is already in use (another Vigil? stop it, or set VIGIL_WEB_PORT to another port)');
  });

  it('returns any other error unchanged', () => {
    const eacces = Object.assign(new Error('listen EACCES'), { code: 'EACCES', address: '0.0.0.0', port: 80 });
    expect(listenError(eacces, 'VIGIL_WEB_PORT')).to.equal(eacces);
    expect(listenError('text', 'VIGIL_WEB_PORT')).to.equal('text');
  });
});

describe('whenListening()', () => {
  it('resolves once the server listens, and rejects with the translated error when the port is taken', async () => {
    const first = createServer().listen(0, '127.0.0.1');
    await whenListening(first, 'VIGIL_WEB_PORT');
    const { port } = first.address() as { port: number };
    try {
      const second = createServer().listen(port, '127.0.0.1');
      const err = await whenListening(second, 'VIGIL_WEB_PORT').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ConflictError);
      expect((err as Error).message).to.equal(`127.0.0.1:${port} is already in use (another Vigil? stop it, or set VIGIL_WEB_PORT to another port)`);
    } finally {
      first.close();
    }
  });
});
