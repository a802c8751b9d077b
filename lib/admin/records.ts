/** Admin routes for what happened: the request log (filters, one by id) and the audit trail (the catalog's are in models.ts). */
import { Type } from '@sinclair/typebox';
import { billingStatusSchema } from '../schemas/shapes';
import { notFoundError } from './http';
import { reviewOf } from './reviews';
import { page, paging, queryText, ref, timeSchema } from './schemas';
import { defineRoute, type AdminRoute } from './table';

const { Optional } = Type;

export const recordRoutes: readonly AdminRoute[] = [
  defineRoute({
    method: 'get', path: '/requests', summary: 'Request log, newest first', access: 'read', answer: page('Request'),
    query: Type.Object({
      callerId: Optional(queryText), model: Optional(queryText), endpoint: Optional(queryText), status: Optional(Type.Integer()), billingStatus: Optional(billingStatusSchema),
      from: Optional(timeSchema), to: Optional(timeSchema), ...paging,
    }),
    handle: ({ query, ctx }) => ctx.store.listRequests(query),
  }),
  // One request, with its Responses API response (stored or why not, chained from which) when it made one, and its review when it was flagged.
  defineRoute({
    method: 'get', path: '/requests/{requestId}', summary: 'One request, with its Responses API response if it made one and its review if it was flagged', access: 'read', answer: ref('RequestDetail'),
    async handle({ params, ctx }) {
      const requestId = params.requestId ?? '';
      const entry = (await ctx.store.listRequests({ requestId, limit: 1 })).items[0];
      if (!entry) throw notFoundError(`requestId: ${requestId}`);
      const note = await ctx.store.responses?.responseOfRequest(requestId);
      const review = await reviewOf(requestId, ctx);
      return { ...entry, response: note ? { id: note.responseId, stored: note.stored, reason: note.reason, previousResponseId: note.previousResponseId } : null, review };
    },
  }),
  defineRoute({
    method: 'get', path: '/audit', summary: 'Audit trail of operator writes, newest first', access: 'read', answer: page('Audit'),
    query: Type.Object({ target: Optional(queryText), ...paging }), handle: ({ query, ctx }) => ctx.store.listAudit(query),
  }),
];
