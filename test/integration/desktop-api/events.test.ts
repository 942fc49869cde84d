/** `GET /api/events`: alert, stats, monitoring and firewall events with ids, resumable with Last-Event-ID. */
import { expect } from 'chai';
import { createTestContext, pcap, type TestContext } from './context.js';
import { openSse, type SseEvent } from './sse-client.js';

const seqOf = (e: Pick<SseEvent, 'id'>): number => Number(e.id.split('-')[1]);

/** The data of an `alert` event. */
interface AlertEvent {
  action: 'created' | 'updated' | 'acknowledged' | 'deleted';
  alert: { id: number; category: string; srcIp: string; source: string; acknowledged: boolean; acknowledgedAt: string | null };
}

describe('desktop API event stream', function () {
  this.timeout(30_000);
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ env: { VIGIL_RATE_LIMIT_MAX: '5' }, heartbeatMs: 200 });
  });
  after(async () => ctx.close());

  it('streams stats every second plus monitoring, alert and firewall events, each with an increasing id', async () => {
    const sse = await openSse(`${ctx.url}/api/events`);
    try {
      expect(sse.status).to.equal(200);
      expect(sse.headers['content-type']).to.match(/^text\/event-stream/);
      expect(sse.headers['cache-control']).to.contain('no-cache');
      expect(sse.headers['x-ratelimit-reset']).to.match(/^\d+$/); // normalised before the stream writes its head
      await ctx.replayToEnd(); // monitoring events (start, end) and a second of stats
      await ctx.firewall.block({ ip: '203.0.113.50', reason: 'sse', actor: 'cli' });
      await sse.waitFor((ev) => ev.some((e) => e.event === 'firewall') && ev.filter((e) => e.event === 'stats').length >= 2, 5000);
      const kinds = new Set(sse.events.map((e) => e.event));
      expect([...kinds]).to.include.members(['monitoring', 'stats', 'firewall']);
      const seqs = sse.events.map(seqOf);
      expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).to.equal(seqs.length);
      const fw = JSON.parse(sse.events.find((e) => e.event === 'firewall')!.data) as { action: string; ip: string };
      expect(fw).to.include({ action: 'blocked', ip: '203.0.113.50' });
      const stats = JSON.parse(sse.events.filter((e) => e.event === 'stats').at(-1)!.data) as { packets: number };
      expect(stats.packets).to.equal(3138);
      await sse.waitFor(() => sse.comments.includes('keep-alive'), 2000);
    } finally {
      sse.close();
      await ctx.firewall.unblock('203.0.113.50', 'cli');
    }
  });

  it('a client reconnecting with Last-Event-ID receives exactly the events it missed, in order', async () => {
    const first = await openSse(`${ctx.url}/api/events`);
    await ctx.firewall.block({ ip: '203.0.113.51', actor: 'cli' });
    await first.waitFor((ev) => ev.some((e) => e.event === 'firewall'));
    const lastSeen = first.events.at(-1)!;
    first.close();
    await new Promise((r) => setTimeout(r, 100));

    // While disconnected: an acknowledged alert and two firewall changes.
    const missedFrom = Date.now();
    await ctx.firewall.unblock('203.0.113.51', 'cli');
    await ctx.firewall.block({ ip: '203.0.113.52', actor: 'cli' });
    await ctx.firewall.unblock('203.0.113.52', 'cli');
    expect(Date.now() - missedFrom).to.be.lessThan(60_000);

    const resumed = await openSse(`${ctx.url}/api/events`, { 'Last-Event-ID': lastSeen.id });
    try {
      await resumed.waitFor((ev) => ev.filter((e) => e.event === 'firewall').length >= 3);
      const seqs = resumed.events.map(seqOf);
      expect(seqs[0]).to.equal(seqOf(lastSeen) + 1); // nothing lost, nothing repeated
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).to.equal(seqs[i - 1] + 1);
      const fw = resumed.events.filter((e) => e.event === 'firewall').map((e) => JSON.parse(e.data) as { action: string; ip: string });
      expect(fw.slice(0, 3)).to.deep.equal([
        { ...fw[0], action: 'unblocked', ip: '203.0.113.51' },
        { ...fw[1], action: 'blocked', ip: '203.0.113.52' },
        { ...fw[2], action: 'unblocked', ip: '203.0.113.52' },
      ]);
    } finally {
      resumed.close();
    }
    // The query-string form works the same way.
    const viaQuery = await openSse(`${ctx.url}/api/events?lastEventId=${encodeURIComponent(lastSeen.id)}`);
    try {
      await viaQuery.waitFor((ev) => ev.length > 0);
      expect(seqOf(viaQuery.events[0])).to.equal(seqOf(lastSeen) + 1);
    } finally {
      viaQuery.close();
    }
  });

  it('a stream counts as one request for the rate limit however many events it carries', async () => {
    ctx.rateLimitDb.clear();
    const sse = await openSse(`${ctx.url}/api/events`);
    try {
      await sse.waitFor((ev) => ev.filter((e) => e.event === 'stats').length >= 3, 6000);
      const r = await ctx.request('GET', '/api/health');
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-ratelimit-remaining')).to.equal('3'); // 5 - stream - this request
    } finally {
      sse.close();
    }
  });
});

