/** Admin routes of the model catalog: GET and PUT /models, and the runtime overrides a store keeps (listed, reverted). */
import { overrideView, type AdminCatalog } from './catalog';
import { notFoundError } from './http';
import { modelsBodySchema, page, ref } from './schemas';
import { audit } from './store';
import { defineRoute, type AdminRoute } from './table';

const viewOf = async (catalog: AdminCatalog, id: string) => (await catalog.views()).find((m) => m.id === id) ?? null;

export const modelRoutes: readonly AdminRoute[] = [
  // The catalog as it serves (adapters by name: they are code, not data), in one page like every list.
  defineRoute({
    method: 'get', path: '/models', summary: 'The catalog as it serves (one page)', access: 'read', answer: page('Model'),
    handle: async ({ ctx }) => ({ items: await ctx.catalog.views(), next: null }),
  }),
  // Replaced whole and at once; a list with any problem is refused and the old one keeps serving.
  defineRoute({
    method: 'put', path: '/models', access: 'write', body: modelsBodySchema,
    summary: 'Replace the catalog whole and at once (a bad one is refused, the old one keeps serving); upstreams by adapter name; kept by the store as runtime overrides of the configured catalog when it keeps them',
    answer: { type: 'object', required: ['models'], additionalProperties: false, properties: { models: { type: 'array', items: ref('Model') } } },
    async handle({ body, res, actor, ctx }) {
      const before = await ctx.catalog.views();
      await ctx.catalog.replace(body.models, actor);
      const after = await ctx.catalog.views();
      await audit(ctx.store, res, 'models.replace', 'models', before, after);
      return { models: after };
    },
  }),
  defineRoute({
    method: 'get', path: '/models/overrides', summary: 'The runtime overrides the store keeps, in use or not (one page; none without a store that keeps them)', access: 'read', answer: page('Override'),
    handle: async ({ ctx }) => ({ items: await ctx.catalog.overrides(), next: null }),
  }),
  // Back to the configured model: its fields as configured, a withdrawn one served again, an added one gone.
  defineRoute({
    method: 'delete', path: '/models/{modelId}/override', access: 'write',
    summary: 'Revert a model to the configuration: its configured fields, a withdrawn model served again, an added one gone',
    answer: { type: 'object', required: ['reverted', 'model'], properties: { reverted: ref('Override'), model: { anyOf: [ref('Model'), { type: 'null' }] } } },
    async handle({ params, res, ctx }) {
      const id = params.modelId ?? '';
      const model = await viewOf(ctx.catalog, id);
      const reverted = await ctx.catalog.revert(id);
      if (!reverted) throw notFoundError(`modelId: "${id}" has no runtime change to revert`);
      const after = await viewOf(ctx.catalog, id);
      await audit(ctx.store, res, 'models.revert', 'models', { model, override: overrideView(reverted) }, { model: after, override: null });
      return { reverted: overrideView(reverted), model: after };
    },
  }),
];
