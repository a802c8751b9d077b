/** Admin routes for an overview: accounts lowest balance first, and the request log counted per time bucket. */
import express, { type Router } from 'express';
import { Query, route } from './http';
import type { AdminStore } from './store';

export function statsRoutes(store: AdminStore): Router {
  const router = express.Router();
  router.get('/accounts', route((req) => {
    const q = new Query(req.query);
    return store.listAccounts({ limit: q.int('limit'), after: q.str('after') });
  }));
  router.get('/stats/requests', route(async (req) => {
    const q = new Query(req.query);
    const query = { from: q.required('from', q.time('from')), to: q.required('to', q.time('to')), bucketMs: q.required('bucketMs', q.int('bucketMs')), callerId: q.str('callerId') };
    return { ...query, buckets: await store.requestSeries(query) };
  }));
  return router;
}