describe('desktop API event stream: alerts', function () {
  this.timeout(30_000);
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ env: { VIGIL_CAPTURE_FILE: pcap('ndpi_nmap_syn_portscan.pcap') } });
  });
  after(async () => ctx.close());

  it('an alert stored by detection and its acknowledgement through the API arrive as `alert` events with ids', async () => {
    const sse = await openSse(`${ctx.url}/api/events`);
    try {
      await ctx.replayToEnd();
      await sse.waitFor((ev) => ev.some((e) => e.event === 'alert'), 5000);
      const alertEvents = () => sse.events.filter((e) => e.event === 'alert').map((e) => ({ id: e.id, ...(JSON.parse(e.data) as AlertEvent) }));
      const created = alertEvents().find((e) => e.action === 'created' && e.alert.category === 'port_scan');
      expect(created, JSON.stringify(alertEvents())).not.to.equal(undefined);
      expect(created!.id).to.match(/^[a-z0-9]+-\d+$/);
      expect(created!.alert).to.include({ srcIp: '172.16.0.8', source: 'rule', acknowledged: false, acknowledgedAt: null });
      const stored = (await ctx.request<{ srcIp: string; category: string }>('GET', `/api/alerts/${created!.alert.id}`)).body;
      expect(stored).to.include({ srcIp: '172.16.0.8', category: 'port_scan' });

      const ack = await ctx.request<{ acknowledgedAt: string }>('POST', `/api/alerts/${created!.alert.id}/acknowledge`);
      expect(ack.status).to.equal(200);
      await sse.waitFor((ev) => ev.some((e) => e.event === 'alert' && (JSON.parse(e.data) as AlertEvent).action === 'acknowledged'));
      const acked = alertEvents().find((e) => e.action === 'acknowledged')!;
      expect(acked.alert).to.include({ id: created!.alert.id, acknowledged: true, acknowledgedAt: ack.body.acknowledgedAt });
      expect(seqOf(acked)).to.be.greaterThan(seqOf(created!));
    } finally {
      sse.close();
    }
  });

  it('resuming after more events than the server holds (1000) gives a reset event to refetch, then live events', async () => {
    const fw = (i: number) => ({ action: 'blocked' as const, ip: `198.51.100.${i % 250}`, reason: null, source: 'cli', at: new Date().toISOString() });
    const first = await openSse(`${ctx.url}/api/events`);
    ctx.events.emit('firewall', fw(0));
    await first.waitFor((ev) => ev.some((e) => e.event === 'firewall'));
    const lastSeen = first.events.at(-1)!;
    first.close();
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 1; i <= 1005; i++) ctx.events.emit('firewall', fw(i)); // pushes the client's next event out of the buffer

    const resumed = await openSse(`${ctx.url}/api/events`, { 'Last-Event-ID': lastSeen.id });
    try {
      await resumed.waitFor((ev) => ev.length > 0);
      const reset = resumed.events[0];
      expect(reset.event).to.equal('reset');
      const data = JSON.parse(reset.data) as { reason: string; lastEventId: string; oldestEventId: string };
      expect(data).to.include({ reason: 'gap', lastEventId: lastSeen.id });
      expect(seqOf({ id: data.oldestEventId })).to.be.greaterThan(seqOf(lastSeen) + 1); // events were lost
      expect(seqOf(reset)).to.be.at.least(seqOf(lastSeen) + 1005); // the newest id: a later reconnect resumes from here
      expect(resumed.events.filter((e) => e.event === 'firewall')).to.deep.equal([]); // no stale replay after the reset
      ctx.events.emit('firewall', fw(9999));
      await resumed.waitFor((ev) => ev.some((e) => e.event === 'firewall'));
      expect(seqOf(resumed.events.find((e) => e.event === 'firewall')!)).to.be.greaterThan(seqOf(reset));
    } finally {
      resumed.close();
    }

    // An id from another run of the server is a reset too (nothing can be replayed with certainty).
    const foreign = await openSse(`${ctx.url}/api/events?lastEventId=zzz0-12`);
    try {
      await foreign.waitFor((ev) => ev.length > 0);
      expect(foreign.events[0].event).to.equal('reset');
      expect(JSON.parse(foreign.events[0].data)).to.include({ reason: 'unknown_id', lastEventId: 'zzz0-12' });
    } finally {
      foreign.close();
    }
  });
});
