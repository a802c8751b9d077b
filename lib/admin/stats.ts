/** Admin routes for an overview: accounts lowest balance first, and the request log counted per time bucket. */
import { Type } from '@sinclair/typebox';
import { page, paging, queryText, ref, timeSchema } from './schemas';
import { defineRoute, type AdminRoute } from './table';

export const statsRoutes: readonly AdminRoute[] = [
  defineRoute({
    method: 'get', path: '/accounts', summary: 'Accounts, lowest balance first (ties by caller id)', access: 'read', answer: page('AccountRow'),
    query: Type.Object(paging), handle: ({ query, ctx }) => ctx.store.listAccounts(query),
  }),
  defineRoute({
    method: 'get', path: '/stats/requests', access: 'read',
    summary: 'Requests, errors (an error code or a status of 400 or more) and spend per bucket of [from, to), the first starting at from; every bucket present, at most 1000',
    query: Type.Object({ from: timeSchema, to: timeSchema, bucketMs: Type.Integer({ minimum: 60000 }), callerId: Type.Optional(queryText) }),
    answer: {
      type: 'object', required: ['from', 'to', 'bucketMs', 'buckets'],
      properties: { from: { type: 'integer' }, to: { type: 'integer' }, bucketMs: { type: 'integer' }, callerId: { type: 'string' }, buckets: { type: 'array', items: ref('SeriesPoint') } },
    },
    handle: async ({ query, ctx }) => ({ ...query, buckets: await ctx.store.requestSeries(query) }),
  }),
];
