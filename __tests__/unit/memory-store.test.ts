/** MemoryStore's bounded records: the last maxRecords kept, at a cost that does not grow with maxRecords. */
import { MemoryStore } from '../../lib';
import type { RequestLogEntry } from '../../lib';

const entry = (i: number): RequestLogEntry => ({
  requestId: `req_${i}`, callerId: 'c', endpoint: 'messages', model: 'm', stream: false, status: 200, errorCode: null, usage: null,
  charge: 0, billingStatus: 'not_billed', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, ttfbMs: null, upstream: null,
  detail: null, user: null, attempts: [],
} as unknown as RequestLogEntry);

it('keeps exactly the last maxRecords log entries, oldest first', () => {
  const store = new MemoryStore({ maxRecords: 8 });
  for (let i = 0; i < 100; i++) {
    store.appendLog(entry(i));
    expect(store.getLog().map((e) => e.requestId)).toEqual(Array.from({ length: Math.min(8, i + 1) }, (_, k) => `req_${Math.max(0, i - 7) + k}`));
  }
});

it('logging and settling on full records cost the same whatever maxRecords, and recent settlements stay exactly-once', () => {
  const store = new MemoryStore({ maxRecords: 100_000 });
  const started = performance.now();
  for (let i = 0; i < 300_000; i++) {
    store.appendLog(entry(i));
    store.settle({ requestId: `req_${i}`, callerId: 'c', model: 'm', endpoint: 'messages', charge: 0, billingStatus: 'not_billed', usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, searchUnits: 0, provenance: 'none' } });
  }
  // Dropping the oldest record one at a time (a splice of the list, or the first key of a Set or
  // Map, whose deleted slots V8 walks again) costs ~35 µs per request at this size: 10+ s here.
  expect(performance.now() - started).toBeLessThan(3000);
  expect(store.settle({ requestId: 'req_299999', callerId: 'c', model: 'm', endpoint: 'messages', charge: 5, billingStatus: 'billed', usage: { inputTokens: 1, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, searchUnits: 0, provenance: 'confirmed' } })).toEqual({ applied: false });
  expect(store.getLog()).toHaveLength(100_000);
  expect(store.getLog()[0]?.requestId).toBe('req_200000');
});
