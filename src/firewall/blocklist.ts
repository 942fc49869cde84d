/**
 * Blocking and unblocking addresses, and answering which are blocked. A request is validated and checked against
 * protected addresses (`rules.ts`) before any command runs, refusals are audited, and the change itself runs in the
 * queue: applied in the OS first and stored second (an OS failure stores nothing and answers 503), then published as
 * an event and audited.
 */
import { codePointName, findUnsafeChar } from '../domain/control-chars.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { deleteBlockedIp, upsertBlockedIp } from '../store/repos/blocked-ip.repo.js';
import type { BlockedIpRow } from '../store/tables/blocked-ip.table.js';
import { publishChange, recordAudit } from './audit.js';
import { forgetBlock, loadBlocks, dropOsListing, osFailure, rememberBlock, toAdapterEntry, type FirewallContext } from './context.js';
import { lookupAddress, overlaps, parseAddress, type ParsedAddress } from '../net/cidr.js';
import { assertBlockable, type ProtectedAddressProvider } from './rules.js';
import type { BlockedEntry, FirewallService } from './types.js';

/**
 * Longest accepted block reason (characters, after trimming). A reason is one line of printable text: control
 * characters, DEL, C1 and bidirectional controls are refused (`domain/control-chars.ts`), since reasons are printed by
 * `vigil firewall list` and `audit`.
 */
export const MAX_REASON_LENGTH = 500;
/** Longest accepted durationSeconds: ten years. */
export const MAX_DURATION_SECONDS = 10 * 365 * 24 * 3600;

/** The blocklist operations of {@link FirewallService}. */
export type Blocklist = Pick<FirewallService, 'block' | 'unblock' | 'list' | 'isBlocked'>;

/** True when `r` is a block that has not expired at `ctx.now()` (read only when `r` has an expiry). */
function isLive(r: BlockedIpRow | undefined, ctx: FirewallContext): boolean {
  return r !== undefined && (r.expires_at === null || r.expires_at > ctx.now().toISOString());
}

function validateReason(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string') throw new ValidationError('reason must be a string', [{ path: 'reason', message: 'expected a string' }]);
  const trimmed = reason.trim();
  if (trimmed.length > MAX_REASON_LENGTH) {
    throw new ValidationError(`reason is longer than ${MAX_REASON_LENGTH} characters`, [
      { path: 'reason', message: `at most ${MAX_REASON_LENGTH} characters` },
    ]);
  }
  const unsafe = findUnsafeChar(trimmed);
  if (unsafe) {
    throw new ValidationError(
      `reason contains the control character ${codePointName(unsafe.codePoint)} at character ${unsafe.position}; a reason is one line of printable text`,
      [
        {
          path: 'reason',
          message: 'no control characters (U+0000-U+001F incl. tab and newlines, U+007F-U+009F) or bidirectional controls (U+202A-U+202E, U+2066-U+2069)',
        },
      ],
    );
  }
  return trimmed === '' ? null : trimmed;
}

function validateDuration(d: unknown): number | null {
  if (d === undefined || d === null) return null;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_DURATION_SECONDS) {
    throw new ValidationError(`durationSeconds must be an integer between 1 and ${MAX_DURATION_SECONDS}`, [
      { path: 'durationSeconds', message: `an integer between 1 and ${MAX_DURATION_SECONDS}` },
    ]);
  }
  return d;
}

