/** lib/upstreams/http/redact.ts: an adapter's own key never leaves in an error's detail. */
import { GatewayError } from '../../../../lib';
import { guardAdapter, redacted, redactor } from '../../../../lib/upstreams/http/redact';

describe('redactor()', () => {
  it('replaces every occurrence of the key, and leaves text alone without one', () => {
    expect(redactor('sk-1')('a sk-1 b sk-1')).toBe('a [redacted] b [redacted]');
    expect(redactor(undefined)('a sk-1')).toBe('a sk-1');
    expect(redactor('')('a sk-1')).toBe('a sk-1');
  });
});

describe('redacted()', () => {
  const redact = redactor('sk-1');
  it("redacts a GatewayError's detail and upstream message, keeping code, message and retry-after", () => {
    const err = new GatewayError('rate_limit_error', 'slow', { detail: 'key sk-1 refused', retryAfter: 4, upstreamMessage: 'sk-1 is over quota' });
    const out = redacted(err, redact) as GatewayError;
    expect(out).toBeInstanceOf(GatewayError);
    expect(out).toMatchObject({ code: 'rate_limit_error', message: 'slow', detail: 'key [redacted] refused', retryAfter: 4, upstreamMessage: '[redacted] is over quota' });
  });

  it('passes anything else through as it is', () => {
    const plain = new Error('sk-1');
    expect(redacted(plain, redact)).toBe(plain);
    const bare = new GatewayError('api_error', 'no detail');
    expect(redacted(bare, redact)).toBe(bare);
  });
});

describe('guardAdapter()', () => {
  it("redacts what the adapter's promise methods reject with, leaves stream and values alone, and freezes it", async () => {
    const stream = async function* stream() { yield 1; };
    const adapter = guardAdapter({
      kind: 'messages', fail: () => Promise.reject(new GatewayError('api_error', 'x', { detail: 'sent sk-1' })), ok: () => Promise.resolve(7), stream,
    }, redactor('sk-1'));
    await expect(adapter.fail()).rejects.toMatchObject({ detail: 'sent [redacted]' });
    await expect(adapter.ok()).resolves.toBe(7);
    expect(adapter.stream).toBe(stream);
    expect(Object.isFrozen(adapter)).toBe(true);
  });
});
