/** The store role that keeps dashboard sign-ins and failed sign-ins for every instance on one store (PostgresStore has it). */
import type { Awaitable } from './types';

/** One dashboard sign-in as a store keeps it: neither the cookie value nor the admin token is in it. */
export interface StoredSession {
  /** The admin token's name when the session opened (for an operator reading the table; `tokenCheck` decides). */
  tokenName: string;
  /** SHA-256 hex of the token's digest and the cookie value: names the token, and can be checked only with the cookie in hand. */
  tokenCheck: string;
  /** Epoch ms: the sign-in, the absolute end, the last use. */
  createdAt: number;
  expiresAt: number;
  lastSeen: number;
}

/** Failed attempts per client address: rate-limiter-flexible's limiters have this shape. */
export interface FailureCounter {
  get(key: string): Promise<{ consumedPoints: number; msBeforeNext: number } | null>;
  penalty(key: string, points: number): Promise<unknown>;
}

/**
 * Dashboard sessions by the SHA-256 hex of their cookie value. A store offers it as its
 * `dashboardSessions` property; `DashboardSessions({ store })` and createAdminRouter() use it.
 */
export interface DashboardSessionStore {
  /**
   * Keeps a new session. Ended sessions (past `expiresAt`, or unused for `idleMs`) go, and so do
   * the oldest live ones beyond `maxSessions - 1`, so at most `maxSessions` are kept.
   */
  openSession(idHash: string, session: StoredSession, bounds: { now: number; idleMs: number; maxSessions: number }): Awaitable<void>;
  /** The session if it is live at `now` (its `lastSeen` moved to `now`); undefined for an unknown or ended one. */
  touchSession(idHash: string, now: number, idleMs: number): Awaitable<StoredSession | undefined>;
  /** Ends a session (sign-out, or its token is gone). */
  closeSession(idHash: string): Awaitable<void>;
  /** A counter of failed sign-ins shared like the sessions: `points` failures per `durationS` seconds. */
  failureCounter(points: number, durationS: number): FailureCounter;
}

/** The `dashboardSessions` role of a store, if it has one. */
export function dashboardSessionsOf(store: unknown): DashboardSessionStore | undefined {
  const role = (store as { dashboardSessions?: Partial<DashboardSessionStore> } | null | undefined)?.dashboardSessions;
  const complete = role && (['openSession', 'touchSession', 'closeSession', 'failureCounter'] as const).every((m) => typeof role[m] === 'function');
  return complete ? (role as DashboardSessionStore) : undefined;
}
