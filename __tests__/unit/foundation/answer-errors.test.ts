/** lib/foundation/answer-errors.ts: an upstream's status mapped to a standard code (its refusal of the gateway's own credentials is api_error), and unreadable answers. */
import { badUpstreamAnswer, codeForUpstreamStatus, invalidAnswer } from '../../../lib/foundation/answer-errors';

describe('codeForUpstreamStatus()', () => {
  it.each([
    [408, 'timeout_error'], [504, 'timeout_error'], [413, 'request_too_large'], [429, 'rate_limit_error'],
    [503, 'overloaded_error'], [529, 'overloaded_error'], [400, 'invalid_request_error'], [422, 'invalid_request_error'],
    [401, 'api_error'], [403, 'api_error'], [404, 'api_error'], [500, 'api_error'],
  ])('maps %d to %s', (status, code) => {
    expect(codeForUpstreamStatus(status)).toBe(code);
  });
});

describe('unreadable answers', () => {
  it('are api_error with a safe text; an invalid answer is marked not to be billed', () => {
    expect(badUpstreamAnswer('not json')).toMatchObject({ code: 'api_error', message: 'The upstream sent an invalid response.', detail: 'not json' });
    expect(badUpstreamAnswer('x').invalidAnswer).toBeFalsy();
    expect(invalidAnswer('args not an object').invalidAnswer).toBe(true);
  });
});
