/** The catalog the admin API shows and edits: the live catalog, the store's runtime overrides over it, and a model as the API shows it. */
import { wordingOf } from '../foundation/config-errors';
import { pricesInEffect } from '../billing/pricing';
import type { PricedBy } from '../billing/settle';
import { catalogReader, createCatalog, formatOf, LiveCatalog, type Catalog, type ModelEntry, type ModelsOption } from '../catalog/catalog';
import { isGroup, servingMembers, type ServingMember } from '../catalog/members';
import { fieldsOf, sameValue } from '../catalog/fields';
import { followOverrides, reportOverrideError, type CatalogFollower } from '../catalog/follow';
import { overridesFor, type AppliedOverride } from '../catalog/overrides';
import { GatewayError } from '../foundation/errors';
import { catalogOverridesOf, type CatalogOverrideStore, type OverrideChange } from '../stores/catalog-overrides';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import type { ModelInput } from './schemas';
import type { AdminStore } from './store';

type Adapter = MessagesAdapter | RerankAdapter;

export const overrideView = (o: AppliedOverride) => ({ model: o.model, kind: o.kind, fields: o.fields, configured: o.configured, actor: o.actor, at: o.at, inUse: o.inUse, reason: o.reason });

/** Every price in effect for what bills a request, or null for none (a free model). */
const pricesOf = (by: PricedBy): Record<string, string | null> | null => (by.pricing ? pricesInEffect(by.pricing, by.format) : null);

/** A failover member as the admin API shows it: the model it is sent, its own prices as set, every price in effect for the requests it serves. */
const memberView = (m: ServingMember) => ({ upstream: m.upstream, format: m.format ?? null, upstreamModel: m.upstreamModel, pricing: m.ownPricing ? m.pricing ?? null : null, prices: pricesOf(m) });

/**
 * A model as the admin API shows it (PUT takes it back as it is): every field, the override it
 * serves with, and what its requests are charged: `prices` when every request is charged the same,
 * else null and each failover member's own (a mixed group's cache prices depend on who serves).
 */
function modelView(m: Readonly<ModelEntry>, override: AppliedOverride | undefined) {
  const members = isGroup(m) ? servingMembers(m).map(memberView) : null;
  const one = pricesOf({ pricing: m.pricing, format: formatOf(m) });
  const prices = members === null || members.every((x) => sameValue(x.prices, one)) ? one : null;
  return { id: m.id, ...fieldsOf(m), prices, members, override: override ? overrideView(override) : null };
}

/** The catalog the admin API shows and edits: a live one (the gateway router's), and the store's overrides over it when the store keeps them. */
export class AdminCatalog {
  readonly live: LiveCatalog | undefined;
  private readonly read: (() => Catalog) | undefined;
  private readonly follower: CatalogFollower | undefined;
  private readonly role: CatalogOverrideStore | undefined;

  constructor(store: AdminStore, models: ModelsOption | undefined, private readonly upstreams: Readonly<Record<string, Adapter>>) {
    this.role = catalogOverridesOf(store);
    // With overrides kept by the store, even a fixed list can be edited: the edit goes to the store, every router follows it.
    this.live = models instanceof LiveCatalog ? models : models !== undefined && this.role ? new LiveCatalog(createCatalog(models as readonly ModelEntry[])) : undefined;
    this.read = this.live ? () => (this.live as LiveCatalog).get() : models !== undefined ? catalogReader(models) : undefined;
    this.follower = this.live && this.role ? followOverrides(this.live, this.role, reportOverrideError) : undefined;
    this.follower?.addAdapters(upstreams);
  }

  /** The models option key checks use: the live catalog when there is one. */
  get models(): ModelsOption | undefined {
    return this.live ?? (this.read && this.read());
  }

  /** The catalog as it serves now (the store's runtime edits followed); none without a catalog. */
  async current(): Promise<Catalog | undefined> {
    await this.follower?.sync();
    return this.read?.();
  }

