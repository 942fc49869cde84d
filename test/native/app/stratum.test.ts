/**
 * Stratum (crypto-currency mining) recognised by its first message (native/app/stratum.cpp), end to end through the
 * real addon, in hand-built TCP captures; the messages are those of nDPI's mining.pcapng (EWBF's zcash subscribe, an
 * Ethereum proxy's eth_getWork) and of XMRig's Monero login.
 */
import { expect } from 'chai';
import path from 'node:path';
import { replayFile } from '../../../src/native/capture.js';
import { tcpSessions, type Segment } from '../../helpers/pcap-file.js';
import { tempDir } from '../../helpers/setup.js';

async function label(file: string, port: number, segments: Segment[]): Promise<string> {
  tcpSessions(file, [192, 168, 2, 148], [94, 23, 199, 191], [{ port, segments }]);
  const { flows } = await replayFile(file);
  expect(flows).to.have.length(1);
  const f = flows[0] as { app: string | null; appBy: string | null };
  return `${f.app}/${f.appBy}`;
}

const client = (text: string): Segment[] => [{ fromClient: true, payload: Buffer.from(text) }];

describe('native: Stratum recognised by content', () => {
  const dir = tempDir('vigil-stratum-');

  it('labels the mining.subscribe, eth_getWork and XMRig login messages stratum, on any port', async () => {
    const subscribe = '{"id":1,"method":"mining.subscribe","params":["EWBF 0.3.4b",null,"eu1-zcash.flypool.org","3333"]}\n';
    expect(await label(path.join(dir, 'subscribe.pcap'), 3333, client(subscribe))).to.equal('stratum/content');
    const getWork = '{"worker": "", "jsonrpc": "2.0", "params": [], "id": 3, "method": "eth_getWork"}\n';
    expect(await label(path.join(dir, 'getwork.pcap'), 9999, client(getWork))).to.equal('stratum/content');
    const login = ' {"id":1,"jsonrpc":"2.0","method":"login","params":{"login":"4BCeEPhodgPM","pass":"x","agent":"XMRig/6.21.0"}}\n';
    expect(await label(path.join(dir, 'login.pcap'), 443, client(login))).to.equal('stratum/content');
    // The pool speaking first (a capture that began mid-session): its job notification.
    const notify = '{"id":null,"method":"mining.notify","params":["1a2b",true]}\n';
    expect(await label(path.join(dir, 'notify.pcap'), 4444, [{ fromClient: false, payload: Buffer.from(notify) }])).to.equal('stratum/content');
  });

  it('leaves other JSON-RPC alone: an Ethereum node call, a login without a miner agent, a method named later than 512 bytes', async () => {
    expect(await label(path.join(dir, 'eth.pcap'), 8545, client('{"jsonrpc":"2.0","method":"eth_blockNumber","params":[],"id":1}'))).to.equal('null/null');
    expect(await label(path.join(dir, 'login-web.pcap'), 7000, client('{"method":"login","params":{"login":"alice","pass":"x"}}'))).to.equal('null/null');
    const late = `{"padding":"${'a'.repeat(520)}","method":"mining.subscribe"}`;
    expect(await label(path.join(dir, 'late.pcap'), 3333, client(late))).to.equal('null/null');
  });
});
