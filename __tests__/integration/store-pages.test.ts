/**
 * Cursor pages on both stores: every list (keys, ledger, request log, reviews, audit, spend) holds
 * more than 100 entries, many sharing a time, beside another caller's; walked at every page size
 * from 1 to 7, it gives each entry exactly once, in its order.
 */
import { randomBytes } from 'node:crypto';
import { hashKey } from '../../lib/stores/hash';
import type { Awaitable, Page, RequestLogEntry, Usage } from '../../lib';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';

const N = 105;
const NOISE = 20;
const DAY = 86_400_000;
const BASE = Date.UTC(2026, 10, 20);
const usage: Usage = usageOf({ inputTokens: 10, outputTokens: 5 });
const hex = (): string => randomBytes(6).toString('hex');

type Key = readonly (number | string)[];
const compare = (a: Key, b: Key): number => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number | string) < (b[i] as number | string) ? -1 : 1;
  return 0;
};

/** A list, the ids it must give, and its order: `key` must fall (newest) or rise (oldest), strictly when the key is unique. */
interface Listing<T> {
  list: (page: { limit: number; after?: string }) => Awaitable<Page<T>>;
  id: (item: T) => string;
  key: (item: T) => Key;
  order: 'newest' | 'oldest';
  strict: boolean;
  expected: Set<string>;
}

/** Every page of a list at one page size: full pages until the last. */
async function walk<T>(list: Listing<T>['list'], limit: number): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await list({ limit, after });
    if (page.items.length > limit || (page.next !== null && page.items.length < limit)) throw new Error(`page of ${page.items.length} at limit ${limit}`);
    all.push(...page.items);
    if (page.next === null) return all;
    if (all.length > 10 * N) throw new Error('the pages never end');
    after = page.next;
  }
}

