/** lib/middleware/reserve.ts: the estimate held on the balance before the call; 402 when short; the store's failure fails closed (or open). */
import request from 'supertest';
import { authenticate, failover, resolveModel, reserve, type GatewayStore, type ModelEntry } from '../../../lib';
import { refused } from '../../helpers/config-error';
import { MODELS, stageApp, storeWithCaller, UNUSED } from './stage-app';

const body = (model: string) => ({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });

const opened: Array<{ close(): void }> = [];
afterAll(() => opened.forEach((holds) => holds.close())); // stops the lease renewals

function app(store: GatewayStore, failOpen = false) {
  const holds = reserve({ store, failOpen, timeoutMs: 500 });
  opened.push(holds);
  return stageApp([authenticate({ store }), resolveModel({ models: MODELS, capability: 'llm' }), holds]);
}

describe('reserve()', () => {
  const rich = storeWithCaller(1_000_000);
  const richApp = app(rich);
  const poorApp = app(storeWithCaller(0));

  it('holds price × estimate on the balance', async () => {
    const res = await request(richApp).post('/v1/messages').set('x-api-key', 'sk-good').send(body('plain'));
    expect(res.status).toBe(200);
    expect(res.body.hold).toBeGreaterThan(0);
  });

  it('answers 402 billing_error when the balance is short, naming the amounts', async () => {
    const res = await request(poorApp).post('/v1/messages').set('x-api-key', 'sk-good').send(body('plain'));
    expect(res.status).toBe(402);
    expect(res.body.error.type).toBe('billing_error');
    expect(res.body.error.message).toMatch(/^Insufficient balance: this request may cost up to \d+; available 0\.$/);
  });

  it("holds for a failover group's dearest member, whichever serves", async () => {
    const store = storeWithCaller(1_000_000);
    const holds = reserve({ store, timeoutMs: 500 });
    opened.push(holds);
    const priced = (input: number, id: string) => ({ ...(MODELS[0] as ModelEntry), id, pricing: { input, output: input } });
    const members = (dear: number) => failover([{ upstream: UNUSED, pricing: { input: 1_000_000, output: 1_000_000 } }, { upstream: UNUSED, pricing: { input: dear, output: dear } }]);
    const models: ModelEntry[] = [priced(1_000_000, 'cheap'), priced(5_000_000, 'dear'), { ...(MODELS[0] as ModelEntry), id: 'group', pricing: undefined, upstream: members(5_000_000) }];
    const a = stageApp([authenticate({ store }), resolveModel({ models, capability: 'llm' }), holds]);
    const held = async (model: string): Promise<number> => (await request(a).post('/v1/messages').set('x-api-key', 'sk-good').send(body(model))).body.hold;
    expect(await held('group')).toBe(await held('dear'));
    expect(await held('group')).toBeGreaterThan(await held('cheap'));
  });

  it('holds nothing for a free model, whatever the balance', async () => {
    const res = await request(poorApp).post('/v1/messages').set('x-api-key', 'sk-good').send(body('free'));
    expect(res.status).toBe(200);
    expect(res.body.hold).toBe(0);
  });

  it('fails closed with 500 when the store fails, and open when told', async () => {
    const broken = Object.assign(Object.create(storeWithCaller()), { reserve: () => Promise.reject(new Error('db down')) }) as GatewayStore;
    const closed = await request(app(broken)).post('/v1/messages').set('x-api-key', 'sk-good').send(body('plain'));
    expect(closed.status).toBe(500);
    expect(closed.body.error).toEqual({ type: 'api_error', message: 'The balance store is unavailable; retry later.' });
    const open = await request(app(broken, true)).post('/v1/messages').set('x-api-key', 'sk-good').send(body('plain'));
    expect(open.status).toBe(200);
    expect(open.body.detail).toBe('balance store: Error: db down');
    expect(open.body.hold).toBeUndefined();
  });

  it('checks its store and lease at construction, by code', () => {
    expect(() => reserve({ store: {} as GatewayStore })).toThrow(refused('ERR_MGW_STORE_CONTRACT'));
    expect(() => reserve({ store: storeWithCaller(), leaseMs: 5 })).toThrow(refused('ERR_MGW_INVALID_DURATION'));
  });
});
