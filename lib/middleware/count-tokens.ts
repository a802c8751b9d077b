/** countTokens(): answers `POST /v1/messages/count_tokens` from the upstream's own count; authenticated, limited, never billed. */
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { GatewayError } from '../errors';
import type { MessagesRequest } from '../types';
import { modelFor, startCall } from '../upstreams/run-call';
import type { CountTokensRequest } from '../upstreams/types';
import { sendJson } from '../wire/send-json';

/**
 * Needs `validate('count_tokens')` and `resolveModel({capability: 'llm'})` before it. Answers
 * `{ "input_tokens": N }` as the model's adapter counted it upstream; a model whose adapter
 * cannot count gets 400 saying so (the gateway never presents an estimate as a count).
 */
export function countTokens(): RequestHandler {
  return function countTokensMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    ctx.unbilled = true;
    const resolved = modelFor(ctx, 'messages', next);
    if (!resolved) return;
    const { model, adapter } = resolved;
    const count = adapter.countTokens;
    if (typeof count !== 'function') {
      next(new GatewayError('invalid_request_error', `model: "${model.id}" cannot count tokens (its upstream has no token-counting endpoint).`));
      return;
    }
    const body = req.body as MessagesRequest;
    const request: CountTokensRequest = { model: model.upstreamModel ?? model.id, messages: body.messages };
    if (body.system !== undefined) request.system = body.system;
    startCall(ctx, res, next, adapter.name, async (call) => {
      sendJson(res, { input_tokens: await count.call(adapter, request, call) });
    });
  };
}
