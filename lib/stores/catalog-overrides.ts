/** The store role that keeps runtime edits of the model catalog for every instance and every restart (both built-in stores have it). */
import type { Awaitable } from './types';

/**
 * What a runtime change does to one model: `edit` sets some fields of a configured model, `add`
 * is a whole model the configuration lacks, `remove` withdraws a configured model.
 */
export type OverrideKind = 'edit' | 'add' | 'remove';

/** One model's runtime change, as a store keeps it. */
export interface CatalogOverride {
  /** The model's id. */
  model: string;
  kind: OverrideKind;
  /** Model fields as the admin API shows them (`upstream` by adapter name, null for unset); `{}` for `remove`. */
  fields: Record<string, unknown>;
  /** Who made it (an admin token's name) and when (epoch ms). */
  actor: string;
  at: number;
}

/** One model's override set anew, or (`override: null`) dropped. */
export interface OverrideChange {
  model: string;
  override: Omit<CatalogOverride, 'model'> | null;
}

/**
 * Runtime catalog overrides (a store offers it as its `catalogOverrides` property). Every
 * instance polls `catalogVersion()` and reads the overrides again when it moved.
 */
export interface CatalogOverrideStore {
  /** A value that changes with every change (compared for equality only). */
  catalogVersion(): Awaitable<string>;
  /** Every override, and the version they are at, read together. */
  listCatalogOverrides(): Awaitable<{ version: string; overrides: CatalogOverride[] }>;
  /** Applies the changes all at once (or none); returns the new version. */
  changeCatalogOverrides(changes: readonly OverrideChange[]): Awaitable<string>;
}

/** The `catalogOverrides` role of a store, if it has one. */
export function catalogOverridesOf(store: unknown): CatalogOverrideStore | undefined {
  const role = (store as { catalogOverrides?: Partial<CatalogOverrideStore> } | null | undefined)?.catalogOverrides;
  const complete = role && (['catalogVersion', 'listCatalogOverrides', 'changeCatalogOverrides'] as const).every((m) => typeof role[m] === 'function');
  return complete ? (role as CatalogOverrideStore) : undefined;
}
