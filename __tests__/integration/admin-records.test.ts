/** The admin API's money and records over real HTTP on both stores: unknown accounts, allow-lists in the catalog, times as people type them, one list shape. */
import express from 'express';
import { createAdminRouter, LiveCatalog } from '../../lib';
import { adminOpenApi } from '../../lib/admin/openapi';
import { checkAgainstDocument, checkRequestBody, templateOf } from '../helpers/admin-document';
import { llmModels } from '../helpers/gateway';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { usageOf } from '../helpers/usage';
import { listen } from '../helpers/local';

const TOKEN = 'admin-records-token-0123456789';
const DAY = 86_400_000;
const usage = usageOf({ inputTokens: 10, outputTokens: 5 });

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;
  const catalog = new LiveCatalog(llmModels('http://127.0.0.1:9', 'http://127.0.0.1:9', ['claude-a', 'claude-b']));

  beforeAll(async () => {
    made = await make();
    const app = express();
    const tokens = [{ name: 'ops', token: TOKEN, access: 'write' as const }];
    app.use('/admin', createAdminRouter({ store: made.store, models: catalog, tokens }));
    app.use('/bare', createAdminRouter({ store: made.store, tokens })); // no catalog: allow-lists are not checked
    server = await listen(app);
    ({ url } = server);
  });
  afterAll(async () => {
    await server.close();
    await made.drop();
  });

  /** One admin call; every answer is checked against the OpenAPI document. */
  async function admin(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, mount = '/admin'): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${url}${mount}${path}`, {
      method, headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json()) as unknown;
    checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
    return { status: res.status, body: parsed };
  }
  const credit = (callerId: string, body: object, key: string) => admin('POST', `/accounts/${callerId}/credits`, body, { 'idempotency-key': key });

  it('a credit or debit to a caller with no account is a 404 naming it, unless the body opens the account; a retry of an applied one never fails', async () => {
    const ghost = { status: 404, body: { error: { type: 'not_found_error', message: 'callerId: no account "ghost"; check the id, create a key for the caller, or credit it with createAccount: true to open one.' } } };
    expect(await credit('ghost', { amount: 100 }, 'ghost-1')).toMatchObject(ghost);
    expect(await credit('ghost', { amount: -100 }, 'ghost-2')).toMatchObject(ghost);
    expect(await admin('GET', '/accounts/ghost')).toMatchObject(ghost);
    expect((await admin('GET', '/audit?target=caller:ghost')).body.items).toEqual([]);
    expect(await credit('ghost', { amount: 100, createAccount: 'yes' }, 'ghost-3')).toMatchObject({ status: 400, body: { error: { message: 'createAccount: must be boolean' } } });

    expect(await credit('newcomer', { amount: 100, createAccount: true }, 'new-1')).toMatchObject({ status: 200, body: { applied: true, account: { balance: 100 } } });
    expect(await credit('newcomer', { amount: 100 }, 'new-1')).toMatchObject({ status: 200, body: { applied: false, account: { balance: 100 } } }); // the retry, without the flag
    expect(await credit('newcomer', { amount: -30 }, 'new-2')).toMatchObject({ status: 200, body: { applied: true, account: { balance: 70 } } });
    expect((await admin('GET', '/accounts/newcomer')).body).toEqual({ callerId: 'newcomer', balance: 70, held: 0, carry: '0', ledger: 70 });
    expect((await admin('GET', '/audit?target=caller:newcomer')).body.items.map((e: { action: string; before: unknown }) => [e.action, e.before])).toEqual([
      ['debit', expect.objectContaining({ balance: 100 })], ['credit', null],
    ]);
    // A key makes the account: a credit needs no flag then.
    expect((await admin('POST', '/keys', { callerId: 'keyed' })).status).toBe(201);
    expect((await admin('GET', '/accounts/keyed')).body).toEqual({ callerId: 'keyed', balance: 0, held: 0, carry: '0', ledger: 0 });
    expect(await credit('keyed', { amount: 5 }, 'keyed-1')).toMatchObject({ status: 200, body: { applied: true } });
  });

  it('a key whose models name one the catalog does not serve is refused (400 naming it); no catalog, no check', async () => {
    const refused = { status: 400, body: { error: { message: 'models.1: "claude-c" is not in the catalog (known: claude-a, claude-b)' } } };
    expect(await admin('POST', '/keys', { callerId: 'picky', models: ['claude-a', 'claude-c'] })).toMatchObject(refused);
    expect((await admin('GET', '/keys?callerId=picky')).body.items).toEqual([]);
    const created = await admin('POST', '/keys', { callerId: 'picky', models: ['claude-b'] });
    expect(created.status).toBe(201);
    expect(await admin('PATCH', `/keys/${created.body.record.keyId}`, { models: ['claude-a', 'claude-c'] })).toMatchObject(refused);
    expect((await admin('PATCH', `/keys/${created.body.record.keyId}`, { models: null })).body.models).toBeNull();
    // The catalog as it serves now: a model added at runtime may be granted at once.
    const models = (await admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
    expect((await admin('PUT', '/models', { models: [...models, { ...models[0], id: 'claude-c' }] })).status).toBe(200);
    expect((await admin('PATCH', `/keys/${created.body.record.keyId}`, { models: ['claude-a', 'claude-c'] })).body.models).toEqual(['claude-a', 'claude-c']);
    expect((await admin('PUT', '/models', { models })).status).toBe(200);
    expect((await admin('POST', '/keys', { callerId: 'free', models: ['anything'] }, {}, '/bare')).status).toBe(201);
  });

  it('times: epoch milliseconds or ISO 8601 in every time parameter and body field; anything else is a 400 naming the field and both forms', async () => {
    const at = Date.UTC(2026, 10, 24, 10);
    await made.store.addKey('sk-times-0123456789abcdef', { id: 'times' });
    for (const [i, startedAt] of [at - DAY, at, at + 1000, at + DAY].entries()) {
      await made.store.appendLog({ requestId: `req_times_${i}`, callerId: 'times', endpoint: 'messages', model: 'claude-a', stream: false, status: 200, errorCode: null, usage,
        cost: '2', charge: 2, billingStatus: 'billed', startedAt, durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [] });
    }
    const ids = async (query: string) => (await admin('GET', `/requests?callerId=times&${query}`)).body.items.map((e: { requestId: string }) => e.requestId);
    const day = ['req_times_2', 'req_times_1'];
    expect(await ids(`from=${at}&to=${at + DAY}`)).toEqual(day);
    expect(await ids('from=2026-11-24T10:00:00Z&to=2026-11-25T10:00:00Z')).toEqual(day);
    expect(await ids('from=2026-11-24T12:00:00%2B02:00&to=2026-11-24T10:00:01.001Z')).toEqual(day);
    expect(await ids('from=2026-11-24&to=2026-11-25')).toEqual(day);
    const spend = (await admin('GET', '/spend?callerId=times&from=2026-11-23&to=2026-11-26')).body;
    expect(spend).toEqual({ items: ['2026-11-23', '2026-11-24', '2026-11-25'].map((d, i) => expect.objectContaining({ day: d, requests: i === 1 ? 2 : 1 })), next: null });
    const forms = 'must be epoch milliseconds (1795514400000) or an ISO 8601 date-time with its offset (2026-11-24T10:00:00Z) or date (2026-11-24, UTC)';
    for (const [query, field] of [['from=yesterday', 'from'], ['to=2026-02-30', 'to'], ['from=2026-11-24T10:00:00', 'from'], ['to=24/11/2026', 'to'], ['from=1.5', 'from']]) {
      expect(await admin('GET', `/requests?${query}`)).toMatchObject({ status: 400, body: { error: { message: `${field}: ${forms}` } } });
    }
    expect(await admin('GET', '/accounts/times/ledger?from=soon')).toMatchObject({ status: 400, body: { error: { message: `from: ${forms}` } } });
    expect(await admin('GET', '/spend?from=2026-11-23&to=later')).toMatchObject({ status: 400, body: { error: { message: `to: ${forms}` } } });
    expect((await admin('GET', '/accounts/times/ledger?from=2026-01-01T00:00:00Z&to=2100-01-01')).status).toBe(200);
    const key = (await admin('POST', '/keys', { callerId: 'times' })).body.record.keyId as string;
    expect(await admin('POST', `/keys/${key}/rotate`, { oldKeyExpiresAt: 'next week' })).toMatchObject({ status: 400, body: { error: { message: `oldKeyExpiresAt: ${forms}` } } });
    const rotated = await admin('POST', `/keys/${key}/rotate`, { oldKeyExpiresAt: '2100-01-01T00:00:00Z' });
    expect(rotated).toMatchObject({ status: 201, body: { previous: { keyId: key, expiresAt: Date.UTC(2100, 0, 1) } } });
    const again = await admin('POST', `/keys/${rotated.body.record.keyId}/rotate`, { oldKeyExpiresAt: Date.UTC(2100, 0, 2) });
    expect(again.body.previous.expiresAt).toBe(Date.UTC(2100, 0, 2));
  });

  it('a NUL character anywhere an operator writes (path, query, body) is a 400 naming the field, never a 5xx', async () => {
    const nul = (field: string) => ({ status: 400, body: { error: { message: `${field}: must not contain the NUL character` } } });
    expect(await admin('GET', '/requests?callerId=a%00b')).toMatchObject(nul('callerId'));
    expect(await admin('GET', '/accounts/a%00b')).toMatchObject(nul('callerId'));
    expect(await credit('a%00b', { amount: 1, createAccount: true }, 'nul-1')).toMatchObject(nul('callerId'));
    expect(await admin('POST', '/keys', { callerId: 'a\u0000b' })).toMatchObject(nul('callerId'));
    expect(await admin('POST', '/keys', { callerId: 'nul', metadata: { team: 'x\u0000' } })).toMatchObject(nul('metadata.team'));
  });

  it('every list answers { items, next } as the document says, and pages on with next; GET /models goes back into PUT /models as it is', async () => {
    const caller = 'lists';
    await made.store.addKey('sk-lists-0123456789abcdef', { id: caller });
    await credit(caller, { amount: 50 }, 'lists-1');
    await credit(caller, { amount: 60 }, 'lists-2');
    for (const model of ['claude-a', 'claude-b']) {
      const requestId = `req_lists_${model}`;
      await made.store.settle({ requestId, callerId: caller, model, endpoint: 'messages', cost: '1', billingStatus: 'needs_review', usage });
      await made.store.appendLog({ requestId, callerId: caller, endpoint: 'messages', model, stream: false, status: 200, errorCode: null, usage,
        cost: '1', charge: 1, billingStatus: 'needs_review', startedAt: Date.now(), durationMs: 1, ttfbMs: null, upstream: 'u', detail: null, user: null, attempts: [] });
    }
    await admin('POST', '/keys', { callerId: caller });
    for (const scope of [`account:${caller}`, `org:${caller}-org`]) await admin('PUT', `/budgets/${scope}`, { amount: 1000, period: 'month' });
    for (const sid of ['s1', 's2']) {
      const scopes = [{ scope: `session:key:${caller}/${sid}`, period: 'total', amount: 100, requests: null, tokens: null }];
      await made.store.reserve({ callerId: caller, requestId: `req_lists_${sid}`, amount: 1, expiresAt: Date.now() + 60_000, instanceId: 'lists', scopes });
    }
    const catalogNow = (await admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
    await admin('PUT', '/models', { models: catalogNow.map((m) => ({ ...m, displayName: `${String(m.id)} (runtime)` })) }); // two runtime overrides
    const lists: Record<string, string> = {
      '/keys': `/keys?callerId=${caller}`, '/accounts/{callerId}/ledger': `/accounts/${caller}/ledger`, '/requests': `/requests?callerId=${caller}`,
      '/reviews': `/reviews?callerId=${caller}`, '/spend': `/spend?callerId=${caller}&from=${Date.now() - DAY}&to=${Date.now() + DAY}`, '/models': '/models',
      '/audit': `/audit?target=caller:${caller}`, '/accounts': '/accounts', '/models/overrides': '/models/overrides',
      '/budgets': '/budgets', '/budget-usage': `/budget-usage?prefix=${encodeURIComponent(`session:key:${caller}/`)}`,
    };
    // The document's lists are exactly these: every GET whose answer is a page.
    const documented = Object.entries(adminOpenApi.paths).filter(([, item]) => {
      const schema = (item as { get?: { responses: Record<string, { content: Record<string, { schema: { required?: string[] } }> }> } }).get?.responses['200']?.content['application/json']?.schema;
      return schema?.required?.includes('items');
    }).map(([path]) => path);
    expect(documented.sort()).toEqual(Object.keys(lists).sort());
    for (const [template, path] of Object.entries(lists)) {
      expect(templateOf(path.split('?')[0] as string)).toBe(template);
      const all = await admin('GET', path);
      expect([template, Object.keys(all.body).sort(), all.body.items.length > 1]).toEqual([template, ['items', 'next'], true]);
      if (template.startsWith('/models')) continue; // one page
      const sep = path.includes('?') ? '&' : '?';
      const first = await admin('GET', `${path}${sep}limit=1`);
      const rest = await admin('GET', `${path}${sep}limit=1000&after=${encodeURIComponent(first.body.next)}`);
      expect([template, [...first.body.items, ...rest.body.items], rest.body.next]).toEqual([template, all.body.items, null]);
    }
    const models = (await admin('GET', '/models')).body.items;
    checkRequestBody('PUT', '/models', { models });
    expect((await admin('PUT', '/models', { models })).body.models).toEqual(models);
    expect((await admin('GET', '/models')).body).toEqual({ items: models, next: null });
    await admin('PUT', '/models', { models: catalogNow });
    expect((await admin('GET', '/models/overrides')).body).toEqual({ items: [], next: null });
  });
});
