/** Prometheus metrics (prom-client): the OpenTelemetry GenAI names, and the gateway's own. */
import { GatewayConfigError } from '../foundation/config-errors';
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ownEntry } from '../foundation/own';
import type { RequestLogEntry } from '../stores/types';
import { tokensOf } from '../billing/figures';
import { SETTLE_OUTCOMES } from '../schemas/shapes';
import { DURATION_BUCKETS, OPERATION, TOKEN_BUCKETS, TTFT_BUCKETS } from './gen-ai';
import type { GatewayObserver } from './observer';
import { RequestTally } from './request-tally';

/** Options of createMetrics(). */
export interface MetricsOptions {
  /** Where the metrics are registered. Default: a registry of their own (prom-client's global one is left alone). */
  registry?: Registry;
  /** A `caller` label on requests and charges: `'hashed'` (first 12 hex of its SHA-256), never the id itself. Default: `'none'`. */
  callerLabel?: 'none' | 'hashed';
}

/** Live figures of one router, read at each scrape. */
export interface LiveFigures {
  holdsOpen: number;
  openStreams: number;
}

/** The metrics: an observer for the router, a handler for scrapes, and the registry. */
export interface GatewayMetrics extends GatewayObserver {
  readonly registry: Registry;
  /** Serves the text exposition (mount it where your scraper looks, e.g. `app.get('/metrics', metrics.handler())`). */
  handler(): RequestHandler;
  /** Adds a router's live figures (createGatewayRouter does it for the router given these metrics); returns its removal. */
  addSource(read: () => LiveFigures): () => void;
}

const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const GEN_AI = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_type'] as const;

