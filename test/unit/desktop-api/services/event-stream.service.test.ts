import { expect } from 'chai';
import { EventStreamService, formatEvent } from '../../../../src/desktop-api/services/event-stream.service.js';
import { EventBus } from '../../../../src/events.js';

describe('desktop-api/services/EventStreamService', () => {
  const fire = (bus: EventBus, n: number): void => {
    for (let i = 0; i < n; i++) bus.emit('firewall', { action: 'blocked', ip: `192.0.2.${i}`, reason: null, source: 'cli', at: 'x' });
  };

  it('numbers bus events and delivers them to subscribers', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 10, 'boot1');
    const got: string[] = [];
    const off = hub.subscribe((e) => got.push(e.id));
    fire(bus, 2);
    bus.emit('stats', { packets: 1 });
    off();
    fire(bus, 1);
    expect(got).to.deep.equal(['boot1-1', 'boot1-2', 'boot1-3']);
    hub.close();
  });

  it('resume(): nothing without an id, the events after a known id while none was lost', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 5, 'boot2');
    fire(bus, 8); // ids 1..8, buffer keeps 4..8
    expect(hub.resume(undefined)).to.deep.equal({ reset: null, events: [] });
    expect(hub.resume('boot2-6').events.map((e) => e.seq)).to.deep.equal([7, 8]);
    expect(hub.resume('boot2-8')).to.deep.equal({ reset: null, events: [] });
    expect(hub.resume('boot2-3').events.map((e) => e.seq)).to.deep.equal([4, 5, 6, 7, 8]); // 4 is the oldest held: no gap
    expect(hub.resume('boot2-3').reset).to.equal(null);
    hub.close();
  });

  it('resume(): a reset instead of a silent gap when the id is older than the buffer, from another run or malformed', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 5, 'boot3');
    fire(bus, 8); // buffer keeps 4..8: events 2 and 3 are gone for a client that saw 1
    const gap = hub.resume('boot3-1');
    expect(gap.events).to.deep.equal([]);
    expect(gap.reset).to.include({ id: 'boot3-8', event: 'reset' });
    expect(JSON.parse(gap.reset!.data)).to.deep.equal({ reason: 'gap', lastEventId: 'boot3-1', oldestEventId: 'boot3-4' });
    expect(formatEvent(gap.reset!)).to.equal(`id: boot3-8\nevent: reset\ndata: ${gap.reset!.data}\n\n`);
    for (const id of ['older-3', 'garbage', 'boot3-99']) {
      const r = hub.resume(id);
      expect(r.events, id).to.deep.equal([]);
      expect(JSON.parse(r.reset!.data), id).to.deep.equal({ reason: 'unknown_id', lastEventId: id, oldestEventId: 'boot3-4' });
    }
    fire(bus, 1);
    expect(hub.resume('boot3-8').events.map((e) => e.seq)).to.deep.equal([9]); // resuming from the reset's id loses nothing
    hub.close();
    const fresh = new EventStreamService(new EventBus(), 5, 'boot4');
    expect(fresh.resume('boot4-0')).to.deep.equal({ reset: null, events: [] });
    expect(fresh.resume('boot3-8').reset).to.include({ id: 'boot4-0' });
    expect(JSON.parse(fresh.resume('boot3-8').reset!.data)).to.include({ reason: 'unknown_id', oldestEventId: null });
    fresh.close();
  });

  it('close() ends every client and detaches from the bus', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 5, 'b');
    let ended = 0;
    hub.subscribe(
      () => undefined,
      () => ended++,
    );
    hub.subscribe(
      () => undefined,
      () => ended++,
    );
    hub.close();
    expect(ended).to.equal(2);
    fire(bus, 1);
    expect(hub.resume('b-0')).to.deep.equal({ reset: null, events: [] });
  });

  it('formatEvent() writes id, event and one data line', () => {
    expect(formatEvent({ id: 'b-3', seq: 3, event: 'alert', data: '{"a":1}' })).to.equal('id: b-3\nevent: alert\ndata: {"a":1}\n\n');
  });
});
