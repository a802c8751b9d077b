/** lib/upstreams/http/errors.ts: upstream failures mapped to standard codes with safe texts; the upstream's words kept to detail. */
import { GatewayError } from '../../../../lib';
import { callerFacingMessage, connectionError, isRetryableCode, parseRetryAfter, timeoutError, upstreamError } from '../../../../lib/upstreams/http/errors';

describe('upstreamError()', () => {
  it.each([
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
    [500, 'api_error'],
  ])('maps %d to %s with a safe message', (status, code) => {
    const err = upstreamError(status, 'upstream said: secret');
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.code).toBe(code);
    expect(err.message).not.toContain('secret');
    expect(err.detail).toBe('upstream said: secret');
  });

  it('passes retry-after on for 429 and 529 only', () => {
    expect(upstreamError(429, 'd', 5).retryAfter).toBe(5);
    expect(upstreamError(529, 'd', 5).retryAfter).toBe(5);
    expect(upstreamError(500, 'd', 5).retryAfter).toBeUndefined();
  });

  it('keeps an upstream message for agent-ready callers, at most 2000 characters', () => {
    expect(upstreamError(400, 'd', undefined, 'prompt is too long').upstreamMessage).toBe('prompt is too long');
    expect(upstreamError(400, 'd', undefined, 'x'.repeat(3000)).upstreamMessage).toHaveLength(2000);
    expect(upstreamError(400, 'd').upstreamMessage).toBeUndefined();
  });
});

describe('callerFacingMessage()', () => {
  it("reads the message of a 400 or 413 error body in either vendor's shape", () => {
    expect(callerFacingMessage(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad tool' } }))).toBe('bad tool');
    expect(callerFacingMessage(413, JSON.stringify({ error: { message: 'too big', type: 'invalid_request_error' } }))).toBe('too big');
  });

  it('gives nothing for other statuses, bodies that are no JSON, or empty messages', () => {
    expect(callerFacingMessage(500, JSON.stringify({ error: { message: 'internal' } }))).toBeUndefined();
    expect(callerFacingMessage(400, '<html>')).toBeUndefined();
    expect(callerFacingMessage(400, JSON.stringify({ error: { message: '  ' } }))).toBeUndefined();
    expect(callerFacingMessage(400, 'null')).toBeUndefined();
  });
});

describe('the rest of the mapping', () => {
  it('parses retry-after as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('2.5', now)).toBe(3);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('retries only what may succeed elsewhere', () => {
    expect(['rate_limit_error', 'overloaded_error', 'api_error', 'timeout_error'].every((c) => isRetryableCode(c as never))).toBe(true);
    expect(isRetryableCode('invalid_request_error')).toBe(false);
    expect(isRetryableCode('authentication_error')).toBe(false);
  });

  it('names connection failures and timeouts by phase', () => {
    expect(connectionError('ECONNRESET')).toMatchObject({ code: 'api_error', message: 'The upstream connection failed.', detail: 'ECONNRESET' });
    expect(timeoutError('first byte')).toMatchObject({ code: 'timeout_error', detail: 'upstream first byte timeout' });
  });
});
