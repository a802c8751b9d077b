/** Admin routes for what happened: the request log (filters, one by id) and the audit trail (the catalog's are in models.ts). */
import express, { type Router } from 'express';
import type { BillingStatus } from '../stores/types';
import { GatewayError } from '../errors';
import { notFoundError, Query, route } from './http';
import type { AdminStore } from './store';

const BILLING: readonly BillingStatus[] = ['billed', 'needs_review', 'not_billed', 'waived'];

export function recordRoutes(store: AdminStore): Router {
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
  return router;
}
