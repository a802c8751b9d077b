/** createGatewayRouter(): composes the exported middleware factories into one mountable router. */
import express, { type Response, type Router } from 'express';
import type { LiveFigures } from './observe/metrics';
import { LiveCatalog } from './catalog/catalog';
import { followOverrides, reportOverrideError } from './catalog/follow';
import { compose } from './foundation/compose';
import { authenticate } from './middleware/authenticate';
import { billingHook } from './middleware/billing-hook';
import { compatVersion } from './middleware/compat-version';
import { countTokens } from './middleware/count-tokens';
import { errorHandler } from './middleware/error-handler';
import { gracefulShutdown } from './middleware/graceful-shutdown';
import { jsonBody } from './middleware/json-body';
import { limits } from './middleware/limits';
import { listModels } from './middleware/list-models';
import { methodNotAllowed, notFound, OPENAI_PATHS } from './middleware/not-found';
import { proxyChatCompletions } from './middleware/proxy-chat';
import { proxyMessages } from './middleware/proxy-messages';
import { proxyRerank } from './middleware/proxy-rerank';
import { proxyResponses } from './middleware/proxy-responses';
import { requestId, type RequestIdOptions } from './middleware/request-id';
import { reserve } from './middleware/reserve';
import { mintRunKeys } from './middleware/run-keys';
import { resolveModel } from './middleware/resolve-model';
import { validate } from './middleware/validate';
import { chatToMessages } from './middleware/chat-to-messages';
import { validateResponses } from './middleware/validate-responses';
import { responsesToMessages } from './middleware/responses-to-messages';
import { storedResponseEndpoint, storedResponses } from './middleware/responses-read';
import { responsesState } from './middleware/responses-state';
import { refuseWebSocket } from './middleware/websocket-refused';
import { resolveOptions, type GatewayOptions } from './options';
import { catalogOverridesOf } from './stores/catalog-overrides';
import type { WireFormat } from './wire/error-wire';

/** Holds and client streams of the requests in flight. */
function liveFigures(responses: Iterable<Response>): LiveFigures {
  let holdsOpen = 0;
  let openStreams = 0;
  for (const res of responses) {
    const ctx = res.locals.gateway;
    if (ctx?.hold !== undefined && ctx.hold > 0 && !ctx.settled) holdsOpen++;
    if (ctx?.stream && res.headersSent && !res.writableEnded) openStreams++;
  }
  return { holdsOpen, openStreams };
}

const NO_TOKENS = (): { inputTokens: number; outputTokens: number } => ({ inputTokens: 0, outputTokens: 0 });
const RESPONSES_COUNT = (inputTokens: number): object => ({ object: 'response.input_tokens', input_tokens: inputTokens });

/** The router, plus `close()`: graceful shutdown. */
export type GatewayRouter = Router & {
  /**
   * Stops accepting requests (529, retried by the SDKs), lets those in flight finish for up to
   * `graceMs` (default 10000), ends the rest (streams with an `error` event), then waits until
   * every settle and log write is stored.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /** Whether close() has begun (readiness fails from then on). */
  readonly draining: boolean;
  /**
   * The catalog this router serves; `models.replace([...])` swaps the configured list whole, at
   * once, on this instance (the runtime overrides a store keeps are laid over it again).
   */
  readonly models: LiveCatalog;
};

/**
 * Builds the gateway: `POST /v1/messages`, `POST /v1/messages/count_tokens`,
 * `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/responses/input_tokens`,
 * `GET`/`DELETE /v1/responses/:id`, `GET /v1/responses/:id/input_items`,
 * `POST /v1/rerank` (and `/v2/rerank`), `GET /v1/models` and
 * `GET /v1/models/:id`. Mount it anywhere: `app.use(router)` or
 * `app.use('/gw', router)`. Every stage is an exported factory; a host route can reuse them.
 */
