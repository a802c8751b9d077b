/** Dashboard sessions and failed sign-ins in this process's memory: DashboardSessions' own when its store keeps none. */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { DashboardSessionStore, FailureCounter, StoredSession } from '../dashboard-sessions';

const ended = (s: StoredSession, now: number, idleMs: number): boolean => now >= s.expiresAt || now - s.lastSeen >= idleMs;

export class MemorySessions implements DashboardSessionStore {
  /** By hash; a Map keeps insertion order, so the first entries are the oldest sign-ins. */
  private readonly sessions = new Map<string, StoredSession>();

  openSession(idHash: string, session: StoredSession, { now, idleMs, maxSessions }: { now: number; idleMs: number; maxSessions: number }): void {
    if (this.sessions.size >= maxSessions) for (const [key, s] of this.sessions) if (ended(s, now, idleMs)) this.sessions.delete(key);
    for (const key of this.sessions.keys()) {
      if (this.sessions.size < maxSessions) break;
      this.sessions.delete(key);
    }
    this.sessions.set(idHash, { ...session });
  }

  touchSession(idHash: string, now: number, idleMs: number): StoredSession | undefined {
    const session = this.sessions.get(idHash);
    if (!session) return undefined;
    if (ended(session, now, idleMs)) {
      this.sessions.delete(idHash);
      return undefined;
    }
    session.lastSeen = now;
    return { ...session };
  }

  closeSession(idHash: string): void {
    this.sessions.delete(idHash);
  }

  failureCounter(points: number, durationS: number): FailureCounter {
    return new RateLimiterMemory({ points, duration: durationS });
  }
}
