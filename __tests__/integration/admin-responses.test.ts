/** Stored responses in the admin API, over real HTTP on both stores: an account's erasure (audited with the count) and a request's response, each answer checked against the OpenAPI document. */
import express from 'express';
import { randomBytes } from 'node:crypto';
import { createAdminRouter, MemoryStore } from '../../lib';
import { responseExpiry } from '../../lib/stores/responses';
import type { AdminStore, NewResponse, RequestLogEntry } from '../../lib';
import { checkAgainstDocument } from '../helpers/admin-document';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { listen } from '../helpers/local';
import { usageOf } from '../helpers/usage';

const WRITE = 'admin-responses-write-0123456789';
const READ = 'admin-responses-read-0123456789a';
const DAY = 86_400_000;
const hex = (): string => randomBytes(8).toString('hex');

const response = (callerId: string, at = Date.now(), days = 30): NewResponse => {
  const id = `resp_${hex()}`;
  return {
    id, callerId, requestId: `req_${hex()}`, model: 'claude', upstream: 'anthropic', upstreamResponseId: null, previousResponseId: null,
    response: { id, object: 'response', status: 'completed', output: [] }, inputItems: [{ type: 'message', role: 'user', content: 'Hi' }],
    instructions: null, tools: [], usage: null, createdAt: at, expiresAt: at + days * DAY,
  };
};
const logEntry = (requestId: string, callerId: string): RequestLogEntry => ({
  requestId, callerId, endpoint: 'responses', model: 'claude', stream: true, status: 200, errorCode: null, usage: usageOf({ inputTokens: 5, outputTokens: 2 }),
  cost: '0', charge: 0, billingStatus: 'billed', startedAt: Date.now(), durationMs: 12, ttfbMs: 3, upstream: 'anthropic', detail: null, user: null, attempts: [],
});

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;
  const tokens = [{ name: 'ops', token: WRITE, access: 'write' as const }, { name: 'viewer', token: READ, access: 'read' as const }];

  beforeAll(async () => {
    made = await make();
    const app = express();
    app.use('/admin', createAdminRouter({ store: made.store, tokens }));
    // A host's store with no `responses`: it never stored one.
    const { responses: _none, ...bare } = Object.fromEntries(Object.getOwnPropertyNames(Object.getPrototypeOf(new MemoryStore())).map((m) => [m, (...args: unknown[]) => (made.store as unknown as Record<string, (...a: unknown[]) => unknown>)[m]?.(...args)]));
    app.use('/bare', createAdminRouter({ store: bare as unknown as AdminStore, tokens }));
    server = await listen(app);
    ({ url } = server);
  });
  afterAll(async () => {
    await server.close();
    await made.drop();
  });

  async function admin(method: string, path: string, { token = WRITE, mount = '/admin' } = {}): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${url}${mount}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const parsed = (await res.json()) as unknown;
    checkAgainstDocument(method, path.split('?')[0] as string, res.status, parsed);
    return { status: res.status, body: parsed };
  }

  it("DELETE /accounts/:callerId/responses erases the account's stored responses, audited with how many; a read token may not", async () => {
    const rs = made.store.responses;
    const mine = [response('erased'), response('erased'), response('erased')];
    const expired = response('erased', Date.now() - 2 * DAY, 1);
    const theirs = response('kept');
    for (const r of [...mine, expired, theirs]) expect(await rs.putResponse(r, { maxBytes: 1_048_576 })).toEqual({ stored: true });

    expect(await admin('DELETE', '/accounts/erased/responses', { token: READ })).toMatchObject({ status: 403, body: { error: { type: 'permission_error' } } });
    expect(await rs.getResponse('erased', mine[0]?.id as string)).toBeDefined();
    expect(await admin('DELETE', '/accounts/erased/responses')).toEqual({ status: 200, body: { callerId: 'erased', deleted: 3 } });
    for (const r of mine) expect(await rs.getResponse('erased', r.id)).toBeUndefined();
    expect(await rs.getResponse('kept', theirs.id)).toMatchObject({ id: theirs.id });
    expect(await admin('DELETE', '/accounts/erased/responses')).toEqual({ status: 200, body: { callerId: 'erased', deleted: 0 } });
    const trail = await admin('GET', `/audit?target=${encodeURIComponent('caller:erased')}`);
    expect(trail.body.items).toEqual([
      expect.objectContaining({ actor: 'ops', action: 'responses.delete', target: 'caller:erased', before: null, after: { deleted: 0 } }),
      expect.objectContaining({ actor: 'ops', action: 'responses.delete', target: 'caller:erased', before: null, after: { deleted: 3 } }),
    ]);
    expect(await admin('GET', '/accounts/erased/responses')).toMatchObject({ status: 405 }); // only DELETE is documented there
    expect(await admin('DELETE', '/accounts/erased/responses', { mount: '/bare' })).toEqual({ status: 200, body: { callerId: 'erased', deleted: 0 } });
  });

  it("GET /requests/:requestId shows a Responses request's response: its id, stored or why not, what it chained from; null for other requests", async () => {
    const rs = made.store.responses;
    const first = response('chain');
    await rs.putResponse(first, { maxBytes: 1_048_576 });
    const big = { ...response('chain'), previousResponseId: first.id };
    expect(await rs.putResponse(big, { maxBytes: 100 })).toEqual({ stored: false, reason: 'too_large' });
    const plain = `req_${hex()}`;
    for (const [requestId, caller] of [[first.requestId, 'chain'], [big.requestId, 'chain'], [plain, 'chain']] as const) await made.store.appendLog(logEntry(requestId, caller));
    expect((await admin('GET', `/requests/${first.requestId}`)).body).toMatchObject({ requestId: first.requestId, response: { id: first.id, stored: true, reason: null, previousResponseId: null } });
    expect((await admin('GET', `/requests/${big.requestId}`)).body.response).toEqual({ id: big.id, stored: false, reason: 'too_large', previousResponseId: first.id });
    expect((await admin('GET', `/requests/${plain}`)).body).toMatchObject({ requestId: plain, response: null });
    expect((await admin('GET', `/requests/${first.requestId}`, { mount: '/bare' })).body).toMatchObject({ requestId: first.requestId, response: null });
    expect(await admin('GET', '/requests/req_unknown')).toMatchObject({ status: 404 });
  });
});
