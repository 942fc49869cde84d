/** Time source of the desktop API's services, injectable so tests can control it. */

/** Epoch milliseconds now. */
export interface Clock {
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
