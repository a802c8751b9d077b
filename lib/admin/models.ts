/** Admin routes of the model catalog: GET and PUT /models, and the runtime overrides a store keeps (listed, reverted). */
import express, { type Router } from 'express';
import { pricesSchema, pricingSchema } from '../billing/figure-schemas';
import { pricesInEffect } from '../billing/pricing';
import { catalogReader, createCatalog, formatOf, LiveCatalog, type Catalog, type ModelEntry, type ModelsOption } from '../catalog';
import { fieldsOf, sameValue, type ModelFields } from '../catalog-fields';
import { followOverrides, reportOverrideError, type CatalogFollower } from '../catalog-follow';
import { overridesFor, type AppliedOverride } from '../catalog-overrides';
import { GatewayError } from '../errors';
import { catalogOverridesOf, type CatalogOverrideStore, type OverrideChange } from '../stores/catalog-overrides';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import { bodyOf, notFoundError, route } from './http';
import { audit, type AdminStore } from './store';

type Adapter = MessagesAdapter | RerankAdapter;

/** A model as PUT takes it: what GET shows (null for what is not set; `prices` and `override` are read-only), or the same with fields left out. */
type ModelInput = Partial<Omit<ModelFields, 'capability' | 'upstream'>> & Pick<ModelFields, 'capability' | 'upstream'> & { id: string; prices?: unknown; override?: unknown };

/** A runtime override as the admin API shows it. */
export const overrideSchema = {
  type: 'object', required: ['model', 'kind', 'fields', 'configured', 'actor', 'at', 'inUse', 'reason'], additionalProperties: false,
  properties: {
    model: { type: 'string' }, kind: { enum: ['edit', 'add', 'remove'] }, fields: { type: 'object', description: 'The values it sets (a whole model for add; none for remove)' },
    configured: { type: ['object', 'null'], description: 'For an edit in use: the configured value of each field it sets' },
    actor: { type: 'string' }, at: { type: 'integer' }, inUse: { type: 'boolean' }, reason: { type: ['string', 'null'], description: 'Why it is out of use' },
  },
} as const;

/** One model as PUT /models takes it (the OpenAPI document's Model and the PUT body derive from it). */
export const modelSchema = {
  type: 'object', required: ['id', 'capability', 'upstream'], additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 }, capability: { enum: ['llm', 'rerank'] }, upstream: { type: 'string', minLength: 1, description: 'An adapter by its name' },
    upstreamModel: { type: 'string', minLength: 1 }, free: { type: 'boolean' }, temperature: { type: 'boolean' }, maxOutputTokens: { type: ['integer', 'null'], minimum: 1 },
    displayName: { type: ['string', 'null'] }, createdAt: { type: ['string', 'null'] }, agentReady: { type: 'boolean' },
    clampMaxTokens: { type: 'boolean' }, autoCache: { type: 'boolean' },
    pricing: { ...pricingSchema, type: ['object', 'null'] },
    prices: { ...pricesSchema, description: 'Read-only: every price in effect, defaults applied (ignored by PUT)' },
    override: { anyOf: [overrideSchema, { type: 'null' }], description: 'Read-only: the runtime override this model serves with, null when it is as configured (ignored by PUT)' },
  },
} as const;

/** The body of PUT /models: what GET /models shows is accepted back as it is. */
export const modelsBodySchema = { type: 'object', required: ['models'], additionalProperties: false, properties: { models: { type: 'array', minItems: 1, maxItems: 10_000, items: modelSchema } } } as const;
const modelsBody = bodyOf<{ models: ModelInput[] }>(modelsBodySchema);

const overrideView = (o: AppliedOverride) => ({ model: o.model, kind: o.kind, fields: o.fields, configured: o.configured, actor: o.actor, at: o.at, inUse: o.inUse, reason: o.reason });

/** A model as the admin API shows it (PUT takes it back as it is): every field, every price in effect, the override it serves with. */
const modelView = (m: Readonly<ModelEntry>, override: AppliedOverride | undefined) => ({
  id: m.id, ...fieldsOf(m), prices: m.pricing ? pricesInEffect(m.pricing, formatOf(m)) : null, override: override ? overrideView(override) : null,
});

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
  private entriesOf(live: LiveCatalog, models: ModelInput[]): ModelEntry[] {
    const adapters = new Map<string, Adapter>();
    for (const m of live.base().models) adapters.set(m.upstream.name, m.upstream);
    for (const m of live.get().models) adapters.set(m.upstream.name, m.upstream);
    for (const [name, adapter] of Object.entries(this.upstreams)) adapters.set(name, adapter);
    return models.map(({ upstream, pricing, maxOutputTokens, displayName, createdAt, prices: _prices, override: _override, ...m }, i) => {
      const adapter = adapters.get(upstream);
      if (!adapter) throw new GatewayError('invalid_request_error', `models.${i}.upstream: no adapter named "${upstream}" (known: ${[...adapters.keys()].join(', ')}).`);
      return { ...m, upstream: adapter, ...(pricing ? { pricing } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}), ...(displayName ? { displayName } : {}), ...(createdAt ? { createdAt } : {}) };
    });
  }

  /** PUT /models: checked whole; stored as overrides when the store keeps them (every router follows), else swapped on this live catalog. */
  async replace(body: unknown, actor: string): Promise<void> {
    const live = this.live;
    if (!live) throw new GatewayError('invalid_request_error', 'models: this admin router was given a fixed catalog; pass { models: router.models } to replace it.');
    const entries = this.entriesOf(live, modelsBody(body).models);
    try {
      createCatalog(entries);
    } catch (err) {
      throw new GatewayError('invalid_request_error', err instanceof Error ? err.message.replace(/^option "models"/, 'models') : String(err));
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

export function modelRoutes(store: AdminStore, catalog: AdminCatalog): Router {
  const router = express.Router();
  const viewOf = async (id: string) => (await catalog.views()).find((m) => m.id === id) ?? null;
  // The catalog as it serves (adapters by name: they are code, not data), in one page like every list.
  router.get('/models', route(async () => ({ items: await catalog.views(), next: null })));
  // Replaced whole and at once; a list with any problem is refused and the old one keeps serving.
  router.put('/models', route(async (req, res) => {
    const before = await catalog.views();
    await catalog.replace(req.body, res.locals.admin?.name ?? 'unknown');
    const after = await catalog.views();
    await audit(store, res, 'models.replace', 'models', before, after);
    return { models: after };
  }));
  router.get('/models/overrides', route(async () => ({ items: await catalog.overrides(), next: null })));
  // Back to the configured model: its fields as configured, a withdrawn one served again, an added one gone.
  router.delete('/models/:modelId/override', route(async (req, res) => {
    const id = String(req.params.modelId);
    const model = await viewOf(id);
    const reverted = await catalog.revert(id);
    if (!reverted) throw notFoundError(`modelId: "${id}" has no runtime change to revert`);
    const after = await viewOf(id);
    await audit(store, res, 'models.revert', 'models', { model, override: overrideView(reverted) }, { model: after, override: null });
    return { reverted: overrideView(reverted), model: after };
  }));
  return router;
}
