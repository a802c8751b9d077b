/** Admin routes for what happened: the request log (filters, one by id), the audit trail, the model catalog. */
import express, { type Router } from 'express';
import type { Catalog } from '../catalog';
import type { BillingStatus } from '../stores/types';
import { GatewayError } from '../errors';
import { notFoundError, Query, route } from './http';
import type { AdminStore } from './store';

const BILLING: readonly BillingStatus[] = ['billed', 'needs_review', 'not_billed', 'waived'];

export function recordRoutes(store: AdminStore, catalog: Catalog | undefined): Router {
  const router = express.Router();
  router.get('/requests', route((req) => {
    const q = new Query(req.query);
    const billingStatus = q.str('billingStatus') as BillingStatus | undefined;
    if (billingStatus !== undefined && !BILLING.includes(billingStatus)) throw new GatewayError('invalid_request_error', `billingStatus: must be one of ${BILLING.join(', ')}`);
    return store.listRequests({
      callerId: q.str('callerId'), model: q.str('model'), endpoint: q.str('endpoint'), status: q.int('status'), billingStatus,
      from: q.int('from'), to: q.int('to'), limit: q.int('limit'), after: q.str('after'),
    });
  }));
  router.get('/requests/:requestId', route(async (req) => {
    const requestId = String(req.params.requestId);
    return (await store.listRequests({ requestId, limit: 1 })).items[0] ?? Promise.reject(notFoundError(`requestId: ${requestId}`));
  }));
  router.get('/audit', route((req) => {
    const q = new Query(req.query);
    return store.listAudit({ target: q.str('target'), limit: q.int('limit'), after: q.str('after') });
  }));
  // The catalog as it serves (adapters by name: they are code, not data).
  router.get('/models', route(() => ({
    models: (catalog?.models ?? []).map((m) => ({
      id: m.id, capability: m.capability, upstream: m.upstream.name, upstreamModel: m.upstreamModel ?? m.id, pricing: m.pricing ?? null,
      free: m.free === true, maxOutputTokens: m.maxOutputTokens ?? null, temperature: m.temperature !== false,
    })),
  })));
  return router;
}
