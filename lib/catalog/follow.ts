/** CatalogFollower: lays the runtime catalog overrides a store keeps over a LiveCatalog, read again whenever the store's version moved. */
import type { RequestHandler } from 'express';
import type { Catalog, LiveCatalog } from './catalog';
import { applyOverrides, type AppliedOverride } from './overrides';
import { GatewayError } from '../foundation/errors';
import type { CatalogOverride, CatalogOverrideStore } from '../stores/catalog-overrides';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call';
import { withTimeout } from '../foundation/timeout';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';

type Adapter = MessagesAdapter | RerankAdapter;

/**
 * How old the overrides a request is served with may be, in ms: a request finding them older
 * waits for one read of the store's version (and of the overrides when it moved); one finding
 * them older than half of it is served at once while that read runs. An edit is thus in use on
 * every instance for every request that starts this long after it was stored (plus one read).
 */
export const OVERRIDE_MAX_AGE_MS = 2000;

const followers = new WeakMap<LiveCatalog, CatalogFollower>();

export class CatalogFollower {
  private version: string | undefined;
  private overrides: readonly CatalogOverride[] = [];
  private applied: AppliedOverride[] = [];
  private checkedAt = 0;
  private pending: Promise<void> | undefined;
  private failing = false;
  private readonly adapters = new Map<string, Adapter>();

  /** `timeoutMs` bounds each read of the store (a stalled store then counts as a failed read). */
  constructor(readonly live: LiveCatalog, readonly store: CatalogOverrideStore, private readonly onError: (err: unknown) => void,
    private readonly timeoutMs = DEFAULT_STORE_TIMEOUT_MS, private readonly now: () => number = Date.now) {}

  /** Reads the store's version and, when it moved, the overrides, and lays them over the configured catalog. Calls made meanwhile share the read. */
  refresh(): Promise<void> {
    this.pending ??= this.read().finally(() => { this.pending = undefined; });
    return this.pending;
  }

  /** A refresh that starts after any read in flight (so it sees a write that just ended). */
  async sync(): Promise<void> {
    await this.pending?.catch(() => undefined);
    await this.refresh();
  }

  /** Every override the store keeps, as it applies here now. */
  overridesNow(): readonly AppliedOverride[] {
    return this.applied;
  }

  /** Adapters an override may name besides those of the configured catalog (by name; these win). */
  addAdapters(adapters: Readonly<Record<string, Adapter>>): void {
    for (const [name, adapter] of Object.entries(adapters)) this.adapters.set(name, adapter);
    if (this.version !== undefined) this.live.overlay((configured) => this.apply(configured)); // an override may name one of them
  }

  /** The adapter of a name: an added one, else the first configured model's that has it. */
  adapterOf(name: string, configured: Catalog = this.live.base()): Adapter | undefined {
    return this.adapters.get(name) ?? configured.models.find((m) => m.upstream.name === name)?.upstream;
  }

  /** Holds each request until the overrides are no older than OVERRIDE_MAX_AGE_MS (see there). */
  readonly gate: RequestHandler = (_req, _res, next) => {
    const age = this.now() - this.checkedAt;
    if (this.version !== undefined && age < OVERRIDE_MAX_AGE_MS / 2) return next();
    const read = this.refresh();
    if (this.version !== undefined && age < OVERRIDE_MAX_AGE_MS) {
      read.catch(() => undefined); // reported by read()
      return next();
    }
    // Once read, a failed read leaves the last overrides serving; never read, the request cannot be priced.
    return read.then(() => next(), (err: unknown) => next(this.version !== undefined ? undefined
      : new GatewayError('api_error', 'The model catalog could not be read from the store.', { detail: `catalog overrides: ${String(err)}`, cause: err })));
  };

  private async read(): Promise<void> {
    try {
      const started = this.now();
      const now = this.version === undefined ? undefined : await withTimeout(this.store.catalogVersion(), this.timeoutMs, 'catalog version read');
      if (now === undefined || now !== this.version) {
        const read = await withTimeout(this.store.listCatalogOverrides(), this.timeoutMs, 'catalog overrides read');
        this.overrides = read.overrides;
        this.version = read.version;
        this.live.overlay((configured) => this.apply(configured));
      }
      this.checkedAt = started;
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.onError(err);
      this.failing = true;
      throw err;
    }
  }

  private apply(configured: Catalog): Catalog {
    const { catalog, applied } = applyOverrides(configured, this.overrides, (name) => this.adapterOf(name, configured));
    this.applied = applied;
    return catalog;
  }
}

/** The follower of a live catalog, made the first time (a router's, or an admin router's own). */
export function followOverrides(live: LiveCatalog, store: CatalogOverrideStore, onError: (err: unknown) => void, timeoutMs?: number): CatalogFollower {
  let follower = followers.get(live);
  if (!follower) {
    follower = new CatalogFollower(live, store, onError, timeoutMs);
    followers.set(live, follower);
  }
  return follower;
}

/** The follower of a live catalog, if one was made. */
export const followerOf = (live: LiveCatalog): CatalogFollower | undefined => followers.get(live);

/** Reports a failed read of the overrides (once per run of failures). */
export const reportOverrideError = (err: unknown): void => {
  console.error(`model-gateway: catalog overrides could not be read; this instance serves those it read last: ${err instanceof Error ? err.message : String(err)}`);
};
