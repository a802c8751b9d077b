/** The admin API over real HTTP on MemoryStore and PostgresStore, every answer checked against its own OpenAPI 3.1 document. */
import express from 'express';
import { execFileSync } from 'node:child_process';
import { createAdminRouter, createGatewayRouter } from '../../lib';
import { checkAgainstDocument } from '../helpers/admin-document';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import type { FakeServer } from '../helpers/fake-server';
import { llmModels, postMessages } from '../helpers/gateway';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { listen } from '../helpers/local';

const WRITE = 'admin-write-token-0123456789';
const READ = 'admin-read-token-0123456789ab';
let upstream: FakeServer;
beforeAll(async () => { upstream = await startAnthropicFake(); });
afterAll(async () => upstream.close());

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;
  const texts: string[] = [];
  const secrets: Array<{ secret: string; createdIn: number }> = [];

  beforeAll(async () => {
    made = await make();
    const models = llmModels(upstream.url, upstream.url, ['claude-json', 'claude-stream', 'claude-midstream-error']);
    const app = express();
    const gateway = createGatewayRouter({ store: made.store, models });
    app.use('/admin', createAdminRouter({ store: made.store, models: gateway.models, tokens: [{ name: 'ops', token: WRITE, access: 'write' }, { name: 'viewer', token: READ, access: 'read' }] }));
    app.use(gateway);
    server = await listen(app);
    ({ url } = server);
  });
  afterAll(async () => {
    await server.close();
    await made.drop();
    // No answer but a key's creation holds a secret.
    for (const { secret, createdIn } of secrets) texts.forEach((t, i) => { if (i !== createdIn) expect(t).not.toContain(secret); });
  });

  async function admin(method: string, path: string, body?: unknown, { token = WRITE, headers = {} as Record<string, string> } = {}): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${url}/admin${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    texts.push(text);
    const parsed = JSON.parse(text) as unknown;
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    if (path !== '/openapi.json') checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
    if (res.status === 201 && typeof (parsed as { key?: unknown }).key === 'string') secrets.push({ secret: (parsed as { key: string }).key, createdIn: texts.length - 1 });
    return { status: res.status, body: parsed };
  }
  const call = (key: string, model = 'claude-json') => postMessages(url, key, model).then(async (r) => { await r.text(); return r.status; });

  it('refuses missing and unknown tokens with 401 and a read token\'s writes with 403, in the gateway\'s error shape', async () => {
    expect(await admin('GET', '/keys', undefined, { token: 'nope-nope-nope-nope' })).toMatchObject({ status: 401, body: { type: 'error', error: { type: 'authentication_error' } } });
    expect(await admin('POST', '/keys', { callerId: 'x' }, { token: READ })).toMatchObject({ status: 403, body: { error: { type: 'permission_error', message: 'authorization: token "viewer" may only read.' } } });
    expect((await admin('GET', '/keys', undefined, { token: READ })).status).toBe(200);
    expect(await admin('GET', '/nope')).toMatchObject({ status: 404, body: { error: { type: 'not_found_error' } } });
  });

  it('keys: created once with the secret, working at once; updated, disabled, enabled, rotated with a grace time, revoked for good', async () => {
    const created = await admin('POST', '/keys', { callerId: 'acme', models: ['claude-json'], metadata: { team: 'search' } });
    expect(created).toMatchObject({ status: 201, body: { key: expect.stringMatching(/^sk-mgw-/), record: { callerId: 'acme', status: 'active', metadata: { team: 'search' } } } });
    const key = created.body.key as string;
    const keyId = created.body.record.keyId as string;
    expect(created.body.record.prefix).toBe(key.slice(0, 10));
    await admin('POST', '/accounts/acme/credits', { amount: 100_000 }, { headers: { 'idempotency-key': 'acme-open' } });
    expect(await call(key)).toBe(200);
    expect(await call(key, 'claude-stream')).toBe(404); // outside its models
    expect((await admin('PATCH', `/keys/${keyId}`, { models: null, limits: { rpm: 100 } })).body).toMatchObject({ models: null, limits: { rpm: 100 } });
    expect(await call(key, 'claude-stream')).toBe(200);
    expect((await admin('GET', `/keys/${keyId}`)).body.lastUsedAt).toEqual(expect.any(Number));
    expect((await admin('POST', `/keys/${keyId}/disable`)).body.status).toBe('disabled');
    expect(await call(key)).toBe(401);
    expect((await admin('POST', `/keys/${keyId}/enable`)).body.status).toBe('active');
    expect(await call(key)).toBe(200);
    const rotated = await admin('POST', `/keys/${keyId}/rotate`, { oldKeyExpiresAt: Date.now() + 60_000 });
    expect(rotated).toMatchObject({ status: 201, body: { record: { callerId: 'acme', limits: { rpm: 100 }, metadata: { team: 'search' } }, previous: { keyId, expiresAt: expect.any(Number) } } });
    expect([await call(key), await call(rotated.body.key)]).toEqual([200, 200]); // both, until the old one's time
    const again = await admin('POST', `/keys/${rotated.body.record.keyId}/rotate`); // no grace: the old one stops now
    expect(await call(rotated.body.key)).toBe(401);
    expect(await call(again.body.key)).toBe(200);
    expect((await admin('POST', `/keys/${again.body.record.keyId}/revoke`)).body.status).toBe('revoked');
    expect(await call(again.body.key)).toBe(401);
    expect(await admin('POST', `/keys/${again.body.record.keyId}/enable`)).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('is revoked') } } });
    const listed = await admin('GET', '/keys?callerId=acme&limit=2');
    expect(listed.body.items).toHaveLength(2);
    expect((await admin('GET', `/keys?callerId=acme&limit=10&after=${encodeURIComponent(listed.body.next)}`)).body.items).toHaveLength(1); // three keys: the first and its two rotations
    const migrated = await admin('POST', '/keys', { callerId: 'legacy', secret: 'sk-legacy-0123456789abcdef-xyz' });
    expect(migrated.status).toBe(201);
    expect(await admin('POST', '/keys', { callerId: 'legacy', secret: 'sk-legacy-0123456789abcdef-xyz' })).toMatchObject({ status: 400, body: { error: { message: 'secret: is already a key; choose another.' } } });
    expect(await admin('POST', '/keys', { callerId: '', models: 'all' })).toMatchObject({ status: 400, body: { error: { message: 'callerId: must NOT have fewer than 1 characters' } } });
    expect(await admin('GET', '/keys/key_00000000000000000000')).toMatchObject({ status: 404 });
  });

  it('accounts: credits and debits once per Idempotency-Key, the ledger in pages, refusals naming the field', async () => {
    await admin('POST', '/keys', { callerId: 'bank' });
    const first = await admin('POST', '/accounts/bank/credits', { amount: 500 }, { headers: { 'idempotency-key': 'bank-1' } });
    expect(first.body).toMatchObject({ applied: true, amount: 500, account: { balance: 500, held: 0, carry: '0' } });
    expect((await admin('POST', '/accounts/bank/credits', { amount: 500 }, { headers: { 'idempotency-key': 'bank-1' } })).body).toMatchObject({ applied: false, account: { balance: 500 } });
    expect(await admin('POST', '/accounts/bank/credits', { amount: 7 }, { headers: { 'idempotency-key': 'bank-1' } })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('idempotency key "bank-1"') } } });
    expect(await admin('POST', '/accounts/bank/credits', { amount: -200 }, { headers: { 'idempotency-key': 'bank-2' } })).toMatchObject({ body: { applied: true, account: { balance: 300 } } });
    expect(await admin('POST', '/accounts/bank/credits', { amount: 5 })).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^idempotency-key: header required/) } } });
    expect(await admin('POST', '/accounts/bank/credits', { amount: 0 }, { headers: { 'idempotency-key': 'bank-3' } })).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^amount: must not be 0/) } } });
    expect(await admin('POST', '/accounts/bank/credits', { amount: 1.5 }, { headers: { 'idempotency-key': 'bank-3' } })).toMatchObject({ status: 400, body: { error: { message: 'amount: must be integer' } } });
    const ledger = await admin('GET', '/accounts/bank/ledger?limit=1');
    expect(ledger.body.items.map((e: { amount: number }) => e.amount)).toEqual([-200]);
    expect((await admin('GET', `/accounts/bank/ledger?after=${encodeURIComponent(ledger.body.next)}`)).body.items.map((e: { amount: number }) => e.amount)).toEqual([500]);
    expect(await admin('GET', '/accounts/bank/ledger?limit=abc')).toMatchObject({ status: 400, body: { error: { message: 'limit: must be an integer' } } });
  });

  it('request log, reviews (resolved once, with who and why), spend, models and the audit trail', async () => {
    const created = await admin('POST', '/keys', { callerId: 'rev' });
    await admin('POST', '/accounts/rev/credits', { amount: 1_000_000 }, { headers: { 'idempotency-key': 'rev-open' } });
    const res = await postMessages(url, created.body.key, 'claude-midstream-error', { stream: true });
    await res.text();
    const requestId = res.headers.get('request-id') as string;
    let one = await admin('GET', `/requests/${requestId}`);
    for (let i = 0; i < 100 && one.status === 404; i++) one = await new Promise((r) => setTimeout(r, 20)).then(() => admin('GET', `/requests/${requestId}`));
    expect(one.body).toMatchObject({ requestId, callerId: 'rev', billingStatus: 'needs_review', model: 'claude-midstream-error' });
    expect((await admin('GET', '/requests?callerId=rev&billingStatus=needs_review')).body.items.map((e: { requestId: string }) => e.requestId)).toEqual([requestId]);
    expect(await admin('GET', '/requests?billingStatus=maybe')).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^billingStatus: must be one of/) } } });
    expect(await admin('GET', '/requests/req_unknown')).toMatchObject({ status: 404 });
    const open = await admin('GET', '/reviews?callerId=rev');
    expect(open.body.items.map((r: { requestId: string }) => r.requestId)).toEqual([requestId]);
    const resolved = await admin('POST', `/reviews/${requestId}/resolve`, { action: 'charge', amount: 3, reason: 'stream cut by the upstream; output seen' });
    expect(resolved.body).toMatchObject({ applied: true, review: { resolution: { action: 'charge', amount: 3, by: 'ops' } } });
    expect((await admin('POST', `/reviews/${requestId}/resolve`, { action: 'charge', amount: 3, reason: 'again' })).body.applied).toBe(false);
    expect((await admin('GET', '/reviews?callerId=rev')).body.items).toEqual([]);
    expect(await admin('POST', `/reviews/${requestId}/resolve`, { action: 'refund', reason: 'x' })).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^action: must be one of/) } } });
    const spend = await admin('GET', `/spend?callerId=rev&from=${Date.now() - 3_600_000}&to=${Date.now() + 60_000}`);
    expect(spend.body).toEqual({ items: [expect.objectContaining({ callerId: 'rev', model: 'claude-midstream-error', requests: 1 })], next: null });
    expect(await admin('GET', '/spend?callerId=rev')).toMatchObject({ status: 400, body: { error: { message: 'from: Field required' } } });
    expect((await admin('GET', '/models')).body.items.map((m: { id: string }) => m.id)).toEqual(['claude-json', 'claude-stream', 'claude-midstream-error']);
    const trail = await admin('GET', `/audit?target=${encodeURIComponent(`request:${requestId}`)}`);
    expect(trail.body.items).toEqual([expect.objectContaining({ actor: 'ops', action: 'review.charge', after: expect.objectContaining({ requestId }) })]);
    const credits = await admin('GET', '/audit?target=caller:rev');
    expect(credits.body.items).toEqual([expect.objectContaining({ actor: 'ops', action: 'credit', before: expect.objectContaining({ balance: 0 }), after: expect.objectContaining({ balance: 1_000_000 }) })]);
  });

  it('models: the catalog is read and replaced at runtime, atomically; a bad one is refused whole and the old one keeps serving', async () => {
    const created = await admin('POST', '/keys', { callerId: 'cat' });
    await admin('POST', '/accounts/cat/credits', { amount: 100_000 }, { headers: { 'idempotency-key': 'cat-open' } });
    const current = (await admin('GET', '/models')).body.items as Array<Record<string, unknown>>;
    expect(await call(created.body.key, 'claude-new')).toBe(404);
    const added = [...current, { id: 'claude-new', capability: 'llm', upstream: 'anthropic', upstreamModel: 'claude-json', pricing: { input: '0.5', output: 2 } }];
    expect((await admin('PUT', '/models', { models: added })).body.models.map((m: { id: string }) => m.id)).toContain('claude-new');
    expect(await call(created.body.key, 'claude-new')).toBe(200); // serves at once
    // A price per 1,000 search units has no default: shown null in effect until set (the document allows it).
    const withUnits = [...added, { id: 'units', capability: 'llm', upstream: 'anthropic', pricing: { input: 0, searchUnit: '2.5' } }];
    expect((await admin('PUT', '/models', { models: withUnits })).status).toBe(200);
    const shown = (await admin('GET', '/models')).body.items as Array<{ id: string; pricing: unknown; prices: Record<string, unknown> }>;
    expect(shown.find((m) => m.id === 'units')).toMatchObject({ pricing: { input: 0, searchUnit: '2.5' }, prices: { searchUnit: '2.5', input: '0' } });
    expect(shown.find((m) => m.id === 'claude-new')?.prices).toMatchObject({ searchUnit: null, webSearch: '0' });
    const plural = await admin('PUT', '/models', { models: [{ id: 'x', capability: 'llm', upstream: 'anthropic', pricing: { input: 0, searchUnits: 2 } }] });
    expect(plural).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/searchUnits/) } } });
    const duplicate = await admin('PUT', '/models', { models: [...added, { id: 'claude-new', capability: 'llm', upstream: 'anthropic', free: true }] });
    expect(duplicate).toMatchObject({ status: 400, body: { error: { message: 'models: the id "claude-new" is listed twice; ids must be unique.' } } });
    const badPrice = await admin('PUT', '/models', { models: [{ id: 'x', capability: 'llm', upstream: 'anthropic', pricing: { input: '0.1234567' } }] });
    expect(badPrice).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^models\[0\]: "x": pricing.input must be/) } } });
    expect(await admin('PUT', '/models', { models: [{ id: 'x', capability: 'llm', upstream: 'nowhere', free: true }] })).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/^models\.0\.upstream: no adapter named "nowhere"/) } } });
    expect(await call(created.body.key, 'claude-new')).toBe(200); // the refused lists changed nothing
    expect((await admin('GET', '/audit?target=models')).body.items[0]).toMatchObject({ action: 'models.replace', actor: 'ops' });
    await admin('PUT', '/models', { models: current });
    expect(await call(created.body.key, 'claude-new')).toBe(404);
  });

  it('serves its OpenAPI 3.1 document, which a maintained validator accepts', async () => {
    const { status, body } = await admin('GET', '/openapi.json', undefined, { token: READ });
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    // @seriousme/openapi-schema-validator is an ES module: it runs in a process of its own.
    const script = "import { Validator } from '@seriousme/openapi-schema-validator'; let t=''; process.stdin.on('data', (c) => t += c).on('end', async () => { const r = await new Validator().validate(JSON.parse(t)); console.log(JSON.stringify(r)); });";
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(body), cwd: process.cwd() }).toString()) as { valid: boolean; errors?: unknown };
    expect(out).toEqual({ valid: true });
  });
});
