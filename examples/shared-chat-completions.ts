/** Host app whose own OpenAI-format /v1/chat/completions shares balance, limits, log and billing with the gateway. */
import express, { type RequestHandler } from 'express';
import { createParser } from 'eventsource-parser';
import {
  authenticate, billingHook, createGatewayRouter, gatewayContext, jsonBody, limits, MemoryStore, requestId, reserve, resolveModel, errorHandler,
  GatewayError, openaiChatAdapter, upstreamError,
} from '../lib';
import type { GatewayStore, LimitsOptions, ModelEntry } from '../lib';

/** What the host passes in. */
export interface SharedAppOptions {
  store: GatewayStore;
  /** An OpenAI-compatible upstream for the host's own chat route and the gateway's models. */
  openaiBaseURL: string;
  openaiKey: string;
  limits?: LimitsOptions;
}

/** The host's own chat-completions handler: forwards the body and reports the usage the upstream confirmed. */
function chatCompletionsProxy(baseURL: string, apiKey: string): RequestHandler {
  return function chatCompletionsHandler(req, res, next) {
    const ctx = gatewayContext(res);
    const body = { ...req.body, model: ctx.model?.upstreamModel ?? ctx.model?.id };
    if (body.stream) body.stream_options = { include_usage: true };
    const controller = new AbortController();
    res.once('close', () => controller.abort());
    ctx.upstream = 'host-openai';
    ctx.stream = body.stream === true;
    ctx.work = (async () => {
      const upstream = await fetch(`${baseURL}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(body), signal: controller.signal,
      });
      if (!upstream.ok) throw upstreamError(upstream.status, await upstream.text());
      const report = (usage: { prompt_tokens?: number; completion_tokens?: number } | undefined): void => {
        if (!usage) return;
        ctx.usage.report({ inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 });
        ctx.usage.complete();
      };
      if (!ctx.stream) {
        const json = await upstream.json() as { usage?: { prompt_tokens?: number; completion_tokens?: number } };
        report(json.usage);
        res.json(json);
        return;
      }
      res.status(200).setHeader('content-type', 'text/event-stream');
      const parser = createParser({ onEvent: (e) => { if (e.data !== '[DONE]') report((JSON.parse(e.data) as { usage?: never }).usage); } });
      const decoder = new TextDecoder();
      for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        res.write(chunk);
      }
      res.end();
    })().catch((err: unknown) => {
      if (!res.headersSent) next(err instanceof GatewayError ? err : upstreamError(502, String(err)));
      else res.end();
    });
  };
}

/** Builds the host app: the gateway router and the host's chat route over one store and one set of limits. */
export function buildSharedApp(options: SharedAppOptions): { app: express.Express; close: () => Promise<void> } {
  const { store } = options;
  const openai = openaiChatAdapter({ baseURL: options.openaiBaseURL, apiKey: options.openaiKey });
  const models: ModelEntry[] = [
    { id: 'house-model', capability: 'llm', upstream: openai, upstreamModel: 'gpt-json', pricing: { input: 1_000_000, output: 2_000_000 } },
  ];
  const limitsOptions: LimitsOptions = { keyPrefix: 'shared-example', ...options.limits };
  const gateway = createGatewayRouter({ store, models, limits: limitsOptions });
  const app = express();
  // The host's own route, guarded by the same exported middlewares the router uses.
  app.post('/v1/chat/completions',
    requestId({ endpoint: 'chat_completions' }), billingHook({ store }), jsonBody(), authenticate({ store }),
    resolveModel({ models, capability: 'llm' }), limits(limitsOptions), reserve({ store }),
    chatCompletionsProxy(options.openaiBaseURL, options.openaiKey), errorHandler());
  app.use(gateway);
  return { app, close: () => gateway.close() };
}

if (require.main === module) {
  const store = new MemoryStore();
  store.addKey('sk-shared-demo', { id: 'demo', limits: { rpm: 60 } });
  store.credit({ callerId: 'demo', amount: 1_000_000, idempotencyKey: 'opening-demo' });
  const openaiBaseURL = process.env.OPENAI_BASE_URL;
  if (!openaiBaseURL) throw new Error('Set OPENAI_BASE_URL (and OPENAI_API_KEY) to an OpenAI-compatible upstream.');
  const { app } = buildSharedApp({ store, openaiBaseURL, openaiKey: process.env.OPENAI_API_KEY ?? '' });
  const port = Number(process.env.PORT ?? 8788);
  app.listen(port, '127.0.0.1', () => console.log(`shared host on http://127.0.0.1:${port} (key sk-shared-demo): /v1/messages and /v1/chat/completions`));
}
