/**
 * SIGINT/SIGTERM for long-running commands, listened to from the moment the command starts rather than once it is up.
 * A signal that arrives during start-up (a supervisor or test that stops the process as soon as it announces itself
 * can win the race against the next statement) is kept and honoured when start-up is done, instead of the default
 * action killing the process halfway. The first signal removes the handlers, so a second one ends the process at once
 * (Ctrl-C twice).
 *
 * Usage:
 *   const shutdown = shutdownSignal((signal) => log(`${signal}, shutting down`));
 *   try {
 *     const running = await startSomething();
 *     if (!shutdown.requested) announce(running);
 *     await shutdown.received;
 *     await running.close();
 *   } finally {
 *     shutdown.dispose();
 *   }
 */

/** See the module comment. */
export interface ShutdownSignal {
  /** Resolves with the first SIGINT or SIGTERM received after {@link shutdownSignal} was called. */
  readonly received: Promise<NodeJS.Signals>;
  /** True once a signal has been received. */
  readonly requested: boolean;
  /** Removes the handlers if no signal came (idempotent). */
  dispose(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** Starts listening for SIGINT and SIGTERM; `onSignal` runs once, with the first one. */
export function shutdownSignal(onSignal?: (signal: NodeJS.Signals) => void): ShutdownSignal {
  let requested = false;
  let resolve!: (signal: NodeJS.Signals) => void;
  const received = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const dispose = (): void => {
    for (const s of SIGNALS) process.off(s, handler);
  };
  function handler(signal: NodeJS.Signals): void {
    dispose();
    if (requested) return;
    requested = true;
    onSignal?.(signal);
    resolve(signal);
  }
  for (const s of SIGNALS) process.on(s, handler);
  return {
    received,
    get requested() {
      return requested;
    },
    dispose,
  };
}
