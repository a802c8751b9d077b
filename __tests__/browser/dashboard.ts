/** A gateway with a fake upstream, its admin router and dashboard, and Chromium, for one test file; and what every such file checks last. */
import Anthropic from '@anthropic-ai/sdk';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { createAdminRouter, createGatewayRouter, MemoryStore, type AdminRouterOptions, type GatewayRouter } from '../../lib';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { llmModels } from '../helpers/gateway';
import { launch, watch, type Watch } from './browser';

export const OPS = 'browser-ops-token-0123456789';
export const VIEWER = 'browser-viewer-token-012345678';

/** A browser signed in: its page, what the page did, and the refusals it was made to meet (Chromium logs each as a console error). */
export interface Session {
  context: BrowserContext;
  page: Page;
  seen: Watch;
  origin: string;
  refusals: number[];
}

export interface Dashboard {
  store: MemoryStore;
  gateway: GatewayRouter;
  upstream: FakeServer;
  browser: Browser;
  /** The gateway's origin, and its admin router's mount. */
  origin: string;
  admin: string;
  /** Every watched page of the file. */
  sessions: Session[];
  /** Serves `app` on 127.0.0.1 (closed after the file); returns its port. */
  listen(app: http.RequestListener): Promise<number>;
  /** One Messages call with the Anthropic SDK; `statusOf` turns a call into its HTTP status. */
  ask(key: string, model?: string): Promise<Anthropic.Message>;
  /** A context of its own (cookies, storage; 1280 × 800 unless `options` say otherwise), its clipboard open to the gateway's page. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page signed in with `token` at the admin mount `at`, watched. */
  signedIn(token: string, at?: string, options?: BrowserContextOptions): Promise<Session>;
  /** Shows a view (loaded again when it is the one shown) and waits for its new render. */
  open(page: Page, hash: string, at?: string): Promise<void>;
  /** A read of the admin JSON API with the OPS token, as a script makes it: what the page's writes left there. */
  read(path: string): Promise<Record<string, unknown>>;
}

export const statusOf = (call: Promise<unknown>): Promise<number> => call.then(() => 200, (err: { status?: number }) => err.status ?? 0);
export const anthropic = (key: string, baseURL: string): Anthropic => new Anthropic({ apiKey: key, baseURL, maxRetries: 0 });

/**
 * Starts everything before the file's tests and stops it after. Models are priced at a few units a
 * request, so the spend charts have bars; tokens: OPS (write) and VIEWER (read).
 * `admin`: more options of the admin router (its `currency`).
 */
export function useDashboard(admin: Partial<AdminRouterOptions> = {}): Dashboard {
  const servers: http.Server[] = [];
  const d = { sessions: [] as Session[] } as Dashboard;
  d.listen = async (app) => {
    const server = http.createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  d.ask = (key, model = 'claude-json') => anthropic(key, d.origin).messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
  d.newContext = async (options = {}) => {
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
    context.setDefaultTimeout(10_000); // a wait this long is a failure, not a slow pass
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.origin });
    return context;
  };
  d.signedIn = async (token, at = d.admin, options) => {
    const context = await d.newContext(options);
    const page = await context.newPage();
    const session: Session = { context, page, seen: watch(page), origin: new URL(at).origin, refusals: [] };
    d.sessions.push(session);
    await page.goto(`${at}/dashboard/`);
    await page.getByLabel('Admin token').fill(token);
    await page.getByLabel('Admin token').press('Enter');
    await page.locator('main[data-view=overview]').waitFor();
    return session;
  };
  d.open = async (page, hash, at = d.admin) => {
    const target = `${at}/dashboard/#/${hash}`;
    // Each render names itself in data-turn: wait for a new one, not the view already shown.
    const turn = page.url().startsWith(`${at}/dashboard/`) ? await page.locator('main').getAttribute('data-turn') : null;
    if (page.url() === target) await page.reload();
    else await page.goto(target);
    await page.locator(`main[data-view=${hash.split(/[/?]/)[0]}]:not([data-turn="${turn}"])`).waitFor();
  };

  d.read = async (path) => (await fetch(`${d.admin}/${path}`, { headers: { authorization: `Bearer ${OPS}` } })).json() as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    d.upstream = await startAnthropicFake();
    d.store = new MemoryStore({ maxRecords: 20_000 });
    const models = llmModels(d.upstream.url, d.upstream.url, ['claude-json', 'claude-status-500', 'claude-midstream-error']).map((m) => ({ ...m, pricing: { input: 300_000, output: 1_500_000 } }));
    d.gateway = createGatewayRouter({ store: d.store, models });
    const app = express();
    app.use('/admin', createAdminRouter({ store: d.store, models: d.gateway.models, tokens: [{ name: 'ops', token: OPS, access: 'write' }, { name: 'viewer', token: VIEWER, access: 'read' }], ...admin }));
    app.use(d.gateway);
    d.origin = `http://127.0.0.1:${await d.listen(app)}`;
    d.admin = `${d.origin}/admin`;
    d.browser = await launch();
  }, 30_000);

  afterAll(async () => {
    await d.browser?.close();
    await Promise.all(servers.map((s) => { s.closeAllConnections(); return new Promise((r) => s.close(r)); }));
    await d.gateway?.close();
    await d.upstream?.close();
  });
  return d;
}

/** The file's last test: no watched page logged an error but the refusals its tests made, or asked another host for anything. */
export function itLeftNoTrace(d: Dashboard, pages: number): void {
  it('no page logged an error (but the refusals the tests asked for) or asked another host for anything', () => {
    expect(d.sessions.length).toBe(pages);
    for (const s of d.sessions) {
      expect(s.seen.requests.filter((u) => new URL(u).origin !== s.origin)).toEqual([]);
      const logged = s.seen.errors.map((e) => /^Failed to load resource: the server responded with a status of (\d{3}) /.exec(e)?.[1] ?? e);
      expect(logged.sort()).toEqual(s.refusals.map(String).sort());
    }
  });
}
