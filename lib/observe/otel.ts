/**
 * GenAI metrics through an OpenTelemetry meter, for hosts that export with OpenTelemetry instead
 * of (or beside) Prometheus. Pass `metrics.getMeter('model-gateway')` from `@opentelemetry/api`:
 * without an SDK installed it is the API's no-op meter and records nothing.
 */
import { GatewayConfigError } from '../foundation/config-errors';
import { FIGURE_NAMES, tokensOf, USAGE_FIGURES } from '../billing/figures';
import { ownEntry } from '../foundation/own';
import type { RequestLogEntry } from '../stores/types';
import { DURATION_BUCKETS, OPERATION, TOKEN_BUCKETS, TTFT_BUCKETS } from './gen-ai';
import type { GatewayObserver } from './observer';

type Attributes = Record<string, string | number>;

/** The part of an OpenTelemetry `Meter` the gateway uses (`@opentelemetry/api` 1.x satisfies it). */
export interface MeterLike {
  createHistogram(name: string, options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } }): {
    record(value: number, attributes?: Attributes): void;
  };
  createCounter(name: string, options?: { description?: string; unit?: string }): {
    add(value: number, attributes?: Attributes): void;
  };
}

/** An observer recording the GenAI conventions' instruments and the gateway's request and charge counters on `meter`. */
export function otelObserver(meter: MeterLike): GatewayObserver {
  if (typeof meter?.createHistogram !== 'function' || typeof meter?.createCounter !== 'function') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'otelObserver: pass an OpenTelemetry Meter (e.g. metrics.getMeter("model-gateway") from @opentelemetry/api).');
  }
  const duration = meter.createHistogram('gen_ai.server.request.duration', { description: 'GenAI server request duration.', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  const ttft = meter.createHistogram('gen_ai.server.time_to_first_token', { description: 'Time to the first streamed byte.', unit: 's', advice: { explicitBucketBoundaries: TTFT_BUCKETS } });
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { description: 'Tokens per request as the upstream confirmed them.', unit: '{token}', advice: { explicitBucketBoundaries: TOKEN_BUCKETS } });
  const requests = meter.createCounter('model_gateway.requests', { description: 'Requests by endpoint, model, status and billing status.', unit: '{request}' });
  const charged = meter.createCounter('model_gateway.charged', { description: 'Whole minor units charged.', unit: '{unit}' });
  const usage = meter.createCounter('model_gateway.usage', { description: 'Usage the upstreams confirmed, by model and figure (type).', unit: '{unit}' });

  return {
    requestFinished(e: RequestLogEntry) {
      // A 404's model is the name a client asked for, not a catalog id: it gets no attribute of its own.
      const model = e.status === 404 ? '' : e.model ?? '';
      requests.add(1, { endpoint: e.endpoint, model, status: e.status, billing_status: e.billingStatus });
      if (e.charge > 0) charged.add(e.charge, { model });
      // Figures not believed (`implausible`) stay in the log for review, out of the metrics.
      const believed = e.usage && e.usage.provenance !== 'implausible' ? e.usage : null;
      if (believed) for (const name of FIGURE_NAMES) if (believed[name] > 0) usage.add(believed[name], { model, type: USAGE_FIGURES[name].name });
      const operation = ownEntry(OPERATION, e.endpoint);
      if (operation === undefined || model === '') return;
      const attributes: Attributes = { 'gen_ai.operation.name': operation, 'gen_ai.provider.name': e.upstream ?? '', 'gen_ai.request.model': model };
      if (e.errorCode !== null) attributes['error.type'] = e.errorCode; // the conventions set it only on failure
      duration.record(e.durationMs / 1000, attributes);
      if (e.ttfbMs !== null) ttft.record(e.ttfbMs / 1000, attributes);
      const u = believed;
      if (u && u.provenance !== 'none') {
        tokens.record(tokensOf(u, 'input'), { ...attributes, 'gen_ai.token.type': 'input' });
        if (operation === 'chat') tokens.record(u.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
      }
    },
  };
}
