/**
 * SIP recognised by its first line (native/app/sip.cpp), end to end through the real addon: a request or a status line
 * labels the flow `sip` by content on any port, which the beacon detector's allowlist reads (a phone's REGISTER
 * refreshes and keep-alives are periodic by design). Hand-built TCP captures (tcpSessions).
 */
import { expect } from 'chai';
import path from 'node:path';
import { replayFile } from '../../../src/native/capture.js';
import { tcpSessions, type Segment } from '../../helpers/pcap-file.js';
import { tempDir } from '../../helpers/setup.js';

const CLIENT = [192, 168, 1, 2];
const SERVER = [212, 242, 33, 35];

async function firstFlow(file: string, port: number, segments: Segment[]): Promise<{ app: string | null; appBy: string | null }> {
  tcpSessions(file, CLIENT, SERVER, [{ port, segments }]);
  const { flows } = await replayFile(file);
  expect(flows).to.have.length(1);
  const f = flows[0] as { app: string | null; appBy: string | null };
  return { app: f.app, appBy: f.appBy };
}

const register = Buffer.from(
  'REGISTER sip:sip.example.net SIP/2.0\r\nVia: SIP/2.0/TCP 192.168.1.2:5060;branch=z9hG4bK776asdhds\r\n' +
    'From: <sip:alice@example.net>;tag=1928301774\r\nTo: <sip:alice@example.net>\r\nCall-ID: a84b4c76e66710\r\n' +
    'CSeq: 1 REGISTER\r\nContact: <sip:alice@192.168.1.2:5060>\r\nExpires: 3600\r\nContent-Length: 0\r\n\r\n',
);
const ok = Buffer.from('SIP/2.0 200 OK\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n');

describe('native: SIP recognised by content', () => {
  const dir = tempDir('vigil-sip-');

  it('labels a REGISTER and its 200 OK `sip` by content on a port that is not 5060', async () => {
    const f = await firstFlow(path.join(dir, 'register.pcap'), 5080, [
      { fromClient: true, payload: register },
      { fromClient: false, payload: ok },
    ]);
    expect(f).to.deep.equal({ app: 'sip', appBy: 'content' });
  });

  it('labels `OPTIONS sip:` (a keep-alive ping) sip, not http, and a server that speaks first by its status line', async () => {
    const options = Buffer.from('OPTIONS sip:carol@chicago.example.com SIP/2.0\r\nCSeq: 63104 OPTIONS\r\n\r\n');
    expect(await firstFlow(path.join(dir, 'options.pcap'), 5060, [{ fromClient: true, payload: options }])).to.deep.equal({ app: 'sip', appBy: 'content' });
    expect(await firstFlow(path.join(dir, 'status.pcap'), 15060, [{ fromClient: false, payload: ok }])).to.deep.equal({ app: 'sip', appBy: 'content' });
  });

  it('leaves HTTP OPTIONS on port 5060 http, and unrecognised bytes there a port guess', async () => {
    const http = Buffer.from('OPTIONS * HTTP/1.1\r\nHost: example.net\r\n\r\n');
    expect(await firstFlow(path.join(dir, 'http.pcap'), 5060, [{ fromClient: true, payload: http }])).to.deep.equal({ app: 'http', appBy: 'content' });
    const lower = Buffer.from('register sip:sip.example.net SIP/2.0\r\n\r\n'); // methods are case-sensitive
    expect(await firstFlow(path.join(dir, 'other.pcap'), 5060, [{ fromClient: true, payload: lower }])).to.deep.equal({ app: 'sip', appBy: 'port' });
  });
});
