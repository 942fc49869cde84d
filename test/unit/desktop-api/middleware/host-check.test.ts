import { expect } from 'chai';
import { acceptedHostNames, hostName } from '../../../../src/desktop-api/middleware/host-check.js';

describe('desktop-api/middleware/host-check hostName()', () => {
  it('takes the name out of a Host header: no port, no brackets, lower case, no trailing dot', () => {
    expect(hostName('LocalHost:7878')).to.equal('localhost');
    expect(hostName('localhost.')).to.equal('localhost');
    expect(hostName('127.0.0.1:7878')).to.equal('127.0.0.1');
    expect(hostName('[::1]:7878')).to.equal('::1');
    expect(hostName('[FE80::1]')).to.equal('fe80::1');
    expect(hostName('desk.local:')).to.equal('desk.local');
  });

  it('refuses malformed values', () => {
    for (const bad of ['::1', '[::1', '[::1]x', 'localhost:80:80', 'a:b', '[]']) expect(hostName(bad), bad).to.equal(null);
  });
});

describe('desktop-api/middleware/host-check acceptedHostNames()', () => {
  it('localhost, the machine name (short, full, .local), a listen name and the configured names', () => {
    const names = acceptedHostNames({ allowedHosts: ['vigil.home.arpa'], listenHost: 'Desk.LAN', hostname: 'Desk.corp.example' });
    expect([...names].sort()).to.deep.equal(['desk', 'desk.corp.example', 'desk.lan', 'desk.local', 'localhost', 'vigil.home.arpa']);
    expect([...acceptedHostNames({ allowedHosts: [], listenHost: '0.0.0.0', hostname: 'box' })].sort()).to.deep.equal(['box', 'box.local', 'localhost']);
  });
});
