/** lib/upstreams/failover.ts: the order members are tried in, what is retried, the cool-down, and the attempts recorded. */
import { failover, GatewayError, type MessageResponse, type MessagesAdapter, type MessagesRequest } from '../../../lib';
import { UsageTracker } from '../../../lib/billing/usage';
import { formatsOf } from '../../../lib/upstreams/failover';
import { leavesOf, membersOf } from '../../../lib/upstreams/members';
import type { UpstreamAttempt, UpstreamCallContext } from '../../../lib/upstreams/types';
import { refused } from '../../helpers/config-error';

const ANSWER = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } as unknown as MessageResponse;
const REQUEST = { model: 'm', max_tokens: 1, messages: [] } as unknown as MessagesRequest;

/** A member adapter (the adapter contract is the host's to implement) answering from a script: one outcome per call, the last repeated. */
function member(name: string, script: Array<'ok' | GatewayError>, format: 'anthropic' | 'openai' = 'anthropic'): MessagesAdapter & { calls: number } {
  const adapter = {
    kind: 'messages' as const, name, format, calls: 0,
    create: () => {
      const outcome = script[Math.min(adapter.calls++, script.length - 1)];
      return outcome === 'ok' ? Promise.resolve(ANSWER) : Promise.reject(outcome);
    },
    stream: () => { throw new Error('unused'); },
  };
  return adapter as MessagesAdapter & { calls: number };
}

function callContext(): UpstreamCallContext & { attempts: UpstreamAttempt[] } {
  const attempts: UpstreamAttempt[] = [];
  return { signal: new AbortController().signal, requestId: 'req_1', usage: new UsageTracker(), recordAttempt: (a) => attempts.push(a), attempts };
}

const down = () => new GatewayError('overloaded_error', 'down');

describe('failover()', () => {
  it('calls the first member while it answers', async () => {
    const a = member('a', ['ok']);
    const b = member('b', ['ok']);
    const group = failover([a, b], { backoffMs: 0 });
    const ctx = callContext();
    await group.create(REQUEST, ctx);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(ctx.attempts).toEqual([expect.objectContaining({ upstream: 'a', ok: true, format: 'anthropic' })]);
  });

  it('moves to the next member on a retryable failure, recording both attempts', async () => {
    const group = failover([member('a', [down()]), member('b', ['ok'], 'openai')], { backoffMs: 0 });
    const ctx = callContext();
    await expect(group.create(REQUEST, ctx)).resolves.toBe(ANSWER);
    expect(ctx.attempts.map((x) => [x.upstream, x.ok, x.format])).toEqual([['a', false, 'anthropic'], ['b', true, 'openai']]);
    expect(ctx.attempts[0]).toMatchObject({ code: 'overloaded_error' });
  });

  it("does not retry the caller's own mistake", async () => {
    const b = member('b', ['ok']);
    const group = failover([member('a', [new GatewayError('invalid_request_error', 'bad')]), b], { backoffMs: 0 });
    await expect(group.create(REQUEST, callContext())).rejects.toMatchObject({ code: 'invalid_request_error' });
    expect(b.calls).toBe(0);
  });

  it('gives up after `attempts`, with the last error', async () => {
    const a = member('a', [down()]);
    const group = failover([a], { attempts: 2, backoffMs: 0 });
    await expect(group.create(REQUEST, callContext())).rejects.toMatchObject({ code: 'overloaded_error' });
    expect(a.calls).toBe(2);
  });

  it('takes a member failing failureThreshold times out of rotation for cooldownMs', async () => {
    const a = member('a', [down(), down(), 'ok']);
    const b = member('b', ['ok']);
    const group = failover([a, b], { attempts: 1, failureThreshold: 2, cooldownMs: 60_000, backoffMs: 0 });
    await expect(group.create(REQUEST, callContext())).rejects.toThrow();
    await expect(group.create(REQUEST, callContext())).rejects.toThrow();
    await group.create(REQUEST, callContext()); // a is cooling down: b serves
    expect([a.calls, b.calls]).toEqual([2, 1]);
  });

  it("lists its members' formats", () => {
    expect(formatsOf(failover([member('a', ['ok']), failover([member('b', ['ok'], 'openai')])]))).toEqual(['anthropic', 'openai']);
  });

  it('checks its members and attempts at construction, by code', () => {
    expect(() => failover([])).toThrow(refused('ERR_MGW_MISSING_OPTION'));
    expect(() => failover([member('a', ['ok'])], { attempts: 0 })).toThrow(refused('ERR_MGW_INVALID_INTEGER'));
    const a = member('a', ['ok']);
    expect(() => failover([{ upstream: a, model: 'x' } as never])).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', 'failover: member 0: unknown option "model"; the options are upstream, upstreamModel, pricing.'));
    expect(() => failover([{ upstream: a, upstreamModel: '' }])).toThrow(refused('ERR_MGW_INVALID_OPTION', 'failover: member 0: "upstreamModel" must be a non-empty string'));
    expect(() => failover([a, { upstream: a, pricing: { input: -1 } }])).toThrow(refused('ERR_MGW_INVALID_OPTION', 'failover: member 1: pricing.input must be'));
    expect(() => failover([{ upstreamModel: 'x' } as never])).toThrow(refused('ERR_MGW_INVALID_OPTION', 'member 0 must be an adapter, or { upstream: <adapter>, upstreamModel?, pricing? }'));
    const priced = failover([{ upstream: a, pricing: { input: 1 } }]);
    expect(() => failover([{ upstream: priced, pricing: { input: 2 } }])).toThrow(refused('ERR_MGW_INVALID_OPTION', 'its "pricing" is charged by none of its own members'));
  });
});