  async views(): Promise<ReturnType<typeof modelView>[]> {
    await this.follower?.sync();
    const inUse = new Map((this.follower?.overridesNow() ?? []).filter((o) => o.inUse && o.kind !== 'remove').map((o) => [o.model, o]));
    return (this.read?.().models ?? []).map((m) => modelView(m, inUse.get(m.id)));
  }

  async overrides(): Promise<ReturnType<typeof overrideView>[]> {
    await this.follower?.sync();
    return (this.follower?.overridesNow() ?? []).map(overrideView);
  }

  /** The entries of a PUT body, adapters found by name (an unknown one is a 400 naming it). */
  private entriesOf(live: LiveCatalog, models: readonly ModelInput[]): ModelEntry[] {
    const adapters = new Map<string, Adapter>();
    for (const m of live.base().models) adapters.set(m.upstream.name, m.upstream);
    for (const m of live.get().models) adapters.set(m.upstream.name, m.upstream);
    for (const [name, adapter] of Object.entries(this.upstreams)) adapters.set(name, adapter);
    // A model keeps its own adapter under its name (two failover groups of one name may differ in their members' models and prices).
    const own = (id: string, name: string): Adapter | undefined => [live.get().byId.get(id), live.base().byId.get(id)].find((m) => m?.upstream.name === name)?.upstream;
    return models.map(({ upstream, pricing, maxOutputTokens, displayName, createdAt, prices: _prices, members: _members, override: _override, ...m }, i) => {
      const adapter = own(m.id, upstream) ?? adapters.get(upstream);
      if (!adapter) throw new GatewayError('invalid_request_error', `models.${i}.upstream: no adapter named "${upstream}" (known: ${[...adapters.keys()].join(', ')}).`);
      return { ...m, upstream: adapter, ...(pricing ? { pricing } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}), ...(displayName ? { displayName } : {}), ...(createdAt ? { createdAt } : {}) };
    });
  }

  /** PUT /models: checked whole; stored as overrides when the store keeps them (every router follows), else swapped on this live catalog. */
  async replace(models: readonly ModelInput[], actor: string): Promise<void> {
    const live = this.live;
    if (!live) throw new GatewayError('invalid_request_error', 'models: this admin router was given a fixed catalog; pass { models: router.models } to replace it.');
    const entries = this.entriesOf(live, models);
    try {
      createCatalog(entries);
    } catch (err) {
      throw new GatewayError('invalid_request_error', wordingOf(err).replace(/^option "models"/, 'models'));
    }
    if (!this.follower || !this.role) {
      live.replace(entries);
      return;
    }
    await this.follower.sync();
    const stored = new Map(this.follower.overridesNow().map((o) => [o.model, o]));
    const wanted = overridesFor(live.base(), entries);
    // A model added at runtime and left out of the list goes; an override out of use stays until reverted.
    for (const o of stored.values()) if (o.inUse && !wanted.has(o.model)) wanted.set(o.model, null);
    const changes: OverrideChange[] = [];
    for (const [model, next] of wanted) {
      const was = stored.get(model);
      if (next === null ? !was : was && was.kind === next.kind && sameValue(was.fields, next.fields)) continue;
      changes.push({ model, override: next && { ...next, actor, at: Date.now() } });
    }
    if (changes.length > 0) await this.role.changeCatalogOverrides(changes);
    await this.follower.sync();
  }

  /** DELETE /models/:id/override: the model as configured again (an added one gone); the override reverted, or undefined for none. */
  async revert(model: string): Promise<AppliedOverride | undefined> {
    if (!this.follower || !this.role) return undefined;
    await this.follower.sync();
    const stored = this.follower.overridesNow().find((o) => o.model === model);
    if (!stored) return undefined;
    await this.role.changeCatalogOverrides([{ model, override: null }]);
    await this.follower.sync();
    return stored;
  }
}
