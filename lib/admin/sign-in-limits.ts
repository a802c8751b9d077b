/** SignInLimits: failed dashboard sign-ins and admin Bearer tokens per client address; past the limit, every attempt waits until they age out. */
import { dashboardSessionsOf, type FailureCounter } from '../stores/dashboard-sessions';
import { MemorySessions } from '../stores/memory/sessions';

/** The window failures are counted in, in seconds: they age out when it ends, never earlier. */
export const FAILURE_WINDOW_S = 15 * 60;
/** Failures per address in a window before every attempt from it waits. */
export const DEFAULT_MAX_FAILURES = 10;

/**
 * One count per address for both ways in: a wrong token posted to the sign-in form and a wrong
 * `Authorization` header count alike, and a right one forgets nothing (a read token's holder gets
 * no fresh guesses at the write token by signing in with it).
 */
export class SignInLimits {
  constructor(readonly maxFailures: number, private readonly counter: FailureCounter) {}

  /** Seconds a client must wait, once its failures are used up; undefined while it may try. */
  async waitOf(client: string): Promise<number | undefined> {
    const res = await this.counter.get(client);
    return res && res.consumedPoints >= this.maxFailures ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : undefined;
  }

  /** Counts a failure of a client. */
  async failed(client: string): Promise<void> {
    await this.counter.penalty(client, 1);
  }
}

/** Limits counted where `store` keeps dashboard sessions (PostgresStore: every instance), else in this process's memory. */
export function signInLimitsOf(store: unknown, maxFailures = DEFAULT_MAX_FAILURES): SignInLimits {
  const kept = dashboardSessionsOf(store) ?? new MemorySessions();
  return new SignInLimits(maxFailures, kept.failureCounter(maxFailures, FAILURE_WINDOW_S));
}
