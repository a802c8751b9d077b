/**
 * The ResponseStore contract on MemoryStore and PostgresStore (real PostgreSQL, own schema):
 * account scoping, idempotent writes, input-item pages as the API pages them, the size bound,
 * expiry and the sweep, and (PostgreSQL) a second instance reading a response the instant it was written.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError, MemoryStore, PostgresStore } from '../../lib';
import { responseExpiry } from '../../lib/stores/responses';
import type { InputItemsPage, InputItemsQuery, NewResponse, ResponseStore } from '../../lib';
import { encodeRecord } from '../../lib/stores/responses-rules';
import { BOTH_STORES, pgStore, type MadeStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';
import { refused } from '../helpers/config-error';

const hex = (n = 8): string => randomBytes(n).toString('hex');
const DAY = 86_400_000;
const MAX = { maxBytes: 1_048_576 };

/** A response as the route would store it: `items` input items with ids item_0…, unless given. */
function record(callerId: string, extra: Partial<NewResponse> & { items?: number } = {}): NewResponse {
  const id = extra.id ?? `resp_${hex(16)}`;
  const now = Date.now();
  const { items = 3, ...rest } = extra;
  return {
    id, callerId, requestId: `req_${hex()}`, model: 'claude', upstream: 'anthropic', upstreamResponseId: null, previousResponseId: null,
    // Keys in an order no sorting would give: they must come back in it.
    response: { status: 'completed', id, object: 'response', created_at: Math.floor(now / 1000), output: [{ type: 'message', id: `msg_${hex()}`, role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] }], model: 'claude', store: true },
    inputItems: Array.from({ length: items }, (_, i) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `item ${i}` }], id: `item_${i}` })),
    instructions: 'Be brief.', tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
    usage: usageOf({ inputTokens: 12, outputTokens: 3 }), createdAt: now, expiresAt: responseExpiry(now, 30), ...rest,
  };
}

/** Every page of a response's items, following `after` (or `before` from the end) until has_more is false. */
async function walk(rs: ResponseStore, caller: string, id: string, query: InputItemsQuery, backwards = false): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = (await rs.listInputItems(caller, id, { ...query, ...(cursor ? (backwards ? { before: cursor } : { after: cursor }) : {}) })) as InputItemsPage;
    const ids = page.data.map((item) => item.id);
    expect([page.object, page.first_id, page.last_id]).toEqual(['list', ids[0] ?? null, ids.at(-1) ?? null]);
    pages.push(ids);
    if (!page.has_more) return pages;
    expect(ids).toHaveLength(query.limit as number); // only a full page may say there is more
    cursor = (backwards ? page.first_id : page.last_id) as string;
    if (pages.length > 50) throw new Error('the pages never end');
  }
}

