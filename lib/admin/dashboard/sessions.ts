/** DashboardSessions: the dashboard's sign-ins, kept in this process's memory, bounded, each ending at its expiry or sign-out. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';

/** Options of DashboardSessions. */
export interface DashboardSessionOptions {
  /** How long a session lasts from its sign-in, in ms. Default: 8 hours. */
  ttlMs?: number;
  /** A session unused for this long ends, in ms. Default: 30 minutes. */
  idleMs?: number;
  /** Most sessions open at once; a sign-in beyond them ends the oldest. Default: 1000. */
  maxSessions?: number;
  /** Failed sign-ins allowed per client address in 15 minutes; beyond them every sign-in from it is refused (429) until they age out. Default: 10. */
  maxFailures?: number;
}

/** One signed-in browser: the token it signed in with (its digest), and the CSRF token its page sends with writes. */
export interface DashboardSession {
  tokenDigest: Buffer;
  csrf: string;
  /** Epoch ms: the session ends then, or earlier if idle. */
  expiresAt: number;
  lastSeen: number;
}

const FAILURE_WINDOW_S = 15 * 60;
const hex = (text: string): string => createHash('sha256').update(text).digest('hex');
const positive = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`DashboardSessions: option "${name}" must be a positive integer.`);
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
  private readonly sessions = new Map<string, DashboardSession>();
  private readonly failures: RateLimiterMemory;
  private readonly maxFailures: number;

  constructor(options: DashboardSessionOptions = {}, private readonly now: () => number = Date.now) {
    this.ttlMs = positive('ttlMs', options.ttlMs ?? 8 * 3600_000);
    this.idleMs = positive('idleMs', options.idleMs ?? 30 * 60_000);
    this.maxSessions = positive('maxSessions', options.maxSessions ?? 1000);
    this.maxFailures = positive('maxFailures', options.maxFailures ?? 10);
    this.failures = new RateLimiterMemory({ points: this.maxFailures, duration: FAILURE_WINDOW_S });
  }

  /** Opens a session for a token (by digest); returns the cookie value, never kept here. */
  open(tokenDigest: Buffer): { id: string; session: DashboardSession } {
    const now = this.now();
    if (this.sessions.size >= this.maxSessions) this.sweep(now);
    // Still full: the oldest sign-in ends (Maps keep insertion order).
    for (const key of this.sessions.keys()) {
      if (this.sessions.size < this.maxSessions) break;
      this.sessions.delete(key);
    }
    const id = randomBytes(32).toString('base64url');
    const session: DashboardSession = { tokenDigest, csrf: randomBytes(32).toString('base64url'), expiresAt: now + this.ttlMs, lastSeen: now };
    this.sessions.set(hex(id), session);
    return { id, session };
  }

  /** The live session of a cookie value (its idle time starts again), or undefined; an ended one is dropped. */
  find(id: string | undefined): DashboardSession | undefined {
    if (!id) return undefined;
    const key = hex(id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const now = this.now();
    if (now >= session.expiresAt || now - session.lastSeen >= this.idleMs) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastSeen = now;
    return session;
  }

  /** Ends a session (sign-out): its cookie value works no more, wherever it was copied. */
  close(id: string | undefined): void {
    if (id) this.sessions.delete(hex(id));
  }

  /** Sessions held now (ended ones may count until the next sign-in sweeps them). */
  get size(): number {
    return this.sessions.size;
  }

  /** Whether a header value is this session's CSRF token (compared in constant time). */
  static csrfMatches(session: DashboardSession, presented: unknown): boolean {
    return typeof presented === 'string' && timingSafeEqual(Buffer.from(hex(presented), 'hex'), Buffer.from(hex(session.csrf), 'hex'));
  }

  /** Seconds a client must wait before signing in again, once its failures are used up; undefined while it may try. */
  async waitOf(client: string): Promise<number | undefined> {
    const res = await this.failures.get(client);
    return res && res.consumedPoints >= this.maxFailures ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : undefined;
  }

  /** Counts a failed sign-in of a client. */
  async failed(client: string): Promise<void> {
    await this.failures.penalty(client, 1);
  }

  /** Forgets a client's failures (it signed in). */
  async succeeded(client: string): Promise<void> {
    await this.failures.delete(client);
  }

  private sweep(now: number): void {
    for (const [key, s] of this.sessions) if (now >= s.expiresAt || now - s.lastSeen >= this.idleMs) this.sessions.delete(key);
  }
}
