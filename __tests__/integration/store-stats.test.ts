/** The overview reads (listAccounts, requestSeries) as one contract on MemoryStore and PostgresStore, and their admin routes checked against the OpenAPI document. */
import express from 'express';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminRouter, GatewayError } from '../../lib';
import type { RequestLogEntry } from '../../lib';
import { checkAgainstDocument } from '../helpers/admin-document';
import { BOTH_STORES, type MadeStore } from '../helpers/services';

const TOKEN = 'stats-admin-token-0123456789';
const HOUR = 3_600_000;
// Not a round time: bucket edges must hold at any millisecond.
const FROM = 1_700_000_000_123;

const entry = (requestId: string, startedAt: number, extra: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  requestId, callerId: 'acme', endpoint: 'messages', model: 'm', stream: false, status: 200, errorCode: null, usage: null, cost: '0', charge: 0,
  billingStatus: 'billed', startedAt, durationMs: 5, ttfbMs: null, upstream: 'fake', detail: null, user: null, attempts: [], ...extra,
});

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  beforeAll(async () => { made = await make(); });
  afterAll(async () => made.drop());

  it('listAccounts: lowest balance first, ties by caller id, with live holds, a page at a time', async () => {
    const { store } = made;
    await store.addKey('stats-key-zero-0123456789', { id: 'zero' });
    for (const [id, amount] of [['rich', 500], ['a-mid', 100], ['B-mid', 100], ['owing', -40]] as const) {
      await store.credit({ callerId: id, amount, idempotencyKey: `open-${id}`, createAccount: true });
    }
    await store.reserve({ callerId: 'rich', requestId: 'req_held', amount: 30, expiresAt: Date.now() + 60_000, instanceId: 'i' });
    const first = await store.listAccounts({ limit: 3 });
    expect(first.items).toEqual([{ callerId: 'owing', balance: -40, held: 0 }, { callerId: 'zero', balance: 0, held: 0 }, { callerId: 'B-mid', balance: 100, held: 0 }]); // caller ids in byte order
    const second = await store.listAccounts({ limit: 3, after: first.next as string });
    expect(second).toEqual({ items: [{ callerId: 'a-mid', balance: 100, held: 0 }, { callerId: 'rich', balance: 500, held: 30 }], next: null });
    await expect(Promise.resolve().then(() => store.listAccounts({ after: 'nope' }))).rejects.toThrow('after: is not a cursor this list gave');
    await expect(Promise.resolve().then(() => store.listAccounts({ limit: 0 }))).rejects.toThrow('limit: must be an integer from 1 to 1000');
  });

  it('requestSeries: every bucket from `from`, an entry at a bucket\'s first millisecond in it, errors by code or status, cost summed exactly', async () => {
    const { store } = made;
    const to = FROM + 3 * HOUR;
    const entries = [
      entry('req_s1', FROM, { cost: '0.3', charge: 0 }),
      entry('req_s2', FROM + HOUR - 1, { cost: '0.000000000001', charge: 1, status: 500, errorCode: 'api_error' }),
      entry('req_s3', FROM + HOUR, { cost: '2.5', charge: 2, status: 200, errorCode: 'overloaded_error' }), // a stream that failed after its headers
      entry('req_s4', to - 1, { status: 429, errorCode: null, callerId: 'other' }),
      entry('req_s5', to), // past the range
      entry('req_s6', FROM - 1), // before it
    ];
    await Promise.all(entries.map((e) => store.appendLog(e)));
    expect(await store.requestSeries({ from: FROM, to, bucketMs: HOUR })).toEqual([
      { at: FROM, requests: 2, errors: 1, cost: '0.300000000001', charge: 1 },
      { at: FROM + HOUR, requests: 1, errors: 1, cost: '2.5', charge: 2 },
      { at: FROM + 2 * HOUR, requests: 1, errors: 1, cost: '0', charge: 0 },
    ]);
    expect((await store.requestSeries({ from: FROM, to, bucketMs: HOUR, callerId: 'other' })).map((p) => p.requests)).toEqual([0, 0, 1]);
    // A range that is not a whole number of buckets ends with a shorter one.
    expect((await store.requestSeries({ from: FROM, to: FROM + HOUR + 1, bucketMs: HOUR })).map((p) => p.requests)).toEqual([2, 1]);
    for (const [query, message] of [
      [{ from: FROM, to, bucketMs: 1000 }, 'bucketMs: must be an integer of at least 60000'],
      [{ from: FROM, to: FROM + 1001 * 60_000, bucketMs: 60_000 }, 'bucketMs: the range holds 1001 buckets, more than 1000'],
      [{ from: to, to: FROM, bucketMs: HOUR }, 'from: must not be after to'],
    ] as const) {
      const refused = await Promise.resolve().then(() => store.requestSeries(query)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GatewayError);
      expect((refused as GatewayError).message).toContain(message);
    }
  });

  describe('over HTTP', () => {
    let server: http.Server;
    let url: string;
    beforeAll(async () => {
      const app = express().use('/admin', createAdminRouter({ store: made.store, tokens: [{ name: 'ops', token: TOKEN, access: 'read' }] }));
      server = await new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`;
    });
    afterAll(async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); });
    // Every answer, refusals included, is checked against the OpenAPI document.
    const get = async (path: string) => {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const body = await res.json() as Record<string, unknown>;
      checkAgainstDocument('GET', path.split('?')[0] as string, res.status, body);
      return { status: res.status, body };
    };

    it('GET /accounts and /stats/requests answer as the document describes; bad parameters are a 400 naming them', async () => {
      expect(await get('/accounts?limit=2')).toMatchObject({ status: 200, body: { items: [{ callerId: 'owing' }, { callerId: 'zero' }], next: expect.any(String) } });
      // Times as people type them, as every admin route takes them.
      const iso = (ms: number) => new Date(ms).toISOString();
      expect((await get(`/stats/requests?from=${iso(FROM)}&to=${FROM + 3 * HOUR}&bucketMs=${HOUR}`)).body.buckets).toHaveLength(3);
      expect((await get(`/stats/requests?from=${FROM}&to=${FROM + HOUR}&bucketMs=${HOUR}`)).body).toMatchObject({ from: FROM, to: FROM + HOUR, bucketMs: HOUR, buckets: [{ at: FROM, requests: 2 }] });
      expect(await get(`/stats/requests?from=${FROM}&bucketMs=${HOUR}`)).toMatchObject({ status: 400, body: { error: { message: 'to: Field required' } } });
      expect(await get(`/stats/requests?from=${FROM}&to=${FROM + HOUR}&bucketMs=x`)).toMatchObject({ status: 400, body: { error: { message: 'bucketMs: must be an integer' } } });
      expect(await get('/accounts?after=bogus')).toMatchObject({ status: 400, body: { error: { message: 'after: is not a cursor this list gave' } } });
    });
  });
});
