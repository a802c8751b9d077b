/** dashboardRoutes(): the dashboard's page, files, sign-in and sign-out; sessionAuth(): a session as adminAuth's second way in. */
import { GatewayConfigError } from '../../foundation/config-errors';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { GatewayError } from '../../foundation/errors';
import { sendJson } from '../../wire/send-json';
import type { AdminTokens, SessionAuth } from '../auth';
import { assetOf, loadAssets, securityHeaders, sendAsset } from './assets';
import { figuresModule } from './figures';
import { SHELL_HTML, signInHtml } from './html';
import { DashboardSessions, type DashboardSession } from './sessions';

/** The session cookie; its path is the admin router's mount, so it goes nowhere else. */
export const SESSION_COOKIE = 'mgw_session';
/** The header the page sends its session's CSRF token in, with every write. */
export const CSRF_HEADER = 'x-csrf-token';

function readCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}

const cookiePath = (req: Request): string => req.baseUrl || '/';

/** The label of money when none is configured: the docs' word for the ledger's integer unit. */
const DEFAULT_CURRENCY = 'minor units';

/** The `currency` option, checked: a short label of printable characters (it is shown as text, never as HTML). */
export function currencyLabel(label: unknown = DEFAULT_CURRENCY): string {
  if (typeof label !== 'string' || label.trim().length === 0 || label.length > 40 || /\p{Cc}/u.test(label)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createAdminRouter: option "currency" must be a label of 1 to 40 printable characters, e.g. "USD cents".');
  }
  return label.trim();
}

/** A request a browser made from another site or origin (a cross-site form or a framed page); a request with neither header is no browser's. */
function crossOrigin(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  return origin !== undefined && origin !== 'null' && URL.canParse(origin) && new URL(origin).host !== req.headers.host;
}

/**
 * A session as a way to authenticate an admin request: its cookie, a token still configured
 * (with the access it has now), and for every write the session's CSRF token in `x-csrf-token`.
 */
export function sessionAuth(sessions: DashboardSessions): SessionAuth {
  return async (req, tokens) => {
    const session = await sessions.find(readCookie(req), tokens);
    if (!session) return undefined;
    if (req.method !== 'GET' && !DashboardSessions.csrfMatches(session, req.headers[CSRF_HEADER])) {
      return new GatewayError('permission_error', `${CSRF_HEADER}: a write with a dashboard session must carry the page's CSRF token (a cross-site request cannot).`);
    }
    return session.identity;
  };
}

/** An async route: anything it throws goes to the error handler. */
const handle = (work: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler => (req, res, next) => {
  work(req, res, next).catch(next);
};

/** The dashboard under `/dashboard/`, before adminAuth: the page needs a session, the sign-in page and the files do not; `currency` labels its money. */
export function dashboardRoutes(tokens: AdminTokens, sessions: DashboardSessions, currency = currencyLabel()): Router {
  const assets = loadAssets().set('figures.js', assetOf('.js', Buffer.from(figuresModule())));
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  const current = (req: Request): Promise<DashboardSession | undefined> => sessions.find(readCookie(req), tokens);
  const html = (res: Response, status: number, body: string): void => {
    res.status(status).set('cache-control', 'no-store').type('html').send(body);
  };

  router.use('/dashboard', securityHeaders);
  router.get('/', (req, res) => res.redirect(303, `${req.baseUrl}/dashboard/`));
  router.get('/dashboard', handle(async (req, res) => {
    // Relative links resolve from the trailing slash, wherever the router is mounted.
    if (!req.originalUrl.split('?')[0]?.endsWith('/')) res.redirect(303, `${req.baseUrl}/dashboard/`);
    else if (await current(req)) html(res, 200, SHELL_HTML);
    else res.redirect(303, 'sign-in');
  }));
  router.get('/dashboard/sign-in', handle(async (req, res) => ((await current(req)) ? res.redirect(303, './') : html(res, 200, signInHtml()))));
  router.post('/dashboard/sign-in', form, handle(async (req, res) => {
    const client = req.ip ?? 'unknown';
    if (crossOrigin(req)) return html(res, 403, signInHtml('Sign in from this page: a sign-in sent from another site is refused.'));
    const wait = await sessions.limits.waitOf(client);
    if (wait !== undefined) {
      res.set('retry-after', String(wait));
      return html(res, 429, signInHtml(`Too many failed sign-ins from your address: try again in ${Math.ceil(wait / 60)} minute(s).`));
    }
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    const found = typeof token === 'string' && token.length > 0 && token.length <= 1024 ? tokens.identify(token) : undefined;
    if (!found) {
      await sessions.limits.failed(client);
      return html(res, 401, signInHtml('That is not an admin token of this gateway.'));
    }
    // A sign-in forgets no failure: they only age out.
    const { id } = await sessions.open(found);
    res.cookie(SESSION_COOKIE, id, { path: cookiePath(req), httpOnly: true, sameSite: 'strict', secure: req.secure, maxAge: sessions.ttlMs });
    return res.redirect(303, './');
  }));
  router.get('/dashboard/session', handle(async (req, res, next) => {
    const session = await current(req);
    if (!session) return next(new GatewayError('authentication_error', 'session: sign in at the dashboard first.'));
    res.set('cache-control', 'no-store');
    return sendJson(res, { ...session.identity, csrf: session.csrf, expiresAt: session.expiresAt, idleMs: sessions.idleMs, currency });
  }));
  router.post('/dashboard/sign-out', handle(async (req, res, next) => {
    const id = readCookie(req);
    const session = await sessions.find(id, tokens);
    if (session && !DashboardSessions.csrfMatches(session, req.headers[CSRF_HEADER])) return next(new GatewayError('permission_error', `${CSRF_HEADER}: sign out from the dashboard's page.`));
    await sessions.close(id);
    res.clearCookie(SESSION_COOKIE, { path: cookiePath(req), httpOnly: true, sameSite: 'strict', secure: req.secure });
    return res.status(204).end();
  }));
  router.use('/dashboard/assets', (req, res, next) => {
    const asset = req.method === 'GET' || req.method === 'HEAD' ? assets.get(req.path.slice(1)) : undefined;
    if (asset) sendAsset(req, res, asset);
    else next(new GatewayError('not_found_error', `${req.path.slice(1)}: no such dashboard file`));
  });
  return router;
}
