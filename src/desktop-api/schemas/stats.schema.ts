/** `GET /api/dashboard/stats` and `GET /api/traffic/stats`. */
import { z } from 'zod';
import { isoTime } from './common.schema.js';

const count = z.number().min(0);

export const dashboardStatsSchema = z.object({
  /** Packets and bytes seen since Vigil started (all capture sessions). */
  packets: count,
  bytes: count,
  /** Flows seen since start (finished + active). */
  connections: count,
  /** Distinct remote IPs with an open threat (detection updated it in the last 24 hours). */
  threats: count,
  /** IPs blocked now. */
  blocked: count,
  activeFlows: count,
  unacknowledgedAlerts: count,
  /** Over the last full second. */
  packetsPerSecond: count,
  bitsPerSecond: count,
  capture: z.object({ running: z.boolean(), source: z.enum(['live', 'replay']).nullable() }),
  at: isoTime,
});

const pbf = z.object({ packets: count, bytes: count, flows: count });
const domainEntry = z.object({ name: z.string(), bytes: count, packets: count, flows: count });
const appEntry = z.object({
  /** Application label (`dns`, `tls`, `quic`, `http`, `ssh`, ...). */
  app: z.string(),
  /** `content`: recognised from the payload; `port`: guessed from a well-known port. */
  by: z.enum(['content', 'port']),
  bytes: count,
  packets: count,
  flows: count,
});
const bucket = z.object({ t: isoTime, packets: count, bytes: count, flows: count });

/** One program's traffic: its process name and executable path (either may be null, not both). */
const programEntry = z.object({ name: z.string().nullable(), exe: z.string().nullable(), bytes: count, packets: count, flows: count });

export const trafficStatsSchema = z.object({
  totals: pbf,
  /** Keyed by protocol name: tcp, udp, icmp, icmpv6, other, non_ip. */
  protocols: z.record(z.string(), pbf),
  /** Hosts by bytes sent + received, at most 10. */
  topTalkers: z.array(z.object({ ip: z.string(), bytes: count, packets: count, flows: count, sentBytes: count, receivedBytes: count })),
  /** Responder ports by bytes, at most 10. */
  topPorts: z.array(z.object({ port: z.number().int(), protocol: z.enum(['tcp', 'udp']), bytes: count, packets: count, flows: count })),
  /**
   * Server names (TLS/QUIC SNI, HTTP Host or the name the client resolved, lower case) by bytes and by flows, at most 10
   * each; flows without a name are not counted. Since start, as the talkers; at most 10000 distinct names are tracked
   * (past that the smallest are dropped).
   */
  topDomains: z.object({ byBytes: z.array(domainEntry), byFlows: z.array(domainEntry) }),
  /**
   * Application labels by bytes and by flows, at most 10 each; one entry per (label, how it was found), flows without a
   * label are not counted. Empty when the application layer is off (`VIGIL_CAPTURE_APP_LAYER=off`).
   */
  topApplications: z.object({ byBytes: z.array(appEntry), byFlows: z.array(appEntry) }),
  /**
   * Programs (the processes that owned the flows' local sockets, one entry per executable path, else per process name)
   * by bytes and by flows, at most 10 each; flows without a process are not counted. Empty for replays and where
   * attribution is off or unsupported (`VIGIL_CAPTURE_PROCESS`, Linux only; docs/process.md).
   */
  topPrograms: z.object({ byBytes: z.array(programEntry), byFlows: z.array(programEntry) }),
  /**
   * Bytes/packets from the local side's point of view: outbound = sent by local hosts to remote ones, inbound =
   * received from remote; internal = local to local; external = neither end local (transit, replayed captures).
   */
  directions: z.object({ inbound: pbf, outbound: pbf, internal: pbf, external: pbf }),
  timeline: z.object({
    /** One entry per second for the last 300 seconds, oldest first (zeros where nothing was seen). */
    perSecond: z.array(bucket),
    /** One entry per minute with traffic in the last 24 hours, oldest first. */
    perMinute: z.array(bucket),
  }),
  capture: z.object({
    kernelDrops: count,
    interfaceDrops: count,
    decodeErrors: count,
    decodeErrorsByReason: z.record(z.string(), count),
    flowsEvicted: count,
    batchesDropped: count,
  }),
  at: isoTime,
});

export type DashboardStats = z.infer<typeof dashboardStatsSchema>;
export type TrafficStats = z.infer<typeof trafficStatsSchema>;
