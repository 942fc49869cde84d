/** src/detect/detectors/probe-window.ts: the window and its tallies against a recount of the probes it holds. */
import { expect } from 'chai';
import { seededRandom } from '../../../helpers/random.js';
import { ProbeWindow, UNANSWERED } from '../../../../src/detect/detectors/probe-window.js';

interface Probe {
  t: number;
  dst: string;
  service: number;
  unanswered: boolean;
}

describe('detect/detectors/probe-window: ProbeWindow', () => {
  it('keeps the probes the old filter and splice kept, and tallies that match a recount', () => {
    const rnd = seededRandom(777);
    for (let run = 0; run < 30; run++) {
      const windowMs = 500 * (1 + rnd(8));
      const max = 5 + rnd(60);
      const w = new ProbeWindow();
      let ref: Probe[] = [];
      let now = 1_700_000_000_000;
      for (let batch = 0; batch < 50; batch++) {
        for (let k = rnd(10); k > 0; k--) {
          now += rnd(300);
          const p = { t: now - rnd(2) * rnd(2000), dst: `d${rnd(6)}`, service: (1 + rnd(5)) * 256 + (rnd(2) ? 6 : 17), unanswered: rnd(3) > 0 };
          w.push(p.t, p.dst, p.service, p.unanswered);
          ref.push(p);
          w.trimTo(max);
          if (ref.length > max) ref.splice(0, ref.length - max);
        }
        if (batch % 3 === 0 && ref.length > 0) w.tallies(); // tallies start at some point and are kept from then on
        if (ref.length === 0 || rnd(2) === 0) continue;
        let latest = -Infinity;
        for (const p of ref) if (p.t > latest) latest = p.t;
        ref = ref.filter((p) => p.t >= latest - windowMs);
        w.evict(windowMs);
        expect(Array.from({ length: w.length }, (_, i) => ({ t: w.t[i], dst: w.dst[i], service: w.service[i], unanswered: ((w.flags[i] as number) & UNANSWERED) !== 0 })), `run ${run} batch ${batch}`).to.deep.equal(ref);
        const { byHost, byService } = w.tallies();
        const hosts = new Map<string, { probes: number; unanswered: number; distinct: Map<number, number> }>();
        const services = new Map<number, { probes: number; unanswered: number; distinct: Map<string, number> }>();
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
        const sorted = <K, V>(m: Map<K, V>): Array<[K, V]> => [...m].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        const norm = <K>(m: Map<K, { probes: number; unanswered: number; distinct: Map<unknown, number> }>) =>
          sorted(m).map(([k, v]) => [k, v.probes, v.unanswered, sorted(v.distinct)]);
        expect(norm(byHost)).to.deep.equal(norm(hosts));
        expect(norm(byService)).to.deep.equal(norm(services));
      }
    }
  });
});
