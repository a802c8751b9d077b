/** A tiny Express app around one or a few stages, composed as lib/router.ts does, for the stages' unit tests. */
import express, { type RequestHandler } from 'express';
import { anthropicAdapter, compose, createCatalog, errorHandler, MemoryStore, requestId, type ModelEntry } from '../../../lib';
import type { GatewayContext } from '../../../lib/context';
import type { WireFormat } from '../../../lib/wire/error-wire';

/** What the last handler answers when every stage let the request through: facts of the context and the body as the stages left it. */
export interface Reached {
  reached: true;
  caller?: string;
  model?: string;
  stream: boolean;
  user?: string;
  hold?: number;
  detail?: string;
  body: unknown;
}

/** An app: requestId(), `stages`, a last handler answering {@link Reached}, errorHandler(). */
export function stageApp(stages: readonly RequestHandler[], options: { format?: WireFormat; json?: boolean } = {}): express.Express {
  const app = express();
  if (options.json !== false) app.use(express.json());
  const last: RequestHandler = (req, res) => {
    const ctx = res.locals.gateway as GatewayContext;
    const out: Reached = { reached: true, stream: ctx.stream, body: req.body };
    if (ctx.caller) out.caller = ctx.caller.id;
    if (ctx.model) out.model = ctx.model.id;
    if (ctx.user !== undefined) out.user = ctx.user;
    if (ctx.hold !== undefined) out.hold = ctx.hold;
    if (ctx.detail !== undefined) out.detail = ctx.detail;
    res.json(out);
  };
  app.post('/v1/:endpoint', compose([requestId(options.format ? { format: options.format } : {}), ...stages, last]));
  app.get('/v1/:endpoint', compose([requestId(options.format ? { format: options.format } : {}), ...stages, last]));
  app.use(errorHandler());
  return app;
}

/** A real adapter that is never called (its upstream is a closed port). */
export const UNUSED = anthropicAdapter({ baseURL: 'http://127.0.0.1:9', apiKey: 'sk-unused' });

/** A catalog: an llm V1 model, an agent-ready one with an output bound, a clamped one. */
export const MODELS: ModelEntry[] = [
  { id: 'plain', capability: 'llm', upstream: UNUSED, pricing: { input: 1_000, output: 2_000 } },
  { id: 'agent', capability: 'llm', upstream: UNUSED, pricing: { input: 1_000, output: 2_000 }, agentReady: true, maxOutputTokens: 100 },
  { id: 'clamped', capability: 'llm', upstream: UNUSED, pricing: { input: 1_000, output: 2_000 }, maxOutputTokens: 100, clampMaxTokens: true },
  { id: 'free', capability: 'llm', upstream: UNUSED, free: true },
];
export const CATALOG = createCatalog(MODELS);

/** A MemoryStore with one caller of key `sk-good` (balance `balance`), and a disabled one of key `sk-off`. */
export function storeWithCaller(balance = 1_000_000, models?: string[]): MemoryStore {
  const store = new MemoryStore();
  store.addKey('sk-good', { id: 'acct_1', ...(models ? { models } : {}) });
  store.addKey('sk-off', { id: 'acct_off', disabled: true });
  if (balance > 0) store.credit({ callerId: 'acct_1', amount: balance, idempotencyKey: 'opening' });
  return store;
}
