/** `GET /api/flows`: the query and the stored flow summaries it lists. */
import { isIP } from 'node:net';
import { z } from 'zod';
import { isoTime } from './common.schema.js';

/** `GET /api/flows` query: newest first, a page of `limit` rows before the `before` cursor, narrowed by the filters. */
export const flowListQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,6}$/, { message: 'expected an integer between 1 and 500' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'expected an integer between 1 and 500' }).max(500, { message: 'expected an integer between 1 and 500' }))
    .default(50),
  before: z
    .string()
    .regex(/^\d{1,15}$/, { message: 'expected a positive integer' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'expected a positive integer' }))
    .optional(),
  ip: z
    .string()
    .refine((v) => isIP(v) !== 0, { message: 'expected an IPv4 or IPv6 address' })
    .optional(),
  name: z
    .string()
    .min(1, { message: 'expected 1 to 255 characters' })
    .max(255, { message: 'expected 1 to 255 characters' })
    .regex(/^[\x21-\x7e]+$/, { message: 'expected printable ASCII without spaces' })
    .optional(),
  app: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'expected an application label (letters, digits, . _ -)' })
    .optional(),
  /** Flows of the program with this process name (`comm`: 1 to 15 bytes as Linux keeps it), exact. */
  process: z
    .string()
    .regex(/^[\x20-\x7e]{1,15}$/, { message: 'expected a process name: 1 to 15 printable ASCII characters' })
    .optional(),
});

export type FlowListQuery = z.infer<typeof flowListQuery>;

/** A program as the sensor saw it: /proc's view of the process that owned a flow's local socket. */
export const processSchema = z.object({
  pid: z.number().int(),
  /** Process name (`comm`, at most 15 bytes, set by the program itself). */
  name: z.string().nullable(),
  /** Executable path. */
  exe: z.string().nullable(),
  /** User name of the real uid, and the uid. */
  user: z.string().nullable(),
  uid: z.number().int().nullable(),
  /** systemd unit or scope of the process's cgroup. */
  unit: z.string().nullable(),
  /** Container id named by the cgroup (docker, podman, containerd, cri-o). */
  container: z.string().nullable(),
});

/** One stored flow summary (a finished flow, or a snapshot of one still active: `state`). */
export const flowSchema = z.object({
  /** Row id: the cursor for `before`. */
  id: z.number().int(),
  /** The capture session's flow id (snapshots of one long flow repeat it). */
  flowId: z.number().int(),
  srcIp: z.string(),
  srcPort: z.number().int(),
  dstIp: z.string(),
  dstPort: z.number().int(),
  /** IP protocol number (6 TCP, 17 UDP, 1 ICMP, ...). */
  protocol: z.number().int(),
  packets: z.number().int(),
  /** IP-layer bytes, both directions. */
  bytes: z.number().int(),
  firstSeen: isoTime,
  lastSeen: isoTime,
  durationMs: z.number(),
  /** `active` for a snapshot of a flow still open, else `ended`. */
  state: z.enum(['active', 'ended']),
  /** Why the flow record was written: idle, active (timeout), fin, rst, evicted, flush, snapshot. */
  endReason: z.string(),
  /** Application label, null when unknown. */
  app: z.string().nullable(),
  /** The name the client knew the server by (SNI, HTTP Host, resolved name), null when none. */
  serverName: z.string().nullable(),
  /** Community ID v1, null when the application layer is off. */
  communityId: z.string().nullable(),
  /** The program that owned the flow's local socket (live capture on Linux); null when unknown and for replays. */
  process: processSchema.nullable(),
});

export const flowListSchema = z.object({
  flows: z.array(flowSchema),
  /** Pass as `before` for the next page; null on the last page. */
  nextBefore: z.number().int().nullable(),
});

export type Flow = z.infer<typeof flowSchema>;
export type FlowList = z.infer<typeof flowListSchema>;
