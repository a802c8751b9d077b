/** lib/foundation/errors.ts: one code table gives each error its status, safe text and OpenAI terms; anything thrown becomes a GatewayError. */
import { ERROR_STATUS, errorBody, GatewayError, OPENAI_ERRORS, openaiErrorBody } from '../../../lib';
import { SAFE_MESSAGES, toGatewayError } from '../../../lib/foundation/errors';

describe('the error codes', () => {
  it('give every code a status, a safe message and OpenAI terms', () => {
    const codes = Object.keys(ERROR_STATUS);
    expect(Object.keys(SAFE_MESSAGES).sort()).toEqual([...codes].sort());
    expect(Object.keys(OPENAI_ERRORS).sort()).toEqual([...codes].sort());
    expect(new GatewayError('billing_error', 'short').status).toBe(402);
    expect(new GatewayError('overloaded_error', 'busy').status).toBe(529);
  });

  it("write Anthropic's shape with the request id", () => {
    expect(errorBody('not_found_error', 'model: x', 'req_1')).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'model: x' }, request_id: 'req_1' });
  });

  it("write OpenAI's shape, naming the param of the gateway's own refusals only", () => {
    expect(openaiErrorBody('invalid_request_error', 'model: Field required').error).toMatchObject({ param: 'model', code: 'missing_required_parameter' });
    expect(openaiErrorBody('not_found_error', 'model: gpt-9').error).toMatchObject({ param: 'model', code: 'model_not_found' });
    expect(openaiErrorBody('invalid_request_error', 'tools: bad', 'tools: upstream words').error.param).toBeNull();
    expect(openaiErrorBody('invalid_request_error', 'prompt is too long', 'prompt is too long: 300000 tokens > 200000 maximum').error.code).toBe('context_length_exceeded');
  });
});

describe('toGatewayError()', () => {
  it('keeps a GatewayError as it is', () => {
    const err = new GatewayError('rate_limit_error', 'slow');
    expect(toGatewayError(err)).toBe(err);
  });

  it("keeps the class of an Express 4xx, and makes anything else a generic api_error with the text in detail", () => {
    expect(toGatewayError(Object.assign(new Error('bad escape'), { status: 400 }))).toMatchObject({ code: 'invalid_request_error', message: 'Malformed request.' });
    expect(toGatewayError(Object.assign(new Error('x'), { status: 413 })).code).toBe('request_too_large');
    const unknown = toGatewayError(new Error('internal text'));
    expect(unknown).toMatchObject({ code: 'api_error', message: SAFE_MESSAGES.api_error, detail: 'Error: internal text' });
    expect(toGatewayError('a string').detail).toBe('a string');
  });
});