export function createGatewayRouter(options: GatewayOptions): GatewayRouter {
  const config = resolveOptions(options);
  const { store } = config;
  const models = new LiveCatalog(config.catalog);
  // Runtime catalog edits the store keeps (PostgresStore: shared by every instance) are laid over the configured list.
  const role = catalogOverridesOf(options.store);
  const follower = role && followOverrides(models, role, reportOverrideError, config.storeTimeoutMs);
  const router = express.Router() as GatewayRouter;
  const paths = ['/v1', '/v2'];
  const estimator = config.estimator;
  const gate = gracefulShutdown();
  const { clock, ...bounds } = config.budgets;
  const auth = authenticate({ store, timeoutMs: config.storeTimeoutMs, clock });
  const holds = reserve({ store, leaseMs: config.holdLeaseMs, timeoutMs: config.storeTimeoutMs, failOpen: config.failOpen, estimator, clock, bounds });
  const hooks = { observer: config.observer };
  const admission = [limits(config.limits, hooks), holds];

  // Every route is one composed handler, from requestId() to its proxy: one router layer per
  // request instead of one per stage. requestId(), billingHook() and the gate act once per
  // request however often they are met. The model is resolved before validate() checks the body
  // against its profile: an unknown model is a 404 whatever the body holds.
  const billing = billingHook({ store, writer: config.writer, observer: config.observer, ...(config.onSettled ? { onSettled: config.onSettled } : {}) });
  // Each route knows its endpoint label; only unknown paths derive it from the URL.
  const bare = (endpoint?: RequestIdOptions['endpoint'], format?: WireFormat) => [requestId({ ...(endpoint ? { endpoint } : {}), ...(format ? { format } : {}) }), billing, gate];
  // A route that reads the catalog first makes sure it follows the store's runtime edits.
  const head = (endpoint: string, format?: WireFormat) => [...bare(endpoint, format), ...(follower ? [follower.gate] : [])];
  const messages = compose([...head('messages'), jsonBody({ limit: config.bodyLimit }), auth,
    compatVersion({ versions: config.versions }), resolveModel({ models, capability: 'llm' }),
    validate('messages', { models }), ...admission, proxyMessages({ keepAliveMs: config.keepAliveMs })]);
  // Chat completions: the same pipeline in OpenAI's shapes; chatToMessages() hands on a Messages body (the chat body kept as ctx.clientBody).
  const chat = compose([...head('chat_completions', 'openai'), jsonBody({ limit: config.bodyLimit }), auth, resolveModel({ models, capability: 'llm' }),
    validate('chat', { models, translate: false }), chatToMessages({ models }), ...admission, proxyChatCompletions({ keepAliveMs: config.keepAliveMs })]);
  // count_tokens: authenticated and limited by requests (it spends no tokens), never billed.
  const count = compose([...head('count_tokens'), jsonBody({ limit: config.bodyLimit }), auth,
    compatVersion({ versions: config.versions }), resolveModel({ models, capability: 'llm' }), validate('count_tokens', { models }),
    limits({ ...config.limits, estimator: NO_TOKENS }, hooks), countTokens({ estimator })]);
  // Responses: the same pipeline in the Responses format (responsesToMessages() hands on a Messages body);
  // responsesState() first prepends the history of a previous_response_id, and the answer is stored before its end is sent.
  const stored = { responses: config.responses, timeoutMs: config.storeTimeoutMs };
  const responses = compose([...head('responses', 'openai'), jsonBody({ limit: config.bodyLimit }), auth, resolveModel({ models, capability: 'llm' }),
    responsesState(stored), validateResponses({ models, translate: false }), responsesToMessages({ models, reasoningSecret: config.responses.reasoningSecret }), ...admission,
    proxyResponses({ keepAliveMs: config.keepAliveMs, responses: config.responses, storeTimeoutMs: config.storeTimeoutMs })]);
  const responsesCount = compose([...head('responses_input_tokens', 'openai'), jsonBody({ limit: config.bodyLimit }), auth,
    resolveModel({ models, capability: 'llm' }), responsesState(stored), validateResponses({ models, translate: false }), responsesToMessages({ models, count: true, reasoningSecret: config.responses.reasoningSecret }),
    limits({ ...config.limits, estimator: NO_TOKENS }, hooks), countTokens({ estimator, answer: RESPONSES_COUNT })]);
  const rerank = compose([...head('rerank'), jsonBody({ limit: config.bodyLimit }), auth,
    resolveModel({ models, capability: 'rerank' }), validate('rerank', { rerank: config.rerank }), ...admission, proxyRerank()]);
  router.post('/v1/messages', messages);
  router.post('/v1/messages/count_tokens', count);
  router.post('/v1/chat/completions', chat, errorHandler({ format: 'openai' }));
  router.post(['/v1/rerank', '/v2/rerank'], rerank);
  router.post('/v1/responses', responses, errorHandler({ format: 'openai' }));
  router.post('/v1/responses/input_tokens', responsesCount, errorHandler({ format: 'openai' }));
  // Run keys, minted by a key with the grant: only where the store keeps keys (both built-in stores).
  const keyStore = options.store as Partial<Parameters<typeof mintRunKeys>[0]['store']>;
  if (typeof keyStore.createKey === 'function' && typeof keyStore.getKey === 'function') {
    router.post('/v1/keys/run', compose([...head('run_keys'), jsonBody({ limit: '64kb' }), auth, limits({ ...config.limits, estimator: NO_TOKENS }),
      mintRunKeys({ store: keyStore as Parameters<typeof mintRunKeys>[0]['store'], models, clock })]));
    router.all('/v1/keys/run', compose([...bare('run_keys'), methodNotAllowed(['POST'])]));
  }
  // The models routes take a path parameter, which the router decodes (and may refuse) before
  // the route runs: the head goes in front of them, so that refusal is logged with its id too.
  router.use('/v1/models', compose(head('models')));
  router.get(['/v1/models', '/v1/models/:id'], compose([auth, listModels({ models })]));
  // A path served here, asked with another method: 405 with `allow`.
  router.all(['/v1/messages', '/v1/messages/count_tokens', '/v1/rerank', '/v2/rerank'], compose([...bare(), methodNotAllowed(['POST'])]));
  router.all('/v1/chat/completions', compose([...bare(undefined, 'openai'), methodNotAllowed(['POST'])]));
  router.all(['/v1/models', '/v1/models/:id'], methodNotAllowed(['GET', 'HEAD']));
  // WebSocket mode is not served (426: Codex falls back to HTTP).
  router.all(['/v1/responses', '/v1/responses/input_tokens'], compose([...bare(undefined, 'openai'), refuseWebSocket(), methodNotAllowed(['POST'])]));
  // Stored responses: read, deleted, their input items listed, as the caller's account; never billed, limited by requests.
  // The head goes first so that a path parameter the router refuses is logged too; each path's methods are named by a 405.
  const reads = storedResponses(stored);
  const readLimits = limits({ ...config.limits, estimator: NO_TOKENS }, hooks);
  const openaiErrors = errorHandler({ format: 'openai' });
  router.use('/v1/responses/', compose(bare(storedResponseEndpoint, 'openai')));
  router.get('/v1/responses/:id', compose([auth, readLimits, reads.get]), openaiErrors);
  router.delete('/v1/responses/:id', compose([auth, readLimits, reads.delete]), openaiErrors);
  router.get('/v1/responses/:id/input_items', compose([auth, readLimits, reads.inputItems]), openaiErrors);
  router.post('/v1/responses/:id/cancel', compose([auth, readLimits, reads.cancel]), openaiErrors);
  router.all('/v1/responses/:id', methodNotAllowed(['GET', 'DELETE']));
  router.all('/v1/responses/:id/input_items', methodNotAllowed(['GET']));
  router.all('/v1/responses/:id/cancel', methodNotAllowed(['POST']));
  router.use('/v1/responses', compose([...bare('unknown', 'openai'), notFound()]));
  // One label for every path not served: a client must not be able to mint metric series (the path is in the log's detail).
  // An OpenAI path's 404 answers in OpenAI's error shape, any other in Anthropic's.
  if (config.notFound) {
    router.use(OPENAI_PATHS as string[], compose([...bare('unknown', 'openai'), notFound()]));
    router.use(paths, compose([...bare('unknown'), notFound()]));
  }
  router.use(paths, errorHandler());
  const stopFigures = config.metrics?.addSource(() => liveFigures(gate.responses()));
  router.close = async ({ graceMs = 10_000 } = {}) => {
    await gate.drain(graceMs);
    await config.writer.flush(); // every settlement is written, so every hold it took is released
    holds.close();
    stopFigures?.();
  };
  Object.defineProperty(router, 'draining', { get: () => gate.closing });
  Object.defineProperty(router, 'models', { value: models });
  return router;
}