describe('failover() members with their own upstream model and prices', () => {
  const own = { input: 5 };

  it('sends each member its own model (the request\'s where it has none) and records the model and its prices in each attempt', async () => {
    const sent: string[] = [];
    const recording = (name: string, outcome: 'ok' | GatewayError): MessagesAdapter => ({
      ...member(name, [outcome]), create: (request) => { sent.push(`${name}:${request.model}`); return outcome === 'ok' ? Promise.resolve(ANSWER) : Promise.reject(outcome); },
    });
    const group = failover([{ upstream: recording('a', down()), upstreamModel: 'model-a', pricing: own }, recording('b', 'ok')], { backoffMs: 0 });
    const ctx = callContext();
    await group.create(REQUEST, ctx);
    expect(sent).toEqual(['a:model-a', 'b:m']);
    expect(ctx.attempts.map(({ upstream, ok, model, pricing }) => ({ upstream, ok, model, pricing }))).toEqual([
      { upstream: 'a', ok: false, model: 'model-a', pricing: own }, { upstream: 'b', ok: true, model: 'm', pricing: undefined },
    ]);
  });

  it('keeps the health of each member apart, one adapter in two members included (a second model on the same upstream)', async () => {
    const sent: string[] = [];
    const shared: MessagesAdapter = { ...member('s', ['ok']), create: (request) => (sent.push(request.model), request.model === 'big' ? Promise.reject(down()) : Promise.resolve(ANSWER)) };
    const group = failover([{ upstream: shared, upstreamModel: 'big' }, { upstream: shared, upstreamModel: 'small' }], { attempts: 2, failureThreshold: 1, cooldownMs: 60_000, backoffMs: 0 });
    await group.create(REQUEST, callContext());
    await group.create(REQUEST, callContext()); // 'big' is cooling down: 'small' serves at once
    expect(sent).toEqual(['big', 'small', 'small']);
  });

  it('lists its leaves through nested groups, each with the model and prices it is given (the innermost member\'s first)', () => {
    const inner = failover([{ upstream: member('a', ['ok']), upstreamModel: 'inner-a', pricing: own }, member('b', ['ok'], 'openai')]);
    const outer = failover([{ upstream: inner, upstreamModel: 'outer', pricing: { input: 9 } }, member('c', ['ok'])]);
    expect(membersOf(outer)?.map((m) => m.upstream.name)).toEqual(['failover(a,b)', 'c']);
    expect(leavesOf(outer).map((l) => [l.upstream.name, l.format, l.upstreamModel, l.pricing])).toEqual([
      ['a', 'anthropic', 'inner-a', own], ['b', 'openai', 'outer', { input: 9 }], ['c', 'anthropic', undefined, undefined],
    ]);
    expect(membersOf(member('d', ['ok']))).toBeUndefined();
  });
});
