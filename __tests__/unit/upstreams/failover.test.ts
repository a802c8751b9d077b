/** lib/upstreams/failover.ts: the order members are tried in, what is retried, the cool-down, and the attempts recorded. */
import { failover, GatewayError, type MessageResponse, type MessagesAdapter, type MessagesRequest } from '../../../lib';
import { UsageTracker } from '../../../lib/billing/usage';
import { formatsOf } from '../../../lib/upstreams/failover';
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
  });
});
