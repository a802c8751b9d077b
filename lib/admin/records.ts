/** Admin routes for what happened: the request log (filters, one by id), the audit trail, the model catalog. */
import express, { type Router } from 'express';
import { pricesSchema, pricingSchema } from '../billing/figure-schemas';
import { pricesInEffect } from '../billing/pricing';
import { catalogReader, formatOf, LiveCatalog, type ModelEntry, type ModelsOption } from '../catalog';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import type { BillingStatus } from '../stores/types';
import { GatewayError } from '../errors';
import { bodyOf, notFoundError, Query, route } from './http';
import { audit, type AdminStore } from './store';

const BILLING: readonly BillingStatus[] = ['billed', 'needs_review', 'not_billed', 'waived'];

/** A model as PUT takes it: what GET shows (null for what is not set; `prices` is read-only), or the same with fields left out. */
type ModelInput = Omit<ModelEntry, 'upstream' | 'pricing' | 'maxOutputTokens' | 'displayName' | 'createdAt'> & {
  upstream: string; pricing?: ModelEntry['pricing'] | null; maxOutputTokens?: number | null; displayName?: string | null; createdAt?: string | null; prices?: unknown;
};

/** One model as PUT /models takes it (the OpenAPI document's Model and the PUT body derive from it). */
export const modelSchema = {
  type: 'object', required: ['id', 'capability', 'upstream'], additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 }, capability: { enum: ['llm', 'rerank'] }, upstream: { type: 'string', minLength: 1, description: 'An adapter by its name' },
    upstreamModel: { type: 'string', minLength: 1 }, free: { type: 'boolean' }, temperature: { type: 'boolean' }, maxOutputTokens: { type: ['integer', 'null'], minimum: 1 },
    displayName: { type: ['string', 'null'] }, createdAt: { type: ['string', 'null'] }, agentReady: { type: 'boolean' },
    pricing: { ...pricingSchema, type: ['object', 'null'] },
    prices: { ...pricesSchema, description: 'Read-only: every price in effect, defaults applied (ignored by PUT)' },
  },
} as const;

/** The body of PUT /models: what GET /models shows is accepted back as it is. */
export const modelsBodySchema = { type: 'object', required: ['models'], additionalProperties: false, properties: { models: { type: 'array', minItems: 1, maxItems: 10_000, items: modelSchema } } } as const;
const modelsBody = bodyOf<{ models: ModelInput[] }>(modelsBodySchema);

/** A model as the admin API shows it (PUT takes it back as it is): its pricing as set, and every price in effect. */
const modelView = (m: Readonly<ModelEntry>) => ({
  id: m.id, capability: m.capability, upstream: m.upstream.name, upstreamModel: m.upstreamModel ?? m.id, pricing: m.pricing ?? null,
  free: m.free === true, maxOutputTokens: m.maxOutputTokens ?? null, temperature: m.temperature !== false,
  displayName: m.displayName ?? null, createdAt: m.createdAt ?? null, agentReady: m.agentReady === true,
  prices: m.pricing ? pricesInEffect(m.pricing, formatOf(m)) : null,
});

export function recordRoutes(store: AdminStore, models: ModelsOption | undefined, upstreams: Readonly<Record<string, MessagesAdapter | RerankAdapter>>): Router {
  const catalog = models === undefined ? undefined : catalogReader(models);
  const live = models instanceof LiveCatalog ? models : undefined;
  const router = express.Router();
  router.get('/requests', route((req) => {
    const q = new Query(req.query);
    const billingStatus = q.str('billingStatus') as BillingStatus | undefined;
    if (billingStatus !== undefined && !BILLING.includes(billingStatus)) throw new GatewayError('invalid_request_error', `billingStatus: must be one of ${BILLING.join(', ')}`);
    return store.listRequests({
      callerId: q.str('callerId'), model: q.str('model'), endpoint: q.str('endpoint'), status: q.int('status'), billingStatus,
      from: q.time('from'), to: q.time('to'), limit: q.int('limit'), after: q.str('after'),
    });
  }));
  // One request, with its Responses API response (stored or why not, chained from which) when it made one.
  router.get('/requests/:requestId', route(async (req) => {
    const requestId = String(req.params.requestId);
    const entry = (await store.listRequests({ requestId, limit: 1 })).items[0];
    if (!entry) throw notFoundError(`requestId: ${requestId}`);
    const note = await store.responses?.responseOfRequest(requestId);
    return { ...entry, response: note ? { id: note.responseId, stored: note.stored, reason: note.reason, previousResponseId: note.previousResponseId } : null };
  }));
  router.get('/audit', route((req) => {
    const q = new Query(req.query);
    return store.listAudit({ target: q.str('target'), limit: q.int('limit'), after: q.str('after') });
  }));
  // The catalog as it serves (adapters by name: they are code, not data), in one page like every list.
  router.get('/models', route(() => ({ items: (catalog?.().models ?? []).map(modelView), next: null })));
  // Replaced whole and at once; a list with any problem is refused and the old one keeps serving.
  router.put('/models', route(async (req, res) => {
    if (!live) throw new GatewayError('invalid_request_error', 'models: this admin router was given a fixed catalog; pass { models: router.models } to replace it.');
    const { models } = modelsBody(req.body);
    const adapters = new Map<string, MessagesAdapter | RerankAdapter>();
    for (const m of live.get().models) adapters.set(m.upstream.name, m.upstream);
    for (const [name, adapter] of Object.entries(upstreams)) adapters.set(name, adapter);
    const entries: ModelEntry[] = models.map(({ upstream, pricing, maxOutputTokens, displayName, createdAt, prices: _readOnly, ...m }, i) => {
      const adapter = adapters.get(upstream);
      if (!adapter) throw new GatewayError('invalid_request_error', `models.${i}.upstream: no adapter named "${upstream}" (known: ${[...adapters.keys()].join(', ')}).`);
      return { ...m, upstream: adapter, ...(pricing ? { pricing } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}), ...(displayName ? { displayName } : {}), ...(createdAt ? { createdAt } : {}) };
    });
    const before = live.get().models.map(modelView);
    try {
      live.replace(entries);
    } catch (err) {
      throw new GatewayError('invalid_request_error', err instanceof Error ? err.message.replace(/^option "models"/, 'models') : String(err));
    }
    const after = live.get().models.map(modelView);
    await audit(store, res, 'models.replace', 'models', before, after);
    return { models: after };
  }));
  return router;
}
