/** src/detect/detectors/probe-window.ts: the window and its tallies against a recount of the probes it holds. */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import { ProbeStore, ProbeWindow, UNANSWERED } from '../../../../src/detect/detectors/probe-window.js';

interface Probe {
  t: number;
  /** Address refs (address.ts): IPv4 as signed 32-bit integers, other addresses as text. */
  dst: number | string;
  service: number;
  unanswered: boolean;
}

/** Services: port * 256 + protocol, port 0 and 65535 included, and a few odd numbers a plain record could carry. */
const SERVICES = [0 * 256 + 6, 1 * 256 + 17, 22 * 256 + 6, 65535 * 256 + 17, 65535 * 256 + 255, 2 ** 24, 70000 * 256 + 6, 80.5];

describe('detect/detectors/probe-window: ProbeWindow', () => {
  it('keeps the probes the old filter and splice kept, and tallies and mayMatch() that match a recount', () => {
    const rnd = seededRandom(777);
    for (let run = 0; run < 30; run++) {
      const windowMs = 500 * (1 + rnd(8));
      const max = 5 + rnd(60);
      // Thresholds for mayMatch(): distinct services per destination, distinct destinations per service.
      const minServices = 1 + rnd(4);
      const minHosts = 1 + rnd(4);
      // Three windows cut from one store, their probes interleaved; now and then one is released (its source
      // forgotten) and a new one takes its place, so blocks are handed back and reused while the others grow.
      const store = new ProbeStore();
      const windows = [0, 1, 2].map(() => ({ w: new ProbeWindow(minServices, minHosts, store), ref: [] as Probe[] }));
      let now = 1_700_000_000_000;
      for (let batch = 0; batch < 50; batch++) {
        for (let k = rnd(30); k > 0; k--) {
          const slot = windows[rnd(3)] as { w: ProbeWindow; ref: Probe[] };
          const { w, ref } = slot;
          now += rnd(100);
          const p = {
            t: now - rnd(2) * rnd(2000),
            dst: rnd(2) ? `d${rnd(4)}` : ([0, -1, 1, -(2 ** 31), 2 ** 31 - 1] as const)[rnd(5)],
            service: SERVICES[rnd(SERVICES.length)] as number,
            unanswered: rnd(3) > 0,
          };
          w.push(p.t, p.dst, p.service, p.unanswered);
          ref.push(p);
          w.trimTo(max);
          if (ref.length > max) ref.splice(0, ref.length - max);
        }
        if (rnd(10) === 0) {
          const i = rnd(3);
          (windows[i] as { w: ProbeWindow }).w.release();
          windows[i] = { w: new ProbeWindow(minServices, minHosts, store), ref: [] };
        }
        for (const slot of windows) {
          const { w } = slot;
          if (batch % 3 === 0 && slot.ref.length > 0) w.tallies(); // tallies start at some point and are kept from then on
          if (slot.ref.length === 0 || rnd(2) === 0) continue;
          let latest = -Infinity;
          for (const p of slot.ref) if (p.t > latest) latest = p.t;
          const ref = (slot.ref = slot.ref.filter((p) => p.t >= latest - windowMs));
          w.evict(windowMs);
          expect(
            Array.from({ length: w.length }, (_, i) => ({ t: w.time(i), dst: w.dst(i), service: w.service(i), unanswered: (w.flags(i) & UNANSWERED) !== 0 })),
            `run ${run} batch ${batch}`,
          ).to.deep.equal(ref);
          expectTallies(w, ref, minServices, minHosts, `run ${run} batch ${batch}`);
        }
      }
    }
  });
});

/** The window's tallies and mayMatch() against a recount of `ref`, its probes. */
function expectTallies(w: ProbeWindow, ref: readonly Probe[], minServices: number, minHosts: number, what: string): void {
  const { byHost, byService } = w.tallies();
  const hosts = new Map<number | string, { probes: number; unanswered: number; distinct: Map<number, number> }>();
  const services = new Map<number, { probes: number; unanswered: number; distinct: Map<number | string, number> }>();
  for (const p of ref) {
    const h = hosts.get(p.dst) ?? { probes: 0, unanswered: 0, distinct: new Map<number, number>() };
    h.probes++;
    h.unanswered += p.unanswered ? 1 : 0;
    h.distinct.set(p.service, (h.distinct.get(p.service) ?? 0) + 1);
    hosts.set(p.dst, h);
    const s = services.get(p.service) ?? { probes: 0, unanswered: 0, distinct: new Map<string, number>() };
    s.probes++;
    s.unanswered += p.unanswered ? 1 : 0;
    s.distinct.set(p.dst, (s.distinct.get(p.dst) ?? 0) + 1);
    services.set(p.service, s);
  }
  const sorted = <K, V>(m: ReadonlyMap<K, V>): Array<[K, V]> => [...m].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const norm = <K>(m: ReadonlyMap<K, { probes: number; unanswered: number; distinct: number | Map<unknown, number> }>) =>
    sorted(m).map(([k, v]) => [k, v.probes, v.unanswered, typeof v.distinct === 'number' ? v.distinct : v.distinct.size]);
  expect(norm(byHost), what).to.deep.equal(norm(hosts));
  expect(norm(byService), what).to.deep.equal(norm(services));
  expect(byHost.size).to.be.above(0);
  const reachable = [...hosts.values()].some((h) => h.distinct.size >= minServices) || [...services.values()].some((v) => v.distinct.size >= minHosts);
  expect(w.mayMatch(), `${what}: mayMatch`).to.equal(reachable);
}