const refusal = async (call: () => unknown): Promise<unknown> => {
  try {
    await call();
  } catch (err) {
    return err instanceof GatewayError ? { status: err.status, code: err.code, message: err.message } : err;
  }
  throw new Error('not refused');
};

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let rs: ResponseStore;
  beforeAll(async () => { made = await make(); rs = made.store.responses; });
  afterAll(async () => made.drop());

  it('a response is readable as it was written, the moment putResponse resolves; items without an id (or repeating one) get one', async () => {
    const r = record('acme', { items: 0 });
    r.inputItems = [
      { role: 'user', content: 'plain' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }, { type: 'message', role: 'user', content: 'a', id: 'dup' },
      { type: 'message', role: 'user', content: 'b', id: 'dup' }, { type: 'message', role: 'user', content: 'nul \u0000 and é 🙂', id: 'msg_\u0000bad' },
    ];
    expect(await rs.putResponse(r, MAX)).toEqual({ stored: true });
    const got = await rs.getResponse('acme', r.id);
    expect(JSON.stringify(got?.response)).toBe(JSON.stringify(r.response)); // byte for byte, keys in their order
    expect(got).toMatchObject({ id: r.id, callerId: 'acme', requestId: r.requestId, model: 'claude', upstream: 'anthropic', upstreamResponseId: null, previousResponseId: null, instructions: 'Be brief.', tools: r.tools, usage: r.usage, createdAt: r.createdAt, expiresAt: r.expiresAt });
    const items = got?.inputItems ?? [];
    expect(items.map((i) => i.id)).toEqual([expect.stringMatching(/^msg_[0-9a-f]{32}$/), expect.stringMatching(/^fco_[0-9a-f]{32}$/), 'dup', expect.stringMatching(/^msg_[0-9a-f]{32}$/), expect.stringMatching(/^msg_[0-9a-f]{32}$/)]);
    expect(items.map(({ id: _id, ...rest }) => rest)).toEqual(r.inputItems.map(({ id: _id, ...rest }) => rest));
    expect(Object.keys(items[0] ?? {})).toEqual(['id', 'role', 'content']); // a new id goes first
    expect(new Set(items.map((i) => i.id)).size).toBe(5);
    // Chained, from a native upstream that stored it too.
    const chained = record('acme', { previousResponseId: r.id, upstream: 'openai', upstreamResponseId: 'resp_upstream_1', instructions: null });
    await rs.putResponse(chained, MAX);
    expect(await rs.getResponse('acme', chained.id)).toMatchObject({ previousResponseId: r.id, upstream: 'openai', upstreamResponseId: 'resp_upstream_1', instructions: null });
    // What a caller does to what it got changes nothing stored.
    (got?.inputItems[0] as Record<string, unknown>).content = 'changed';
    expect((await rs.getResponse('acme', r.id))?.inputItems[0]?.content).toBe('plain');
  });

  it("another account's response reads exactly as one that never existed: get, list and delete alike", async () => {
    const r = record('owner');
    await rs.putResponse(r, MAX);
    for (const [caller, id] of [['intruder', r.id], ['owner', `resp_${hex(16)}`], ['owner', 'resp_bad/id'], ['owner', 'not-a-response'], ['owner', 'resp_\u0000']]) {
      expect(await rs.getResponse(caller as string, id as string)).toBeUndefined();
      expect(await rs.listInputItems(caller as string, id as string)).toBeUndefined();
      expect(await rs.deleteResponse(caller as string, id as string)).toBe(false);
    }
    expect(await rs.getResponse('owner', r.id)).toMatchObject({ id: r.id }); // the intruder's delete did nothing
  });

  it('putResponse is idempotent on id: the same account again is a no-op, another account is refused; each request gets its note', async () => {
    const r = record('first');
    expect(await rs.putResponse(r, MAX)).toEqual({ stored: true });
    const retry = { ...r, response: { ...r.response, status: 'failed' }, requestId: `req_${hex()}` };
    expect(await rs.putResponse(retry, MAX)).toEqual({ stored: true });
    expect((await rs.getResponse('first', r.id))?.response.status).toBe('completed'); // the first write stays
    const stolen = { ...r, callerId: 'second', requestId: `req_${hex()}` };
    expect(await rs.putResponse(stolen, MAX)).toEqual({ stored: false, reason: 'conflict' });
    expect(await rs.getResponse('second', r.id)).toBeUndefined();
    expect(await rs.responseOfRequest(r.requestId)).toEqual({ requestId: r.requestId, responseId: r.id, callerId: 'first', stored: true, reason: null, previousResponseId: null });
    expect(await rs.responseOfRequest(stolen.requestId)).toMatchObject({ stored: false, reason: 'conflict' });
    // The route's own notes: a response not stored because the request said so; the first note of a request stays.
    const note = { requestId: `req_${hex()}`, responseId: `resp_${hex(16)}`, callerId: 'first', stored: false, reason: 'not_requested' as const, previousResponseId: r.id };
    await rs.noteResponse(note);
    await rs.noteResponse({ ...note, reason: 'disabled' });
    expect(await rs.responseOfRequest(note.requestId)).toEqual(note);
    expect(await rs.responseOfRequest('req_never')).toBeUndefined();
    // Concurrent writes of one id: one account wins, every write agrees on which.
    const contested = record('a');
    const results = await Promise.all([rs.putResponse(contested, MAX), rs.putResponse({ ...contested, callerId: 'b' }, MAX), rs.putResponse(contested, MAX)]);
    const [won, lost] = results[0]?.stored ? [{ stored: true }, { stored: false, reason: 'conflict' }] : [{ stored: false, reason: 'conflict' }, { stored: true }];
    expect(results).toEqual([won, lost, won]);
  });

  it('a malformed record is a TypeError naming the field, and nothing is stored', async () => {
    const r = record('acme');
    await expect(async () => rs.putResponse({ ...r, response: { ...r.response, id: 'resp_other' } }, MAX)).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /response must be the response object, with the same id/));
    await expect(async () => rs.putResponse({ ...r, id: 'chatcmpl_1' }, MAX)).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /id must match/));
    await expect(async () => rs.putResponse({ ...r, callerId: '' }, MAX)).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /callerId must be a non-empty string/));
    await expect(async () => rs.putResponse({ ...r, expiresAt: r.createdAt }, MAX)).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /expiresAt must be epoch ms after createdAt/));
    await expect(async () => rs.putResponse(r, { maxBytes: 0 })).rejects.toThrow(refused('ERR_MGW_INVALID_ARGUMENT', /limits.maxBytes must be a positive integer/));
    expect(await rs.getResponse('acme', r.id)).toBeUndefined();
  });

  it('deleteResponse removes it for good: its items and a second delete are not found', async () => {
    const r = record('acme');
    await rs.putResponse(r, MAX);
    expect(await rs.deleteResponse('acme', r.id)).toBe(true);
    expect([await rs.getResponse('acme', r.id), await rs.listInputItems('acme', r.id), await rs.deleteResponse('acme', r.id)]).toEqual([undefined, undefined, false]);
  });

  it('input items page as the API pages them: desc by default, 20 a page, after and before across page boundaries, has_more exact', async () => {
    const r = record('pager', { items: 7 });
    await rs.putResponse(r, MAX);
    const asc = Array.from({ length: 7 }, (_, i) => `item_${i}`);
    const desc = [...asc].reverse();
    const first = await rs.listInputItems('pager', r.id);
    expect(first).toEqual({ object: 'list', data: expect.any(Array), first_id: 'item_6', last_id: 'item_0', has_more: false });
    expect(first?.data.map((i) => i.id)).toEqual(desc);
    expect(first?.data[6]).toEqual(r.inputItems[0]); // each item as it was stored
    for (const order of ['asc', 'desc'] as const) {
      const all = order === 'asc' ? asc : desc;
      for (let limit = 1; limit <= 8; limit++) {
        const forward = await walk(rs, 'pager', r.id, { order, limit });
        expect([order, limit, forward.flat()]).toEqual([order, limit, all]);
        expect(forward.slice(0, -1).every((p) => p.length === limit)).toBe(true);
        // Backwards from the end, page by page: each page is the items just before the cursor, in the order asked.
        const last = all.at(-1) as string;
        const back = await walk(rs, 'pager', r.id, { order, limit, before: last }, true);
        expect([order, limit, back.reverse().flat()]).toEqual([order, limit, all.slice(0, -1)]);
      }
    }
    const page = async (q: InputItemsQuery) => { const p = await rs.listInputItems('pager', r.id, q); return [p?.data.map((i) => i.id), p?.has_more]; };
    expect(await page({ order: 'asc', after: 'item_1', limit: 2 })).toEqual([['item_2', 'item_3'], true]);
    expect(await page({ order: 'asc', after: 'item_4', limit: 2 })).toEqual([['item_5', 'item_6'], false]); // exactly the rest: no more
    expect(await page({ order: 'desc', after: 'item_5', limit: 2 })).toEqual([['item_4', 'item_3'], true]);
    expect(await page({ order: 'asc', before: 'item_4', limit: 2 })).toEqual([['item_2', 'item_3'], true]);
    expect(await page({ order: 'desc', before: 'item_2', limit: 3 })).toEqual([['item_5', 'item_4', 'item_3'], true]); // the three just before it
    expect(await page({ order: 'desc', before: 'item_3', limit: 3 })).toEqual([['item_6', 'item_5', 'item_4'], false]);
    expect(await page({ order: 'asc', after: 'item_1', before: 'item_5', limit: 2 })).toEqual([['item_2', 'item_3'], true]);
    expect(await page({ order: 'asc', after: 'item_1', before: 'item_5', limit: 3 })).toEqual([['item_2', 'item_3', 'item_4'], false]);
    expect(await page({ order: 'asc', after: 'item_6' })).toEqual([[], false]);
    expect(await rs.listInputItems('pager', r.id, { order: 'asc', after: 'item_6' })).toMatchObject({ first_id: null, last_id: null });
    const big = record('pager', { items: 25 });
    await rs.putResponse(big, MAX);
    const firstPage = await rs.listInputItems('pager', big.id);
    expect([firstPage?.data.length, firstPage?.first_id, firstPage?.has_more]).toEqual([20, 'item_24', true]);
    // Refusals name the field.
    const bad = (q: InputItemsQuery) => refusal(() => rs.listInputItems('pager', r.id, q));
    expect(await bad({ after: 'item_9' })).toEqual({ status: 400, code: 'invalid_request_error', message: `after: "item_9" is not an input item of ${r.id}` });
    expect(await bad({ before: 'nope' })).toMatchObject({ status: 400, message: expect.stringMatching(/^before: "nope" is not an input item/) });
    expect(await bad({ after: 'item_0\u0000' })).toMatchObject({ status: 400, message: 'after: must be the id of an input item' });
    for (const limit of [0, 101, 1.5]) expect(await bad({ limit })).toMatchObject({ status: 400, message: 'limit: must be an integer from 1 to 100' });
    expect(await bad({ order: 'up' as never })).toMatchObject({ status: 400, message: 'order: must be "asc" or "desc"' });
  });

  it('a response over maxBytes (its JSON: response, input items, instructions, tools) is not stored, and its note says why', async () => {
    const r = record('sizer', { items: 4 });
    const bytes = encodeRecord(r).bytes;
    expect(bytes).toBe([r.response, r.instructions, r.tools, ...r.inputItems].reduce((n, v) => n + Buffer.byteLength(JSON.stringify(v)), 0));
    expect(await rs.putResponse(r, { maxBytes: bytes - 1 })).toEqual({ stored: false, reason: 'too_large' });
    expect(await rs.getResponse('sizer', r.id)).toBeUndefined();
    expect(await rs.responseOfRequest(r.requestId)).toMatchObject({ responseId: r.id, stored: false, reason: 'too_large' });
    const fits = { ...r, requestId: `req_${hex()}` };
    expect(await rs.putResponse(fits, { maxBytes: bytes })).toEqual({ stored: true });
    expect(await rs.getResponse('sizer', r.id)).toMatchObject({ id: r.id });
  });

  it('an expired response is gone at once; the sweep removes what expired and nothing else; an erasure counts the readable ones', async () => {
    const now = Date.now();
    const expired = Array.from({ length: 3 }, () => record('ret', { createdAt: now - 2 * DAY, expiresAt: now - DAY }));
    const live = Array.from({ length: 2 }, () => record('ret'));
    const elsewhere = record('other');
    for (const r of [...expired, ...live, elsewhere]) expect(await rs.putResponse(r, MAX)).toEqual({ stored: true });
    for (const r of expired) expect([await rs.getResponse('ret', r.id), await rs.listInputItems('ret', r.id), await rs.deleteResponse('ret', r.id)]).toEqual([undefined, undefined, false]);
    expect(await rs.sweepExpiredResponses()).toBeGreaterThanOrEqual(3); // earlier tests' ones may be swept too, never a live one
    expect(await rs.sweepExpiredResponses()).toBe(0);
    for (const r of [...live, elsewhere]) expect((await rs.getResponse(r.callerId, r.id))?.inputItems).toHaveLength(3);
    // Erasing an account: its readable responses are counted and gone, another account's stay.
    const stale = record('ret', { createdAt: now - 2 * DAY, expiresAt: now - DAY });
    await rs.putResponse(stale, MAX);
    expect(await rs.deleteResponsesOf('ret')).toBe(2);
    expect(await rs.deleteResponsesOf('ret')).toBe(0);
    for (const r of live) expect(await rs.getResponse('ret', r.id)).toBeUndefined();
    expect(await rs.getResponse('other', elsewhere.id)).toMatchObject({ id: elsewhere.id });
    expect(await rs.sweepExpiredResponses()).toBe(0); // the erasure took the expired one too
  });
});