/** The blocklist over a firewall context; `protectedAddresses` is asked on every block request. */
export function createBlocklist(ctx: FirewallContext, protectedAddresses: ProtectedAddressProvider): Blocklist {
  const { adapter, state } = ctx;

  function toEntry(row: BlockedIpRow): BlockedEntry {
    return { ip: row.ip, reason: row.reason, blockedAt: row.blocked_at, expiresAt: row.expires_at, source: row.source, enforced: adapter.enforces };
  }

  return {
    async block(req) {
      let parsed: ParsedAddress;
      try {
        parsed = parseAddress(req.ip);
      } catch (err) {
        await recordAudit(ctx, 'block', String(req.ip).slice(0, 64), req.actor, 'refused', { clientIp: req.clientIp, detail: 'invalid_ip' });
        throw err;
      }
      const reason = validateReason(req.reason);
      const duration = validateDuration(req.durationSeconds);
      try {
        assertBlockable(parsed, protectedAddresses(), req.clientIp);
      } catch (err) {
        await recordAudit(ctx, 'block', parsed.key, req.actor, 'refused', {
          clientIp: req.clientIp,
          reason,
          detail: err instanceof AppError ? err.code : String(err),
        });
        throw err;
      }
      return ctx.serial(async () => {
        if (!state.loaded) await loadBlocks(ctx);
        if (parsed.prefix < (parsed.family === 4 ? 32 : 128)) {
          for (const [key, other] of state.blockedPrefixes) {
            if (key !== parsed.key && overlaps(other, parsed)) {
              throw new ConflictError(`${parsed.key} overlaps the blocked network ${key}; unblock it first.`, 'overlapping_prefix', {
                ip: parsed.key,
                blocked: key,
              });
            }
          }
        }
        const at = ctx.now();
        const atIso = at.toISOString();
        const existing = state.blocks.get(parsed.key);
        const expiresAt = duration === null ? null : new Date(at.getTime() + duration * 1000).toISOString();
        const candidate: BlockedIpRow = {
          ip: parsed.key,
          family: parsed.family,
          reason: reason ?? existing?.reason ?? null,
          source: existing?.source ?? req.actor,
          blocked_at: existing?.blocked_at ?? atIso,
          updated_at: atIso,
          expires_at: expiresAt,
        };
        dropOsListing(state);
        try {
          await adapter.add([toAdapterEntry(adapter, candidate, at)]);
        } catch (err) {
          const failure = osFailure(adapter.name, err);
          await recordAudit(ctx, 'block', parsed.key, req.actor, 'failed', { clientIp: req.clientIp, reason, detail: failure.message });
          throw failure;
        }
        let row: BlockedIpRow;
        try {
          row = await upsertBlockedIp(ctx.db, candidate);
        } catch (err) {
          // A new block the store could not keep must not stay in the OS; an existing one stays blocked.
          if (!existing) await adapter.remove([toAdapterEntry(adapter, candidate, at)]).catch(() => undefined);
          throw err;
        }
        rememberBlock(state, row);
        publishChange(ctx, 'blocked', row, req.actor);
        await recordAudit(ctx, 'block', row.ip, req.actor, 'ok', {
          clientIp: req.clientIp,
          reason: row.reason,
          detail: existing ? 'updated' : expiresAt ? `expires ${expiresAt}` : null,
        });
        return toEntry(row);
      });
    },

    async unblock(ip, actor, clientIp) {
      const parsed = parseAddress(ip);
      return ctx.serial(async () => {
        if (!state.loaded) await loadBlocks(ctx);
        const existing = state.blocks.get(parsed.key);
        if (!existing) throw new NotFoundError(`${parsed.key} is not blocked.`, 'not_blocked');
        dropOsListing(state);
        try {
          await adapter.remove([toAdapterEntry(adapter, { ...existing, expires_at: null }, ctx.now())]);
        } catch (err) {
          const failure = osFailure(adapter.name, err);
          await recordAudit(ctx, 'unblock', parsed.key, actor, 'failed', { clientIp, detail: failure.message });
          throw failure;
        }
        await deleteBlockedIp(ctx.db, parsed.key);
        forgetBlock(state, parsed.key);
        publishChange(ctx, 'unblocked', existing, actor);
        await recordAudit(ctx, 'unblock', parsed.key, actor, 'ok', { clientIp, reason: existing.reason });
        return toEntry(existing);
      });
    },

    async list() {
      if (!state.loaded) await ctx.serial(() => loadBlocks(ctx));
      const t = ctx.now().toISOString();
      const blocked = [...state.blocks.values()]
        .filter((r) => r.expires_at === null || r.expires_at > t)
        .sort((a, b) => (a.blocked_at < b.blocked_at ? 1 : a.blocked_at > b.blocked_at ? -1 : a.ip.localeCompare(b.ip)))
        .map(toEntry);
      return { blocked, total: blocked.length };
    },

    // Called twice per flow by detection: with nothing blocked it answers before parsing anything, a repeated address
    // is parsed once (`lookupAddress`), and the clock is read only when a stored block matches.
    isBlocked(ip) {
      if (state.blocks.size === 0) return false;
      const parsed = lookupAddress(ip);
      if (!parsed) return false;
      if (isLive(state.blocks.get(parsed.key), ctx)) return true;
      for (const key of state.blockedPrefixes.keys()) {
        const p = state.blockedPrefixes.get(key) as ParsedAddress; // (no [key, value] pair per entry)
        if (p.family === parsed.family && p.first <= parsed.first && parsed.last <= p.last && isLive(state.blocks.get(key), ctx)) return true;
      }
      return false;
    },
  };
}
