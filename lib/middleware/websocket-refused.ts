/** refuseWebSocket(): 426 for a WebSocket upgrade on a path served over HTTP only; other requests go on. */
import type { RequestHandler } from 'express';
import { gatewayContext } from '../context';
import { sendJson } from '../wire/send-json';

/**
 * A request asking to upgrade to WebSocket (the Responses API's WebSocket mode) gets 426 with an
 * OpenAI-shaped error and `x-should-retry: false`: Codex then makes the same turn over HTTP POST.
 * The route's log line records the refusal (status 426).
 */
export function refuseWebSocket(): RequestHandler {
  return function refuseWebSocketMiddleware(req, res, next) {
    const upgrade = req.headers.upgrade;
    if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket') return next();
    gatewayContext(res).detail = 'WebSocket mode is not served';
    res.setHeader('x-should-retry', 'false');
    sendJson(res, { error: { message: 'WebSocket mode is not served here; send the request over HTTP POST.', type: 'invalid_request_error', code: 'websocket_not_supported', param: null } }, 426);
  };
}
