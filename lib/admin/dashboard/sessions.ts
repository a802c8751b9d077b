/** DashboardSessions: the dashboard's sign-ins, each ending at its expiry, when idle or at sign-out; kept by the store when it can (every instance shares them). */
import { GatewayConfigError } from '../../foundation/config-errors';
import { checkDuration } from '../../foundation/duration';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { dashboardSessionsOf, type DashboardSessionStore } from '../../stores/dashboard-sessions';
import { MemorySessions } from '../../stores/memory/sessions';
import type { AdminIdentity, AdminTokens } from '../auth';
import { DEFAULT_MAX_FAILURES, signInLimitsOf, type SignInLimits } from '../sign-in-limits';

/** Options of DashboardSessions. */
export interface DashboardSessionOptions {
  /** How long a session lasts from its sign-in, in ms. Default: 8 hours. */
  ttlMs?: number;
  /** A session unused for this long ends, in ms. Default: 30 minutes. */
  idleMs?: number;
  /** Most sessions open at once; a sign-in beyond them ends the oldest. Default: 1000. */
  maxSessions?: number;
  /** Failed sign-ins (and admin tokens) allowed per client address in 15 minutes; beyond them every attempt from it is refused (429) until they age out. Default: 10. */
  maxFailures?: number;
  /**
   * The gateway's store: a store with a `dashboardSessions` role (PostgresStore) keeps the sessions
   * and failures, so every instance on it shares them. Default: none (this process's memory).
   */
  store?: object;
}

/** A signed-in browser as a request finds it: who (with the token's access of now), its CSRF token, its end. */
export interface DashboardSession {
  identity: AdminIdentity;
  csrf: string;
  /** Epoch ms: the session ends then, or earlier if idle. */
  expiresAt: number;
}

const sha256 = (text: string | Buffer): Buffer => createHash('sha256').update(text).digest();
/** The session's key in the store: the SHA-256 of the cookie value. */
const idHashOf = (id: string): string => sha256(id).toString('hex');
/** The token a session was opened with, checkable only with its cookie value: a stolen table names no token digest. */
const tokenCheckOf = (tokenDigest: Buffer, id: string): string => sha256(Buffer.concat([tokenDigest, Buffer.from(id)])).toString('hex');
/** The CSRF token: derived from the cookie value (so any instance can show it, and no store holds it). */
const csrfOf = (id: string): string => sha256(`mgw-csrf:${id}`).toString('base64url');
const positive = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `DashboardSessions: option "${name}" must be a positive integer.`);
  return value;
};

/**
 * Sessions by the SHA-256 of their cookie value (the value itself is only in the browser's
 * HttpOnly cookie). One instance can serve several admin routers, so a config reload keeps them.
 */
export class DashboardSessions {
  readonly ttlMs: number;
  readonly idleMs: number;
  readonly maxSessions: number;
  /** Failed sign-ins and admin tokens per client address. */
  readonly limits: SignInLimits;
  private readonly kept: DashboardSessionStore;

  constructor(options: DashboardSessionOptions = {}, private readonly now: () => number = Date.now) {
    this.ttlMs = checkDuration(options.ttlMs ?? 8 * 3600_000, 'DashboardSessions: option "ttlMs"');
    this.idleMs = checkDuration(options.idleMs ?? 30 * 60_000, 'DashboardSessions: option "idleMs"');
    this.maxSessions = positive('maxSessions', options.maxSessions ?? 1000);
    const maxFailures = positive('maxFailures', options.maxFailures ?? DEFAULT_MAX_FAILURES);
    this.kept = dashboardSessionsOf(options.store) ?? new MemorySessions();
    this.limits = signInLimitsOf(options.store, maxFailures);
  }

  /** Opens a session for a token; returns the cookie value (kept nowhere on the server) and the session. */
  async open(token: { digest: Buffer; identity: AdminIdentity }): Promise<{ id: string; session: DashboardSession }> {
    const now = this.now();
    const id = randomBytes(32).toString('base64url');
    const expiresAt = now + this.ttlMs;
    const stored = { tokenName: token.identity.name, tokenCheck: tokenCheckOf(token.digest, id), createdAt: now, expiresAt, lastSeen: now };
    await this.kept.openSession(idHashOf(id), stored, { now, idleMs: this.idleMs, maxSessions: this.maxSessions });
    return { id, session: { identity: token.identity, csrf: csrfOf(id), expiresAt } };
  }

  /**
   * The live session of a cookie value (its idle time starts again) whose token is still
   * configured, or undefined; one whose token was removed or changed ends here.
   */
  async find(id: string | undefined, tokens: AdminTokens): Promise<DashboardSession | undefined> {
    if (!id) return undefined;
    const stored = await this.kept.touchSession(idHashOf(id), this.now(), this.idleMs);
    if (!stored) return undefined;
    const check = Buffer.from(stored.tokenCheck, 'hex');
    const identity = check.length === 32 ? tokens.matching((digest) => timingSafeEqual(Buffer.from(tokenCheckOf(digest, id), 'hex'), check)) : undefined;
    if (!identity) {
      await this.close(id);
      return undefined;
    }
    return { identity, csrf: csrfOf(id), expiresAt: stored.expiresAt };
  }

  /** Ends a session (sign-out): its cookie value works no more, wherever it was copied, on every instance sharing the store. */
  async close(id: string | undefined): Promise<void> {
    if (id) await this.kept.closeSession(idHashOf(id));
  }

  /** Whether a header value is this session's CSRF token (compared in constant time). */
  static csrfMatches(session: DashboardSession, presented: unknown): boolean {
    return typeof presented === 'string' && timingSafeEqual(sha256(presented), sha256(session.csrf));
  }
}