async function check<T>(name: string, l: Listing<T>): Promise<void> {
  expect(l.expected.size).toBeGreaterThan(100);
  let first: string[] | undefined;
  for (let limit = 1; limit <= 7; limit++) {
    const items = await walk(l.list, limit);
    const ids = items.map(l.id);
    const out = `${name} at limit ${limit}`;
    expect([out, new Set(ids).size]).toEqual([out, ids.length]); // none twice
    expect([out, [...ids].sort()]).toEqual([out, [...l.expected].sort()]); // none missing, no other
    const wrong = items.findIndex((item, i) => {
      if (i === 0) return false;
      const c = compare(l.key(items[i - 1] as T), l.key(item)) * (l.order === 'newest' ? -1 : 1);
      return l.strict ? c >= 0 : c > 0;
    });
    expect([out, wrong, wrong < 0 ? null : [l.key(items[wrong - 1] as T), l.key(items[wrong] as T)]]).toEqual([out, -1, null]);
    if (first) expect([out, ids]).toEqual([out, first]); // the same order at every size
    first ??= ids;
  }
}

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  beforeAll(async () => { made = await make(); });
  afterAll(async () => made.drop());

  it('every list gives each entry exactly once, in order, at every page size from 1 to 7', async () => {
    const { store } = made;
    const [keyCaller, ledgerCaller, logCaller, reviewCaller, other] = ['k', 'l', 'r', 'v', 'o'].map((p) => `${p}_${hex()}`) as [string, string, string, string, string];
    const target = `caller:${ledgerCaller}`;
    await store.addKey(`sk-${ledgerCaller}-0123456789`, { id: ledgerCaller });
    await store.addKey(`sk-${other}-0123456789`, { id: other });
    await store.addKey(`sk-${reviewCaller}-0123456789`, { id: reviewCaller });
    const each = <T>(n: number, fn: (i: number) => Awaitable<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

    // All made at once: rows share times (the same millisecond, a transaction's now()), ids interleave with another caller's.
    const keys = await each(N + NOISE, (i) => store.createKey({ keyHash: hashKey(`sk-page-${hex()}-${i}`), prefix: 'sk-page', callerId: i < N ? keyCaller : other }));
    const credits = await each(N + NOISE, (i) => store.credit({ callerId: i < N ? ledgerCaller : other, amount: i + 1, idempotencyKey: `page-${ledgerCaller}-${i}` }));
    const audits = await each(N + NOISE, (i) => store.appendAudit({ actor: 'ops', action: 'credit', target: i < N ? target : 'caller:other', before: null, after: { i } }));
    // Log lines arrive in another order than they started (a long stream ends after a short call), in clusters of one time.
    const lines: RequestLogEntry[] = Array.from({ length: N + NOISE }, (_, i) => ({
      requestId: `req_${hex()}`, callerId: i < N ? logCaller : other, endpoint: 'messages', model: `m${String(Math.floor(i / 3)).padStart(3, '0')}`, stream: false, status: 200,
      errorCode: null, usage, cost: '1.5', charge: 1, billingStatus: 'billed', startedAt: BASE + (i % 3) * DAY + (Math.floor(i / 3) % 5) * 1000,
      durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [],
    }));
    await each(lines.length, (i) => store.appendLog(lines[(i * 37) % lines.length] as RequestLogEntry));
    const flagged = await each(N + NOISE, async (i) => {
      const requestId = `req_${hex()}`;
      await store.settle({ requestId, callerId: i < N ? reviewCaller : other, model: 'm', endpoint: 'messages', cost: '0', billingStatus: 'needs_review', usage });
      return requestId;
    });

    await check('keys', {
      list: (p) => store.listKeys({ callerId: keyCaller, ...p }), id: (k) => k.keyId, key: (k) => [k.createdAt], order: 'newest', strict: false,
      expected: new Set(keys.slice(0, N).map((k) => k.keyId)),
    });
    const ledger = await store.listLedger({ callerId: ledgerCaller, limit: 1000 });
    expect(ledger.items.map((e) => e.amount).sort((a, b) => a - b)).toEqual(credits.slice(0, N).map((c) => c.amount));
    await check('ledger', {
      list: (p) => store.listLedger({ callerId: ledgerCaller, ...p }), id: (e) => e.id, key: (e) => [Number(e.id)], order: 'newest', strict: true,
      expected: new Set(ledger.items.map((e) => e.id)),
    });
    await check('request log', {
      list: (p) => store.listRequests({ callerId: logCaller, ...p }), id: (e) => e.requestId, key: (e) => [e.startedAt, e.requestId], order: 'newest', strict: true,
      expected: new Set(lines.slice(0, N).map((e) => e.requestId)),
    });
    await check('reviews', {
      list: (p) => store.listReviews({ callerId: reviewCaller, ...p }), id: (r) => r.requestId, key: (r) => [r.at], order: 'oldest', strict: false,
      expected: new Set(flagged.slice(0, N)),
    });
    await check('audit', {
      list: (p) => store.listAudit({ target, ...p }), id: (e) => e.id, key: (e) => [Number(e.id)], order: 'newest', strict: true,
      expected: new Set(audits.slice(0, N).map((e) => e.id)),
    });
    await check('spend', {
      list: (p) => store.spend({ callerId: logCaller, from: BASE, to: BASE + 3 * DAY, ...p }), id: (r) => `${r.day} ${r.model}`, key: (r) => [r.day, r.callerId, r.model], order: 'oldest', strict: true,
      expected: new Set(lines.slice(0, N).map((e) => `${new Date(e.startedAt).toISOString().slice(0, 10)} ${e.model}`)),
    });
  }, 60_000);

  it('a cursor that no page gave is refused naming `after` (malformed) or read as a place in the list (made up), never another error', async () => {
    const { store } = made;
    const cursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const malformed = ['not base64 JSON', cursor({}), cursor([1, 2, 3]), cursor('99999999999999999999'), cursor(['garbage', 'req_x'])];
    // Well formed, naming times no store wrote: PostgreSQL could not even cast them.
    const madeUp = [cursor(['2026-99-99T00:00:00.000000Z', 'x']), cursor(['2026-02-30T00:00:00.000000Z', 'x']), cursor(['2026-02-30', 'c', 'm'])];
    const lists: Array<(after: string) => unknown> = [
      (after) => store.listKeys({ after }), (after) => store.listLedger({ after }), (after) => store.listRequests({ after }),
      (after) => store.listReviews({ after }), (after) => store.listAudit({ after }), (after) => store.spend({ from: 0, to: Date.now(), after }),
    ];
    const refused = expect.objectContaining({ code: 'invalid_request_error', message: 'after: is not a cursor this list gave' });
    for (const [i, list] of lists.entries()) {
      for (const after of [...malformed, ...madeUp]) {
        const out = await Promise.resolve().then(() => list(after)).then((page) => (Array.isArray((page as { items?: unknown }).items) ? 'a page' : page), (e: unknown) => e);
        expect([i, after, out]).toEqual([i, after, malformed.includes(after) || out !== 'a page' ? refused : 'a page']);
      }
    }
  });
});
