/** createAdminRouter(): the JSON admin API (keys, accounts, request log, reviews, spend, models, audit) and its dashboard, mounted apart from the public router. */
import { GatewayConfigError } from '../foundation/config-errors';
import express, { type RequestHandler, type Router } from 'express';
import { catalogReader, type ModelsOption } from '../catalog/catalog';
import { checkKnownOptions } from '../foundation/check-options';
import type { MessagesAdapter, RerankAdapter } from '../upstreams/types';
import { errorHandler } from '../middleware/error-handler';
import { jsonBody } from '../middleware/json-body';
import { notFound } from '../middleware/not-found';
import { requestId } from '../middleware/request-id';
import { sendJson } from '../wire/send-json';
import { adminAuth, AdminTokens, type AdminToken } from './auth';
import { currencyLabel, dashboardRoutes, sessionAuth } from './dashboard/routes';
import { DashboardSessions } from './dashboard/sessions';
import { signInLimitsOf } from './sign-in-limits';
import { adminOpenApi } from './openapi';
import { AdminCatalog } from './catalog';
import { ADMIN_ROUTES } from './routes';
import { ADMIN_METHODS, type AdminStore } from './store';
import { RouteMatcher, routerOf } from './table';

/** Options of createAdminRouter(). */
export interface AdminRouterOptions {
  /** The gateway's store (MemoryStore and PostgresStore have every method the API needs). Required. */
  store: AdminStore;
  /** Admin tokens; `read` ones may only GET. Required. */
  tokens: readonly AdminToken[];
  /**
   * The catalog for GET /models (pass the gateway router's `router.models`). PUT /models changes
   * it at runtime: kept by the store when it keeps catalog overrides (both built-in stores; every
   * router on the store follows), else on a live catalog only. Default: none (an empty list).
   */
  models?: ModelsOption;
  /** Adapters a replaced catalog may name, besides those the catalog already uses (by adapter name). Default: none. */
  upstreams?: Readonly<Record<string, MessagesAdapter | RerankAdapter>>;
  /**
   * The operator dashboard at `<mount>/dashboard/`, signed in with these tokens (docs/dashboard.md).
   * `true`: with sessions kept where the store keeps them (PostgresStore: shared by every instance;
   * else this router's own); a `DashboardSessions`: sessions shared with other routers (so a reload
   * keeps them) and its limits; `false`: no dashboard (wrong tokens are limited all the same). Default: true.
   */
  dashboard?: boolean | DashboardSessions;
  /**
   * What the dashboard calls one unit of money, the ledger's integer minor unit ("USD cents",
   * "¢", "credits"): shown with every balance, charge and price. Default: "minor units".
   */
  currency?: string;
}

/** Every option's name: a record, so the compiler checks it against AdminRouterOptions both ways. */
const ADMIN_OPTIONS = Object.keys({ store: true, tokens: true, models: true, upstreams: true, dashboard: true, currency: true } satisfies Record<keyof AdminRouterOptions, true>);

/**
 * Mount it on a path or port of its own (`app.use('/admin', createAdminRouter({ store, tokens }))`).
 * `GET /openapi.json` describes every route (OpenAPI 3.1); errors use the gateway's shape; every
 * write is in the audit trail with the token's name; no answer holds a secret but a new key's.
 * The dashboard (`/admin/dashboard/`) is a page over these same routes.
 */
export function createAdminRouter(options: AdminRouterOptions): Router {
  if (!options || typeof options !== 'object') throw new GatewayConfigError('ERR_MGW_MISSING_OPTION', 'createAdminRouter: pass an options object { store, tokens }.');
  checkKnownOptions('createAdminRouter', options, ADMIN_OPTIONS);
  const store = options.store;
  const missing = ADMIN_METHODS.filter((m) => typeof (store as unknown as Record<string, unknown> | undefined)?.[m] !== 'function');
  if (missing.length > 0) throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', `createAdminRouter: option "store" must implement ${missing.join(', ')} (MemoryStore and PostgresStore do).`);
  if (options.models !== undefined) catalogReader(options.models); // checked now, not at the first request
  const { dashboard = true } = options;
  if (typeof dashboard !== 'boolean' && !(dashboard instanceof DashboardSessions)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createAdminRouter: option "dashboard" must be true, false or a DashboardSessions.');
  const currency = currencyLabel(options.currency);
  const tokens = new AdminTokens(options.tokens);
  // Sessions and the limit on failed tokens live where the store keeps them (PostgresStore: shared by every instance).
  const sessions = dashboard === true ? new DashboardSessions({ store }) : dashboard || undefined;
  const limits = sessions?.limits ?? signInLimitsOf(store);
  const router = express.Router();
  const parse = jsonBody();
  // A JSON body where one is sent; a bodiless POST (disable, revoke…) reads as {}.
  const body: RequestHandler = function adminBody(req, res, next) {
    const sent = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (req.method === 'GET' || !sent) {
      req.body = {};
      next();
      return;
    }
    parse(req, res, next);
  };
  router.use(requestId({ endpoint: 'admin' }));
  if (sessions) router.use(dashboardRoutes(tokens, sessions, currency));
  const table = new RouteMatcher(ADMIN_ROUTES);
  router.use(adminAuth(tokens, limits, sessions && sessionAuth(sessions), (req) => table.writes(req)), body);
  router.get('/openapi.json', (_req, res) => sendJson(res, adminOpenApi));
  const catalog = new AdminCatalog(store, options.models, options.upstreams ?? {});
  // Allow-lists are checked against the catalog as it serves (none given: unchecked).
  const models = catalog.models === undefined ? undefined : catalogReader(catalog.models);
  router.use(routerOf(ADMIN_ROUTES, { store, catalog, models }));
  router.use(table.undocumentedMethod(), notFound(), errorHandler());
  return router;
}
