/** otelObserver(): the GenAI instruments through a real OpenTelemetry SDK meter, over real HTTP on MemoryStore and PostgresStore. */
import { metrics as otelApi } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import express from 'express';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRouter, otelObserver, type MeterLike } from '../../lib';
import { llmModels, postMessages, useFakeUpstreams } from '../helpers/gateway';
import { BOTH_STORES } from '../helpers/services';
import { refused } from '../helpers/config-error';

/** A reader the test collects from on demand. */
class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> { return Promise.resolve(); }
  protected onShutdown(): Promise<void> { return Promise.resolve(); }
}

const fakes = useFakeUpstreams();

it('the @opentelemetry/api meter fits, and records nothing without an SDK', () => {
  const meter: MeterLike = otelApi.getMeter('model-gateway'); // the API's no-op meter: no SDK registered
  expect(() => otelObserver(meter).requestFinished?.({} as never)).not.toThrow();
  expect(() => otelObserver({} as MeterLike)).toThrow(refused('ERR_MGW_INVALID_OPTION', /metrics.getMeter/));
});

describe.each(BOTH_STORES)('%s', (_name, make) => {
  it('records request duration, time to first token and token usage with the conventions\' attributes and buckets', async () => {
    const { store, drop } = await make();
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    const key = `sk-otel-${Math.random().toString(36).slice(2)}`;
    await store.addKey(key, { id: 'otel' });
    await store.credit({ callerId: 'otel', amount: 1_000_000, idempotencyKey: 'otel-opening' });
    const models = llmModels(fakes.anthropic.url, fakes.openai.url, ['claude-json', 'claude-stream', 'claude-status-500']);
    const router = createGatewayRouter({ store, models, observers: [otelObserver(provider.getMeter('model-gateway'))] });
    const app = express().use(router);
    const server = await new Promise<http.Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 4; i++) await (await postMessages(url, key, 'claude-json')).text();
      await (await postMessages(url, key, 'claude-stream', { stream: true })).text(); // 5 × 0.3 units: 1 whole unit charged through the carry
      expect((await postMessages(url, key, 'claude-status-500')).status).toBe(500);

      const read = async (): Promise<Map<string, HistogramMetricData | SumMetricData>> => {
        const { resourceMetrics } = await reader.collect();
        return new Map(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m as HistogramMetricData | SumMetricData]));
      };
      // A request is observed once settled, which with PostgreSQL may come after its answer.
      let found = await read();
      const requestCount = (m: Map<string, HistogramMetricData | SumMetricData>): number =>
        (m.get('model_gateway.requests')?.dataPoints ?? []).reduce((n, p) => n + (p.value as number), 0);
      for (let i = 0; i < 500 && requestCount(found) < 6; i++) {
        await new Promise((r) => setTimeout(r, 10));
        found = await read();
      }
      const duration = found.get('gen_ai.server.request.duration') as HistogramMetricData;
      expect(duration.descriptor.unit).toBe('s');
      const ok = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic' };
      const points = duration.dataPoints.map((p) => ({ attributes: p.attributes, count: p.value.count, boundaries: p.value.buckets.boundaries }));
      expect(points).toEqual(expect.arrayContaining([
        { attributes: { ...ok, 'gen_ai.request.model': 'claude-json' }, count: 4, boundaries: expect.arrayContaining([0.01, 81.92]) },
        { attributes: { ...ok, 'gen_ai.request.model': 'claude-status-500', 'error.type': 'api_error' }, count: 1, boundaries: expect.any(Array) },
      ]));
      const ttft = found.get('gen_ai.server.time_to_first_token') as HistogramMetricData;
      expect(ttft.dataPoints.map((p) => [p.attributes['gen_ai.request.model'], p.value.count])).toEqual([['claude-stream', 1]]);
      const tokens = found.get('gen_ai.client.token.usage') as HistogramMetricData;
      expect(tokens.descriptor.unit).toBe('{token}');
      const sums = Object.fromEntries(tokens.dataPoints.map((p) => [`${p.attributes['gen_ai.request.model']} ${p.attributes['gen_ai.token.type']}`, p.value.sum]));
      expect(sums).toEqual({ 'claude-json input': 100, 'claude-json output': 60, 'claude-stream input': 25, 'claude-stream output': 15 });
      const requests = found.get('model_gateway.requests') as SumMetricData;
      expect(requests.dataPoints.map((p) => [p.attributes.model, p.attributes.status, p.value])).toEqual(expect.arrayContaining([
        ['claude-json', 200, 4], ['claude-stream', 200, 1], ['claude-status-500', 500, 1],
      ]));
      expect((found.get('model_gateway.charged') as SumMetricData).dataPoints.reduce((n, p) => n + (p.value as number), 0)).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await router.close({ graceMs: 0 });
      await provider.shutdown();
      await drop();
    }
  });
});
