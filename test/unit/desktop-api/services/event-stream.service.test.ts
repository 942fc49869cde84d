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

  it('missedSince(): nothing without an id, the events after a known id, everything buffered for another run', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 5, 'boot2');
    fire(bus, 8); // ids 1..8, buffer keeps 4..8
    expect(hub.missedSince(undefined)).to.deep.equal([]);
    expect(hub.missedSince('boot2-6').map((e) => e.seq)).to.deep.equal([7, 8]);
    expect(hub.missedSince('boot2-8')).to.deep.equal([]);
    expect(hub.missedSince('boot2-1').map((e) => e.seq)).to.deep.equal([4, 5, 6, 7, 8]);
    expect(hub.missedSince('older-3').map((e) => e.seq)).to.deep.equal([4, 5, 6, 7, 8]);
    expect(hub.missedSince('garbage').length).to.equal(5);
    hub.close();
  });

  it('close() ends every client and detaches from the bus', () => {
    const bus = new EventBus();
    const hub = new EventStreamService(bus, 5, 'b');
    let ended = 0;
    hub.subscribe(() => undefined, () => ended++);
    hub.subscribe(() => undefined, () => ended++);
    hub.close();
    expect(ended).to.equal(2);
    fire(bus, 1);
    expect(hub.missedSince('b-0')).to.deep.equal([]);
  });

  it('formatEvent() writes id, event and one data line', () => {
    expect(formatEvent({ id: 'b-3', seq: 3, event: 'alert', data: '{"a":1}' })).to.equal('id: b-3\nevent: alert\ndata: {"a":1}\n\n');
  });
});
