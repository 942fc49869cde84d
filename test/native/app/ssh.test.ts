/**
 * SSH version exchange (native/app/ssh.cpp) through the test-only `_parseSsh` export. Real banners from
 * test/fixtures/pcaps/zeek_ssh_password_guessing.pcap with tshark 4.0's `ssh.protocol` for them
 * (`tshark -r FILE -Y ssh.protocol -T fields -e frame.number -e ssh.protocol`), RFC 4253 §4.2 cases, and every prefix.
 */
import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const ssh = (s: string | Buffer): Binding.ParsedSsh => addon._parseSsh(typeof s === 'string' ? Buffer.from(s, 'latin1') : s);

const BANNERS = [
  // zeek_ssh_password_guessing.pcap frame 4, client 192.168.56.1:55470 (21 bytes); tshark ssh.protocol:
  { source: 'frame 4 (client)', hex: '5353482d322e302d4f70656e5353485f362e320d0a', protocol: 'SSH-2.0-OpenSSH_6.2' },
  // frame 6, server 192.168.56.103:22 (32 bytes)
  {
    source: 'frame 6 (server)',
    hex: '5353482d322e302d4f70656e5353485f362e3770312044656269616e2d330d0a',
    protocol: 'SSH-2.0-OpenSSH_6.7p1 Debian-3',
  },
];

const SSH_STATUSES = ['ssh_ok', 'ssh_need_more', 'ssh_not_ssh', 'ssh_bad_banner'];

describe('ParseSshBanner (native/app/ssh.cpp)', () => {
  for (const b of BANNERS) {
    it(`matches tshark's ssh.protocol on zeek_ssh_password_guessing.pcap ${b.source}`, () => {
      expect(ssh(Buffer.from(b.hex, 'hex'))).to.deep.equal({ status: 'ssh_ok', looksLikeSsh: true, banner: b.protocol, truncated: false });
    });
  }

  it('parses every prefix: need_more with the line so far until the LF, then the banner', () => {
    for (const b of BANNERS) {
      const bytes = Buffer.from(b.hex, 'hex');
      for (let n = 0; n <= bytes.length; n++) {
        const r = ssh(bytes.subarray(0, n));
        const where = `${b.source}, first ${n} bytes`;
        expect(SSH_STATUSES, where).to.include(r.status);
        expect(r.status, where).to.equal(n === bytes.length ? 'ssh_ok' : 'ssh_need_more');
        expect(b.protocol.startsWith(r.banner), where).to.equal(true);
        expect(r.looksLikeSsh, where).to.equal(n >= 4);
      }
    }
  });

  it('skips the lines a server may send before its identification (RFC 4253 §4.2)', () => {
    const r = ssh('Welcome to the lab\r\nauthorised use only\r\nSSH-2.0-libssh_0.9.6\r\n');
    expect(r).to.include({ status: 'ssh_ok', banner: 'SSH-2.0-libssh_0.9.6', looksLikeSsh: false });
    expect(ssh('Welcome\r\nSSH-2.0-x').status).to.equal('ssh_need_more');
    expect(ssh('Welcome\r\nSS').status).to.equal('ssh_need_more');
    expect(ssh('Welcome').status).to.equal('ssh_need_more');
  });

  it('accepts a bare LF, SSH-1.99 and a comment after the software version', () => {
    expect(ssh('SSH-1.99-Cisco-1.25\n')).to.include({ status: 'ssh_ok', banner: 'SSH-1.99-Cisco-1.25' });
    expect(ssh('SSH-2.0-dropbear_2020.81 some comment\r\n')).to.include({ status: 'ssh_ok', banner: 'SSH-2.0-dropbear_2020.81 some comment' });
  });

  it('rejects banners without a software version or with control characters, and binary data', () => {
    expect(ssh('SSH-2.0\r\n').status).to.equal('ssh_bad_banner');
    expect(ssh('SSH--x\r\n').status).to.equal('ssh_bad_banner');
    expect(ssh('SSH-2.0-a\x01b\r\n').status).to.equal('ssh_bad_banner');
    expect(ssh('SSH-2.0-a\x01').status).to.equal('ssh_bad_banner');
    expect(ssh(Buffer.from('16030100a5010000a103', 'hex')).status).to.equal('ssh_not_ssh'); // a TLS ClientHello
    expect(ssh('x\n'.repeat(40)).status).to.equal('ssh_not_ssh'); // more pre-banner lines than allowed
  });

  it('caps the banner at 255 bytes and flags the cut', () => {
    const long = `SSH-2.0-${'v'.repeat(300)}`;
    expect(ssh(`${long}\r\n`)).to.include({ status: 'ssh_ok', banner: long.slice(0, 255), truncated: true });
  });
});
