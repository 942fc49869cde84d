import { expect } from 'chai';
import { shutdownSignal } from '../../../src/cli/shutdown-signal.js';

describe('shutdownSignal', function () {
  const counts = (): number[] => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

  it('keeps a signal that came before anyone awaited it, reports it once, and removes its handlers with the first one', async () => {
    const before = counts();
    const seen: string[] = [];
    const shutdown = shutdownSignal((s) => seen.push(s));
    expect(counts()).to.deep.equal(before.map((n) => n + 1));
    expect(shutdown.requested).to.equal(false);
    process.emit('SIGTERM', 'SIGTERM'); // during "start-up": nobody awaits `received` yet
    expect(shutdown.requested).to.equal(true);
    expect(counts(), 'a second signal takes the default action again').to.deep.equal(before);
    expect(await shutdown.received).to.equal('SIGTERM');
    expect(seen).to.deep.equal(['SIGTERM']);
    shutdown.dispose();
    expect(counts()).to.deep.equal(before);
  });

  it('answers SIGINT as well, and dispose() without a signal removes both handlers', async () => {
    const before = counts();
    const a = shutdownSignal();
    a.dispose();
    a.dispose();
    expect(counts()).to.deep.equal(before);
    const b = shutdownSignal();
    process.emit('SIGINT', 'SIGINT');
    expect(await b.received).to.equal('SIGINT');
    expect(counts()).to.deep.equal(before);
  });
});
