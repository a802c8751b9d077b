/** Starts a host app with the gateway on 127.0.0.1:0, over fake upstreams. */
import express from 'express';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { anthropicAdapter, createGatewayRouter, MemoryStore, openaiChatAdapter } from '../../lib';
import type { GatewayOptions, GatewayRouter, MemoryKey, ModelEntry, UpstreamTimeouts } from '../../lib';
import { startAnthropicFake } from './fake-anthropic';
import { startOpenAIFake } from './fake-openai';
import { UPSTREAM_KEY, type FakeServer } from './fake-server';

export interface RunningGateway {
  url: string;
  store: MemoryStore;
  router: GatewayRouter;
  server: http.Server;
  close(): Promise<void>;
}

/** A fresh random key for a new caller, added to the store with its opening balance (default 10,000,000). */
export function addCaller(store: MemoryStore, caller: Partial<MemoryKey> & { balance?: number } = {}): { key: string; id: string } {
  const { balance = 10_000_000, ...rest } = caller;
  const id = caller.id ?? `caller_${randomBytes(6).toString('hex')}`;
  const key = `sk-test-${randomBytes(16).toString('hex')}`;
  store.addKey(key, { ...rest, id });
  if (balance !== 0) store.credit({ callerId: id, amount: balance, idempotencyKey: `opening-${id}` });
  return { key, id };
}

export const PRICING = { input: 3_000, output: 15_000 };

/** Catalog entries whose upstream model names pick the fakes' behaviours. */
export function llmModels(anthropicUrl: string, openaiUrl: string, names: string[], timeouts?: UpstreamTimeouts): ModelEntry[] {
  const anthropic = anthropicAdapter({ baseURL: anthropicUrl, apiKey: UPSTREAM_KEY, timeouts });
  const openai = openaiChatAdapter({ baseURL: openaiUrl, apiKey: UPSTREAM_KEY, timeouts });
  return names.map((name) => ({
    id: name, capability: 'llm' as const, upstream: name.startsWith('gpt') ? openai : anthropic, pricing: PRICING,
  }));
}

export async function startGateway(options: Partial<GatewayOptions> & { models: readonly ModelEntry[] }, mount?: string): Promise<RunningGateway> {
  const store = (options.store as MemoryStore | undefined) ?? new MemoryStore();
  const router = createGatewayRouter({ ...options, store });
  const app = express();
  if (mount) app.use(mount, router);
  else app.use(router);
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${mount ?? ''}`,
    store, router, server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.close();
    },
  };
}

/** Waits until the store's log holds an entry for the request id (the log is written after the response). */
export async function logEntry(store: MemoryStore, requestId: string, timeoutMs = 3000): Promise<ReturnType<MemoryStore['getLog']>[number]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const entry = store.getLog().find((e) => e.requestId === requestId);
    if (entry) return entry;
    if (Date.now() > until) throw new Error(`no log entry for ${requestId}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Options of postMessages(). */
export interface MessagesCallOptions {
  stream?: boolean;
  maxTokens?: number;
  signal?: AbortSignal;
}

/** POSTs a one-line "Hello" Messages request with `x-api-key` and `anthropic-version: 2023-06-01`. */
export function postMessages(url: string, key: string, model: string, options: MessagesCallOptions = {}): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: 'POST', signal: options.signal,
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: options.maxTokens ?? 64, stream: options.stream ?? false, messages: [{ role: 'user', content: 'Hello' }] }),
  });
}

/** Starts the Anthropic and OpenAI fakes before the file's tests and closes them after; read `.anthropic.url` inside tests. */
export function useFakeUpstreams(): { anthropic: FakeServer; openai: FakeServer } {
  const fakes = {} as { anthropic: FakeServer; openai: FakeServer };
  beforeAll(async () => {
    [fakes.anthropic, fakes.openai] = await Promise.all([startAnthropicFake(), startOpenAIFake()]);
  });
  afterAll(async () => {
    await Promise.all([fakes.anthropic.close(), fakes.openai.close()]);
  });
  return fakes;
}