/** Creates the metrics; pass them to createGatewayRouter({ metrics }) and mount `handler()`. */
export function createMetrics({ registry = new Registry(), callerLabel = 'none' }: MetricsOptions = {}): GatewayMetrics {
  if (callerLabel !== 'none' && callerLabel !== 'hashed') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createMetrics: option "callerLabel" must be "none" or "hashed".');
  const registers = [registry];
  const byCaller = callerLabel === 'hashed' ? ['caller'] as const : [];
  const duration = new Histogram({ name: 'gen_ai_server_request_duration_seconds', help: 'GenAI server request duration (gen_ai.server.request.duration).', labelNames: GEN_AI, buckets: DURATION_BUCKETS, registers });
  const ttft = new Histogram({ name: 'gen_ai_server_time_to_first_token_seconds', help: 'Time to the first streamed byte (gen_ai.server.time_to_first_token).', labelNames: GEN_AI, buckets: TTFT_BUCKETS, registers });
  const tokens = new Histogram({ name: 'gen_ai_client_token_usage', help: 'Tokens per request as the upstream confirmed them (gen_ai.client.token.usage).', labelNames: [...GEN_AI, 'gen_ai_token_type'], buckets: TOKEN_BUCKETS, registers });
  // These three are tallied per request and added when read (request-tally.ts).
  const collect = (): void => tally.flush();
  const requests = new Counter({ name: 'model_gateway_requests_total', help: 'Requests by endpoint, model and status.', labelNames: ['endpoint', 'model', 'status', ...byCaller], registers, collect });
  const billing = new Counter({ name: 'model_gateway_billing_outcomes_total', help: `Requests by billing status (${SETTLE_OUTCOMES.join(', ')}).`, labelNames: ['billing_status'], registers, collect });
  const charged = new Counter({ name: 'model_gateway_charged_total', help: 'Whole minor units charged.', labelNames: ['model', ...byCaller], registers, collect });
  const usage = new Counter({ name: 'model_gateway_usage_total', help: 'Usage the upstreams confirmed, by model and figure (input, cache_read, cache_write_5m, cache_write_1h, output, web_search, search_units).', labelNames: ['model', 'type'], registers, collect });
  const tally = new RequestTally({ requests, billing, charged, usage });
  const limited = new Counter({ name: 'model_gateway_rate_limited_total', help: 'Requests refused by rpm, tpm or concurrency limits.', labelNames: ['endpoint'], registers });
  const failedOpen = new Counter({ name: 'model_gateway_limits_fail_open_total', help: 'Requests admitted without a limit because its backend failed (limits.failOpen), by limit (rpm, concurrency, tpm).', labelNames: ['limit'], registers });
  const failures = new Counter({ name: 'model_gateway_upstream_failures_total', help: 'Upstream failures by standard error code.', labelNames: ['upstream', 'code'], registers });
  const attempts = new Counter({ name: 'model_gateway_failover_attempts_total', help: 'Attempts made by failover(), by upstream and outcome.', labelNames: ['upstream', 'outcome'], registers });
  const storeCalls = new Histogram({ name: 'model_gateway_store_call_duration_seconds', help: 'Store call latency.', labelNames: ['operation'], buckets: STORE_BUCKETS, registers });
  const storeErrors = new Counter({ name: 'model_gateway_store_errors_total', help: 'Store calls that failed (writes are retried).', labelNames: ['operation'], registers });
  const setAside = new Counter({ name: 'model_gateway_writes_set_aside_total', help: 'Store writes given up on after their attempts.', labelNames: ['kind'], registers });
  const sources: Array<() => LiveFigures> = [];
  const live = (key: keyof LiveFigures) => function collect(this: Gauge) {
    this.set(sources.reduce((sum, read) => sum + read()[key], 0));
  };
  new Gauge({ name: 'model_gateway_holds_open', help: 'Balance holds of requests in flight on this instance.', registers, collect: live('holdsOpen') });
  new Gauge({ name: 'model_gateway_open_streams', help: 'Streams open to clients on this instance.', registers, collect: live('openStreams') });

  // Label sets are written out as literals: a spread copy made prom-client's hashing several times slower.
  const hashed = byCaller.length > 0;
  const callerOf = (e: RequestLogEntry): string => (e.callerId === null ? '' : createHash('sha256').update(e.callerId).digest('hex').slice(0, 12));

  return {
    registry,
    requestFinished(e) {
      // A 404's model is the name a client asked for, not a catalog id: it gets no label of its own.
      const model = e.status === 404 ? '' : e.model ?? '';
      tally.add(e.endpoint, model, e.status, e.billingStatus, e.charge, e.usage, hashed ? callerOf(e) : undefined);
      if (e.status === 429 && e.errorCode === 'rate_limit_error' && e.upstream === null) limited.inc({ endpoint: e.endpoint });
      if (e.errorCode !== null && e.upstream !== null) failures.inc({ upstream: e.upstream, code: e.errorCode });
      for (const a of e.attempts) attempts.inc({ upstream: a.upstream, outcome: a.ok ? 'ok' : 'failed' });
      const operation = ownEntry(OPERATION, e.endpoint);
      if (operation === undefined || model === '') return;
      const provider = e.upstream ?? '';
      const error = e.errorCode ?? '';
      const labels = { gen_ai_operation_name: operation, gen_ai_provider_name: provider, gen_ai_request_model: model, error_type: error };
      duration.observe(labels, e.durationMs / 1000);
      if (e.ttfbMs !== null) ttft.observe(labels, e.ttfbMs / 1000);
      if (e.usage && e.usage.provenance !== 'none' && e.usage.provenance !== 'implausible') {
        const u = e.usage;
        tokens.observe({ gen_ai_operation_name: operation, gen_ai_provider_name: provider, gen_ai_request_model: model, error_type: error, gen_ai_token_type: 'input' },
          tokensOf(u, 'input'));
        if (operation === 'chat') {
          tokens.observe({ gen_ai_operation_name: operation, gen_ai_provider_name: provider, gen_ai_request_model: model, error_type: error, gen_ai_token_type: 'output' }, u.outputTokens);
        }
      }
    },
    storeCall(operation, ms, error) {
      storeCalls.observe({ operation }, ms / 1000);
      if (error !== undefined) storeErrors.inc({ operation });
    },
    writeSetAside(kind) {
      setAside.inc({ kind });
    },
    limitsFailedOpen(kinds) {
      for (const limit of kinds) failedOpen.inc({ limit });
    },
    handler() {
      return function metricsHandler(_req, res, next) {
        registry.metrics().then((text) => {
          res.setHeader('content-type', registry.contentType);
          res.end(text);
        }, next);
      };
    },
    addSource(read) {
      sources.push(read);
      return () => {
        const at = sources.indexOf(read);
        if (at >= 0) sources.splice(at, 1);
      };
    },
  };
}
