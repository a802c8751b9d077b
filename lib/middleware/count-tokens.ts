/** countTokens(): answers `POST /v1/messages/count_tokens` from the upstream's own count; authenticated, limited, never billed. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler } from 'express';
import { defaultEstimator, type Estimator } from '../billing/estimate';
import { profileOf } from '../catalog/catalog';
import { answerModel, gatewayContext } from '../context';
import { GatewayError } from '../foundation/errors';
import type { MessagesRequest } from '../messages/request';
import { agentCallOf, modelFor, startCall } from './run-call';
import type { CountTokensRequest } from '../upstreams/types';
import { sendJson } from '../wire/send-json';

/** Options of countTokens(). */
export interface CountTokensOptions {
  /** What an agent-ready model whose upstream cannot count answers, marked as an estimate. Default: defaultEstimator. */
  estimator?: Estimator;
  /** The answer's body for a count. Default: `{ input_tokens }` (Messages); the Responses route answers `{ object: "response.input_tokens", input_tokens }`. */
  answer?: (inputTokens: number) => object;
}

const messagesAnswer = (inputTokens: number): object => ({ input_tokens: inputTokens });

/** The header that marks an answer as the gateway's estimate rather than the upstream's count. */
export const COUNT_SOURCE_HEADER = 'x-token-count-source';

/**
 * Needs `validate('count_tokens')` and `resolveModel({capability: 'llm'})` before it. Answers
 * `{ "input_tokens": N }` as the model's adapter counted it upstream. A V1 model's body is its
 * model, messages and system; an agent-ready model's is forwarded whole (tools, system blocks,
 * images…) with the caller's version and beta headers. A model whose adapter cannot count gets
 * 400 saying so, unless it is agent-ready: then the estimate answers, with
 * `x-token-count-source: estimate` (agents would otherwise count through billed calls).
 */
export function countTokens({ estimator = defaultEstimator, answer = messagesAnswer }: CountTokensOptions = {}): RequestHandler {
  if (typeof estimator !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'countTokens: option "estimator" must be a function (body) => { inputTokens, outputTokens }.');
  if (typeof answer !== 'function') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'countTokens: option "answer" must be a function (inputTokens) => body.');
  return function countTokensMiddleware(req, res, next) {
    const ctx = gatewayContext(res);
    ctx.unbilled = true;
    const resolved = modelFor(ctx, 'messages', next);
    if (!resolved) return;
    const { model, adapter } = resolved;
    const count = adapter.countTokens;
    const body = req.body as MessagesRequest;
    if (typeof count !== 'function') {
      if (profileOf(model).contract !== 'agent') {
        next(new GatewayError('invalid_request_error', `model: "${model.id}" cannot count tokens (its upstream has no token-counting endpoint).`));
        return;
      }
      res.setHeader(COUNT_SOURCE_HEADER, 'estimate');
      sendJson(res, answer(estimator(body).inputTokens));
      return;
    }
    const agent = agentCallOf(req, model, answerModel(ctx));
    const upstreamModel = model.upstreamModel ?? model.id;
    const request: CountTokensRequest = agent ? { ...body, model: upstreamModel } : { model: upstreamModel, messages: body.messages };
    if (!agent && body.system !== undefined) request.system = body.system;
    startCall(ctx, res, next, adapter.name, async (call) => {
      const inputTokens = await count.call(adapter, request, call);
      res.setHeader(COUNT_SOURCE_HEADER, 'upstream');
      sendJson(res, answer(inputTokens));
    }, agent);
  };
}
