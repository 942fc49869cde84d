/**
 * The capture set's manifest (eval/manifest.json): per capture its source (URL, repository, commit, path, licence),
 * size, sha256, split and ground truth. Read and checked here; the runner and the tests share it.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ATTACK_FAMILIES, BENIGN_KINDS, type Truth } from './verdict.js';

/** The eval folder (this file's directory). */
export const EVAL_DIR = path.dirname(fileURLToPath(import.meta.url));
export const MANIFEST_PATH = path.join(EVAL_DIR, 'manifest.json');
/** Where the captures are read from: `VIGIL_EVAL_CAPTURES_DIR`, else eval/captures. */
export function capturesDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.VIGIL_EVAL_CAPTURES_DIR;
  return dir !== undefined && dir !== '' ? path.resolve(dir) : path.join(EVAL_DIR, 'captures');
}

/** Issue 15's limits on the capture set. */
export const LIMITS = Object.freeze({
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 60 * 1024 * 1024,
  minAttacks: 30,
  minAttackFamilies: 12,
  minBenign: 10,
});

const ip = z.string().refine((s) => /^[0-9a-f:.]+$/i.test(s) && (s.includes('.') || s.includes(':')), 'an IP address');
const hex40 = z.string().regex(/^[0-9a-f]{40}$/);

const sourceSchema = z.object({
  url: z.url(),
  repository: z.string().regex(/^github\.com\/[\w.-]+\/[\w.-]+$/),
  commit: hex40,
  path: z.string().min(1),
  /** SPDX identifier, or LicenseRef-* with `licenceNote` quoting the terms. */
  licence: z.string().min(1),
  /** The file in the repository the licence was read from. */
  licenceFile: z.string().min(1),
  licenceNote: z.string().optional(),
});

const common = {
  file: z.string().regex(/^[\w.-]+\.(pcap|pcapng)$/),
  split: z.enum(['tuning', 'reporting']),
  description: z.string().min(1),
  source: sourceSchema,
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  packets: z.number().int().positive(),
  /** Also in /work/shared/data/pcaps (developers have seen it). */
  reused: z.boolean(),
  /** Issue 15 describes how Vigil handled it. */
  namedInIssue: z.boolean(),
};

const attackSchema = z.object({
  ...common,
  label: z.literal('attack'),
  family: z.enum(ATTACK_FAMILIES),
  attackers: z.array(ip),
  victims: z.array(ip),
  /** The scan's kind (`vertical`, `icmp_sweep`...), for scans. */
  kind: z.string().optional(),
  attackerMac: z.string().optional(),
});

const benignSchema = z.object({
  ...common,
  label: z.literal('benign'),
  family: z.enum(BENIGN_KINDS),
  attackers: z.array(ip).length(0),
  victims: z.array(ip).length(0),
});

export const captureSchema = z
  .discriminatedUnion('label', [attackSchema, benignSchema])
  .refine((c) => c.label === 'benign' || c.attackers.length + c.victims.length > 0, 'an attack names at least one attacker or victim')
  .refine((c) => !c.source.licence.startsWith('LicenseRef-') || (c.source.licenceNote ?? '') !== '', 'a LicenseRef licence quotes its terms');

export const manifestSchema = z.object({ $comment: z.string().optional(), captures: z.array(captureSchema).min(1) });

export type ManifestCapture = z.infer<typeof captureSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

export async function loadManifest(file: string = MANIFEST_PATH): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

/** The ground truth the verdict takes. */
export function truthOf(c: ManifestCapture): Truth {
  return c.label === 'attack' ? { label: 'attack', family: c.family, attackers: c.attackers, victims: c.victims } : { label: 'benign', family: c.family };
}

/** What is wrong with the set as a whole (limits, duplicates, split rules); empty when nothing is. */
export function setProblems(m: Manifest): string[] {
  const problems: string[] = [];
  const files = new Set<string>();
  let total = 0;
  for (const c of m.captures) {
    if (files.has(c.file)) problems.push(`${c.file} is listed twice`);
    files.add(c.file);
    total += c.size;
    if (c.size > LIMITS.maxFileBytes) problems.push(`${c.file} has ${c.size} bytes, more than ${LIMITS.maxFileBytes}`);
    if (!c.source.url.includes(c.source.commit) || !c.source.url.endsWith(c.source.path)) problems.push(`${c.file}: the URL does not name its commit and path`);
  }
  if (total > LIMITS.maxTotalBytes) problems.push(`the captures have ${total} bytes, more than ${LIMITS.maxTotalBytes}`);
  const attacks = m.captures.filter((c) => c.label === 'attack');
  const families = new Set(attacks.map((c) => c.family));
  const benign = m.captures.filter((c) => c.label === 'benign');
  if (attacks.length < LIMITS.minAttacks) problems.push(`${attacks.length} attack captures, fewer than ${LIMITS.minAttacks}`);
  if (families.size < LIMITS.minAttackFamilies) problems.push(`${families.size} attack families, fewer than ${LIMITS.minAttackFamilies}`);
  if (benign.length < LIMITS.minBenign) problems.push(`${benign.length} benign captures, fewer than ${LIMITS.minBenign}`);
  const tuning = m.captures.filter((c) => c.split === 'tuning');
  const reporting = m.captures.filter((c) => c.split === 'reporting');
  const tuningFamilies = new Set(tuning.filter((c) => c.label === 'attack').map((c) => c.family));
  const tuningSources = new Set(tuning.map((c) => c.source.repository));
  if (!reporting.some((c) => c.label === 'attack' && !tuningFamilies.has(c.family)))
    problems.push('the reporting set has no attack family absent from the tuning set');
  if (!reporting.some((c) => !tuningSources.has(c.source.repository))) problems.push('the reporting set has no source absent from the tuning set');
  if (!reporting.some((c) => c.label === 'benign')) problems.push('the reporting set has no benign capture');
  if (reporting.some((c) => c.reused)) problems.push('a reused capture (seen by developers) is in the reporting set');
  return problems;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Checks every listed file in `dir` against its size and sha256; returns what does not match (empty when all do). */
export async function fileProblems(m: Manifest, dir: string): Promise<string[]> {
  const problems: string[] = [];
  for (const c of m.captures) {
    const file = path.join(dir, c.file);
    try {
      const st = await stat(file);
      if (st.size !== c.size) {
        problems.push(`${c.file}: ${st.size} bytes, the manifest says ${c.size}`);
        continue;
      }
      const digest = sha256(await readFile(file));
      if (digest !== c.sha256) problems.push(`${c.file}: sha256 ${digest}, the manifest says ${c.sha256}`);
    } catch (err) {
      problems.push(`${c.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : String(err)}`);
    }
  }
  return problems;
}
