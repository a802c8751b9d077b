/** Admin routes for money and accounts: balance, held, carry; credits and debits by Idempotency-Key; ledger, spend, reviews; erasing stored responses. */
import express, { type Router } from 'express';
import { GatewayError } from '../errors';
import { bodyOf, Query, route } from './http';
import { audit, creditAudited, type AdminStore } from './store';

const creditBody = bodyOf<{ amount: number; createAccount?: boolean }>({
  type: 'object', required: ['amount'], additionalProperties: false,
  properties: { amount: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }, createAccount: { type: 'boolean' } },
});
const resolveBody = bodyOf<{ action: 'charge' | 'waive'; amount?: number; reason: string }>({
  type: 'object', required: ['action', 'reason'], additionalProperties: false,
  properties: { action: { enum: ['charge', 'waive'] }, amount: { type: 'integer', minimum: 0 }, reason: { type: 'string', minLength: 1, maxLength: 1000 } },
});

export function accountRoutes(store: AdminStore): Router {
  const router = express.Router();
  // An unknown caller is a 404 (the store says so).
  router.get('/accounts/:callerId', route(async (req) => ({ callerId: String(req.params.callerId), ...(await store.getAccount(String(req.params.callerId))) })));
  // Exactly once per Idempotency-Key: a retry returns the first result; another amount under the key is refused.
  // An unknown caller is a 404 unless the body says `"createAccount": true`.
  router.post('/accounts/:callerId/credits', route(async (req, res) => {
    const idempotencyKey = req.get('idempotency-key');
    if (!idempotencyKey) throw new GatewayError('invalid_request_error', 'idempotency-key: header required (the same key never moves money twice).');
    const { amount, createAccount } = creditBody(req.body);
    if (amount === 0) throw new GatewayError('invalid_request_error', 'amount: must not be 0 (positive credits, negative debits).');
    return creditAudited(store, res.locals.admin?.name ?? 'unknown', { callerId: String(req.params.callerId), amount, idempotencyKey, createAccount });
  }));
  router.get('/accounts/:callerId/ledger', route((req) => {
    const q = new Query(req.query);
    return store.listLedger({ callerId: String(req.params.callerId), from: q.time('from'), to: q.time('to'), limit: q.int('limit'), after: q.str('after') });
  }));
  // An operator's erasure of an account's stored responses (Responses API), audited with how many went.
  router.delete('/accounts/:callerId/responses', route(async (req, res) => {
    const callerId = String(req.params.callerId);
    const deleted = (await store.responses?.deleteResponsesOf(callerId)) ?? 0;
    await audit(store, res, 'responses.delete', `caller:${callerId}`, null, { deleted });
    return { callerId, deleted };
  }));
  router.get('/spend', route((req) => {
    const q = new Query(req.query);
    return store.spend({ callerId: q.str('callerId'), from: q.required('from', q.time('from')), to: q.required('to', q.time('to')), limit: q.int('limit'), after: q.str('after') });
  }));
  router.get('/reviews', route((req) => {
    const q = new Query(req.query);
    return store.listReviews({ callerId: q.str('callerId'), open: q.bool('open'), limit: q.int('limit'), after: q.str('after') });
  }));
  router.post('/reviews/:requestId/resolve', route(async (req, res) => {
    const body = resolveBody(req.body);
    const requestId = String(req.params.requestId);
    const out = await store.resolveReview({ requestId, action: body.action, amount: body.amount, reason: body.reason, by: res.locals.admin?.name ?? 'unknown' });
    if (out.applied) await audit(store, res, `review.${body.action}`, `request:${requestId}`, null, out.review);
    return out;
  }));
  return router;
}