describe('MemoryStore bounds', () => {
  it('keeps the newest maxRecords responses and at most maxResponseBytes of them, dropping the oldest first', () => {
    const store = new MemoryStore({ maxRecords: 5, maxResponseBytes: 4000 });
    const rs = store.responses;
    const made = Array.from({ length: 8 }, () => record('m', { items: 1 }));
    for (const r of made) expect(rs.putResponse(r, MAX)).toEqual({ stored: true });
    expect(made.map((r) => rs.getResponse('m', r.id) !== undefined)).toEqual([false, false, false, true, true, true, true, true]);
    const heavy = record('m', { items: 30 });
    expect(encodeRecord(heavy).bytes).toBeGreaterThan(2500);
    expect(rs.putResponse(heavy, MAX)).toEqual({ stored: true });
    const kept = [...made, heavy].filter((r) => rs.getResponse('m', r.id) !== undefined);
    expect(kept.at(-1)?.id).toBe(heavy.id);
    expect(kept.reduce((n, r) => n + encodeRecord(r).bytes, 0)).toBeLessThanOrEqual(4000);
    expect(kept.length).toBeLessThan(5); // older ones went to make room
    expect(rs.putResponse(record('m', { items: 200 }), MAX)).toEqual({ stored: false, reason: 'too_large' }); // over the whole bound alone
    expect(() => new MemoryStore({ maxResponseBytes: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER', 'MemoryStore: option "maxResponseBytes" must be a positive integer of bytes.'));
  });

  it('an expired response at the front is dropped by the next put, not only hidden', () => {
    const store = new MemoryStore({ maxRecords: 100 });
    const rs = store.responses;
    const now = Date.now();
    for (let i = 0; i < 3; i++) rs.putResponse(record('m', { createdAt: now - 2 * DAY, expiresAt: now - DAY }), MAX);
    rs.putResponse(record('m'), MAX);
    expect(rs.sweepExpiredResponses()).toBe(0);
  });
});

describe('PostgresStore instances on one schema', () => {
  let a: Awaited<ReturnType<typeof pgStore>>;
  let b: PostgresStore;
  beforeAll(async () => {
    a = await pgStore();
    b = new PostgresStore({ pool: a.pool, schema: a.schema, sweepIntervalMs: 0, keyCacheMs: 0 });
  });
  afterAll(async () => { b.close(); await a.drop(); });

  it('a second instance reads a response (and pages its items) the instant putResponse resolved on the first', async () => {
    for (let i = 0; i < 20; i++) {
      const r = record('twin');
      await a.store.responses.putResponse(r, MAX);
      expect((await b.responses.getResponse('twin', r.id))?.id).toBe(r.id);
      expect((await b.responses.listInputItems('twin', r.id, { limit: 1 }))?.first_id).toBe('item_2');
    }
  });

  it('two instances sweeping at once take disjoint batches: no failure, every expired row counted once, the live ones kept', async () => {
    const s = a.schema;
    // 1300 expired rows (several batches each), with items, and 5 live ones.
    await a.pool.query(`INSERT INTO ${s}.responses (id, caller_id, request_id, model, upstream, response, instructions, tools, bytes, created_at, expires_at)
      SELECT 'resp_sweep_' || g, 'sweep', 'req_sweep_' || g, 'm', 'u', json_build_object('id', 'resp_sweep_' || g), 'null', '[]', 10, now() - interval '2 days', now() - interval '1 second' * g
      FROM generate_series(1, 1300) g`);
    await a.pool.query(`INSERT INTO ${s}.response_items (response_id, position, item_id, item) SELECT 'resp_sweep_' || g, 0, 'i', '{}' FROM generate_series(1, 1300) g`);
    const live = Array.from({ length: 5 }, () => record('sweep'));
    for (const r of live) await a.store.responses.putResponse(r, MAX);
    const counts = await Promise.all([a.store.responses.sweepExpiredResponses(), b.responses.sweepExpiredResponses(), a.store.responses.sweepExpiredResponses()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(1300);
    const left = await a.pool.query(`SELECT (SELECT count(*) FROM ${s}.responses WHERE caller_id = 'sweep')::int AS responses,
      (SELECT count(*) FROM ${s}.response_items WHERE response_id LIKE 'resp\\_sweep\\_%')::int AS orphans`);
    expect(left.rows[0]).toEqual({ responses: 5, orphans: 0 });
    for (const r of live) expect(await b.responses.getResponse('sweep', r.id)).toMatchObject({ id: r.id });
  });

  it('a sweep never waits on rows another transaction holds: it takes the others, and the held one at the next sweep', async () => {
    const now = Date.now();
    const [held, other] = [record('lock', { createdAt: now - 2 * DAY, expiresAt: now - DAY }), record('lock', { createdAt: now - 2 * DAY, expiresAt: now - DAY })];
    for (const r of [held, other]) await a.store.responses.putResponse(r as NewResponse, MAX);
    const client = await a.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT id FROM ${a.schema}.responses WHERE id = $1 FOR UPDATE`, [held.id]); // another instance's sweep, mid-way
      const swept = b.responses.sweepExpiredResponses();
      const waited = new Promise((resolve) => { setTimeout(resolve, 3000, 'waited').unref(); });
      expect(await Promise.race([swept, waited])).toBe(1);
    } finally {
      await client.query('COMMIT');
      client.release();
    }
    expect(await a.store.responses.sweepExpiredResponses()).toBe(1);
  });
});
