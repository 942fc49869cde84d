/**
 * Network-namespace fixtures for tests that need the real kernel (root only): two namespaces joined by a veth pair
 * with IPv4 and IPv6 addresses, echo servers (TCP and UDP, dual-stack) running inside a namespace, and probes that
 * connect or send datagrams from inside a namespace (optionally from a chosen source address).
 *
 * Node cannot enter a namespace itself, so servers and probes are small Node programs started with
 * `ip netns exec NS node -e ...`. Everything is removed by `destroy()`, which also kills the servers.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

let counter = 0;

/** Runs a command in the root namespace (argument list, no shell), with optional stdin and extra environment. */
export async function sh(file: string, args: string[], input?: string, env?: Record<string, string>): Promise<string> {
  const options = { encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024, ...(env ? { env: { ...process.env, ...env } } : {}) };
  if (input === undefined) return (await execFileP(file, args, options)).stdout;
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, options, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    );
    child.stdin?.end(input);
  });
}

/** Runs a command inside namespace `ns`. */
export function nsExec(ns: string, file: string, args: string[], input?: string, env?: Record<string, string>): Promise<string> {
  return sh('ip', ['netns', 'exec', ns, file, ...args], input, env);
}

/** Addresses of one side of the pair. */
export interface SideAddresses {
  v4: string[];
  v6: string[];
}

/** Two namespaces joined by a veth pair. */
export interface NetnsPair {
  /** Namespace names (unique per process and call). */
  a: string;
  b: string;
  addrs: { a: SideAddresses; b: SideAddresses };
  /** Kills servers started with {@link NetnsPair.serve} and deletes both namespaces (and thus the veth pair). */
  destroy(): Promise<void>;
  /**
   * Starts echo servers on `port` in namespace `ns`: TCP dual-stack on [::], UDP on each of `udpAddresses` (one socket
   * per address, so replies leave from the address the datagram was sent to); resolves once all listen.
   */
  serve(ns: string, port: number, udpAddresses: string[]): Promise<void>;
}

/**
 * Creates namespaces `<tag>a-<pid>-<n>` and `<tag>b-...`, a veth pair `veth0` in each, the given addresses (IPv4 /24,
 * IPv6 /64, DAD disabled so they are usable at once) and loopback up.
 */
export async function createNetnsPair(tag: string, addrs: { a: SideAddresses; b: SideAddresses }): Promise<NetnsPair> {
  const n = ++counter;
  const a = `${tag}a-${process.pid}-${n}`;
  const b = `${tag}b-${process.pid}-${n}`;
  const servers: ChildProcess[] = [];
  const destroy = async (): Promise<void> => {
    for (const s of servers) if (s.exitCode === null && s.pid !== undefined) s.kill('SIGKILL');
    for (const ns of [a, b]) await sh('ip', ['netns', 'del', ns]).catch(() => undefined);
  };
  try {
    await sh('ip', ['netns', 'add', a]);
    await sh('ip', ['netns', 'add', b]);
    await sh('ip', ['link', 'add', 'veth0', 'netns', a, 'type', 'veth', 'peer', 'name', 'veth0', 'netns', b]);
    for (const [ns, side] of [
      [a, addrs.a],
      [b, addrs.b],
    ] as const) {
      await nsExec(ns, 'ip', ['link', 'set', 'lo', 'up']);
      for (const v4 of side.v4) await nsExec(ns, 'ip', ['addr', 'add', `${v4}/24`, 'dev', 'veth0']);
      for (const v6 of side.v6) await nsExec(ns, 'ip', ['-6', 'addr', 'add', `${v6}/64`, 'dev', 'veth0', 'nodad']);
      await nsExec(ns, 'ip', ['link', 'set', 'veth0', 'up']);
    }
  } catch (err) {
    await destroy();
    throw err;
  }

  const serve = (ns: string, port: number, udpAddresses: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const arg = JSON.stringify({ port, udp: udpAddresses });
      const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', SERVER_SOURCE, arg], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      servers.push(child);
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`echo server in ${ns} exited with ${String(code)}`)));
    });

  return { a, b, addrs, destroy, serve };
}

/** One connectivity check: TCP connect + echo, or a UDP datagram + echo. */
export interface Probe {
  proto: 'tcp' | 'udp';
  host: string;
  port: number;
  /** Source address to bind (to test traffic "from" a given address). */
  source?: string;
}

/**
 * Runs the probes in parallel from inside `ns`; each yields true when the echo came back within `timeoutMs`.
 * A blocked outgoing packet fails at once (EPERM from the OUTPUT hook); a blocked incoming one times out.
 */
export async function probe(ns: string, probes: Probe[], timeoutMs = 800): Promise<boolean[]> {
  const out = await nsExec(ns, process.execPath, ['--input-type=module', '-e', PROBE_SOURCE, JSON.stringify({ probes, timeoutMs })]);
  return JSON.parse(out.trim().split('\n').pop() ?? '[]') as boolean[];
}

/**
 * Echo server: TCP on [::]:PORT (dual-stack), UDP on ADDR:PORT for each given address (a socket bound to the wildcard
 * would answer from the primary address, not the one the client used). Prints "ready" once all listen.
 */
const SERVER_SOURCE = `
import net from 'node:net';
import dgram from 'node:dgram';
const { port, udp } = JSON.parse(process.argv[process.argv.length - 1]);
let up = 0;
const ready = () => { if (++up === 1 + udp.length) process.stdout.write('ready\\n'); };
net.createServer((s) => { s.on('data', (d) => s.end(d)); s.on('error', () => {}); }).listen({ host: '::', port, ipv6Only: false }, ready);
for (const addr of udp) {
  const u = dgram.createSocket(net.isIPv6(addr) ? 'udp6' : 'udp4');
  u.on('message', (m, r) => u.send(m, r.port, r.address, () => {}));
  u.on('error', () => {});
  u.bind(port, addr, ready);
}
`;

/** Runs probes from JSON argv; prints a JSON array of booleans. */
const PROBE_SOURCE = `
import net from 'node:net';
import dgram from 'node:dgram';
const { probes, timeoutMs } = JSON.parse(process.argv[process.argv.length - 1]);
const tcp = (p) => new Promise((resolve) => {
  const s = net.connect({ host: p.host, port: p.port, ...(p.source ? { localAddress: p.source } : {}) });
  const done = (ok) => { clearTimeout(t); s.destroy(); resolve(ok); };
  const t = setTimeout(() => done(false), timeoutMs);
  s.on('connect', () => s.write('ping'));
  s.on('data', (d) => done(d.toString() === 'ping'));
  s.on('error', () => done(false));
});
const udp = (p) => new Promise((resolve) => {
  const s = dgram.createSocket(net.isIPv6(p.host) ? 'udp6' : 'udp4');
  const done = (ok) => { clearTimeout(t); try { s.close(); } catch {} resolve(ok); };
  const t = setTimeout(() => done(false), timeoutMs);
  s.on('message', (m) => done(m.toString() === 'ping'));
  s.on('error', () => done(false));
  const send = () => s.send('ping', p.port, p.host, (err) => { if (err) done(false); });
  if (p.source) s.bind(0, p.source, send); else send();
});
const results = await Promise.all(probes.map((p) => (p.proto === 'tcp' ? tcp(p) : udp(p))));
process.stdout.write(JSON.stringify(results) + '\\n');
`;
