/** Leases: a hold or a slot lives while its request does, and lapses soon after its instance dies. */
import { GATEWAY_DEFAULTS } from './defaults';
import { checkDuration } from './duration';
import { randomHex } from './random-id';

/** Default length of a lease, in ms: what a dead instance's holds and slots wait before they come back. */
export const DEFAULT_LEASE_MS = GATEWAY_DEFAULTS.holdLeaseMs;

/** Renews the leases of `items` by one lease from now; may be sync or async. */
export type RenewLeases<T> = (items: readonly T[]) => unknown;

/**
 * Renews the leases of the requests it tracks, all in one call, every quarter lease (the timer
 * stops at a tick with nothing to renew). A request is tracked from `track()` until `release()`
 * or until `done()` says it is over. A renewal that fails is tried again at the next tick; the
 * lease has three more ticks before it lapses.
 */
export class LeaseKeeper<T> {
  private readonly live = new Map<string, T>();
  private timer: NodeJS.Timeout | undefined;
  private readonly everyMs: number;

  constructor(
    readonly leaseMs: number,
    private readonly renew: RenewLeases<T>,
    private readonly done: (item: T) => boolean = () => false,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    checkDuration(leaseMs, 'lease', { min: 100 });
    this.everyMs = Math.floor(leaseMs / 4);
  }

  /** Keeps the lease of `id` alive until it is released or `done(item)`. */
  track(id: string, item: T): void {
    this.live.set(id, item);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.everyMs);
      this.timer.unref();
    }
  }

  /** Stops renewing `id`. The timer stops at the next tick that finds nothing to renew, not here: one per request would churn timers. */
  release(id: string): void {
    this.live.delete(id);
  }

  /** Number of leases kept alive. */
  get size(): number {
    return this.live.size;
  }

  /** Renews every live lease now (the timer calls it; tests may too). */
  tick(): Promise<void> {
    const items: T[] = [];
    for (const [id, item] of this.live) {
      if (this.done(item)) this.live.delete(id);
      else items.push(item);
    }
    if (this.live.size === 0) this.stop();
    if (items.length === 0) return Promise.resolve();
    return Promise.resolve()
      .then(() => this.renew(items))
      .then(() => undefined, this.onError);
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * Keeps the leases of every hold one instance has taken alive, with one store call every quarter
 * lease for all of them (`renewHolds(instanceId, expiresAt)`): nothing is tracked per request.
 * A hold leaves with its settlement; when the instance dies, the renewals stop and its holds lapse
 * one lease later. The timer starts with the first hold and never keeps the process alive.
 */
export class HoldLeases {
  /** Marks this instance's holds in the store. */
  readonly instanceId = `inst_${randomHex()}`;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly leaseMs: number,
    private readonly renew: (instanceId: string, expiresAt: number) => unknown,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    checkDuration(leaseMs, 'lease', { min: 100 });
  }

  /** When a lease taken now ends. */
  expiry(now = Date.now()): number {
    return now + this.leaseMs;
  }

  /** Starts the renewals (once). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), Math.floor(this.leaseMs / 4));
    this.timer.unref();
  }

  /** Stops the renewals; the next start() begins them again. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Renews this instance's holds now (the timer calls it; tests may too). */
  tick(): Promise<void> {
    return Promise.resolve()
      .then(() => this.renew(this.instanceId, this.expiry()))
      .then(() => undefined, this.onError);
  }
}
