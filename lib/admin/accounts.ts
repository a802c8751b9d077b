/** Admin routes for money and accounts: balance, held, carry; credits and debits by Idempotency-Key; ledger, spend; erasing stored responses (reviews: reviews.ts). */
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../foundation/errors';
import { page, paging, queryText, ref, timeSchema } from './schemas';
import { audit, creditAudited } from './store';
import { defineRoute, type AdminRoute } from './table';

const { Optional } = Type;
const callerIdOf = (params: Record<string, string>): string => params.callerId ?? '';

export const accountRoutes: readonly AdminRoute[] = [
  // An unknown caller is a 404 (the store says so).
  defineRoute({
    method: 'get', path: '/accounts/{callerId}', summary: 'Balance, held, carried remainder (404: no account)', access: 'read', answer: ref('Account'),
    handle: async ({ params, ctx }) => ({ callerId: callerIdOf(params), ...(await ctx.store.getAccount(callerIdOf(params))) }),
  }),
  // Exactly once per Idempotency-Key: a retry returns the first result; another amount under the key is refused.
  // An unknown caller is a 404 unless the body says `"createAccount": true`.
  defineRoute({
    method: 'post', path: '/accounts/{callerId}/credits', access: 'write', answer: ref('CreditResult'),
    summary: 'Credit (or, negative, debit) once per Idempotency-Key; an unknown caller is a 404 unless createAccount is true',
    headers: Type.Object({ 'Idempotency-Key': Type.String() }),
    body: Type.Object({
      amount: Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991, description: 'minor units; negative for a debit' }),
      createAccount: Optional(Type.Boolean({ default: false })),
    }, { additionalProperties: false }),
    handle({ params, body, req, actor, ctx }) {
      const idempotencyKey = req.get('idempotency-key');
      if (!idempotencyKey) throw new GatewayError('invalid_request_error', 'idempotency-key: header required (the same key never moves money twice).');
      if (body.amount === 0) throw new GatewayError('invalid_request_error', 'amount: must not be 0 (positive credits, negative debits).');
      return creditAudited(ctx.store, actor, { callerId: callerIdOf(params), amount: body.amount, idempotencyKey, createAccount: body.createAccount });
    },
  }),
  defineRoute({
    method: 'get', path: '/accounts/{callerId}/ledger', summary: 'Ledger, newest first', access: 'read', answer: page('LedgerEntry'),
    query: Type.Object({ from: Optional(timeSchema), to: Optional(timeSchema), ...paging }),
    handle: ({ params, query, ctx }) => ctx.store.listLedger({ callerId: callerIdOf(params), ...query }),
  }),
  // An operator's erasure of an account's stored responses (Responses API), audited with how many went.
  defineRoute({
    method: 'delete', path: '/accounts/{callerId}/responses', access: 'write',
    summary: 'Delete every stored Responses API response of an account (audited with the count); an account with none deletes 0',
    answer: { type: 'object', required: ['callerId', 'deleted'], additionalProperties: false, properties: { callerId: { type: 'string' }, deleted: { type: 'integer', minimum: 0 } } },
    async handle({ params, res, ctx }) {
      const callerId = callerIdOf(params);
      const deleted = (await ctx.store.responses?.deleteResponsesOf(callerId)) ?? 0;
      await audit(ctx.store, res, 'responses.delete', `caller:${callerId}`, null, { deleted });
      return { callerId, deleted };
    },
  }),
  defineRoute({
    method: 'get', path: '/spend', summary: 'Spend per caller × model × UTC day, by day, caller, then model', access: 'read', answer: page('Spend'),
    query: Type.Object({ from: timeSchema, to: timeSchema, callerId: Optional(queryText), ...paging }),
    handle: ({ query, ctx }) => ctx.store.spend(query),
  }),
];
