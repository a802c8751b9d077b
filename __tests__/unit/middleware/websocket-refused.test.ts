/** lib/middleware/websocket-refused.ts: a WebSocket upgrade gets 426 in OpenAI's shape; other requests go on. */
import request from 'supertest';
import { refuseWebSocket } from '../../../lib';
import { stageApp } from './stage-app';

const app = stageApp([refuseWebSocket()], { format: 'openai' });

describe('refuseWebSocket()', () => {
  it('answers an upgrade to websocket with 426 and x-should-retry: false', async () => {
    const res = await request(app).get('/v1/responses').set({ connection: 'Upgrade', upgrade: 'WebSocket' });
    expect(res.status).toBe(426);
    expect(res.headers['x-should-retry']).toBe('false');
    expect(res.body.error).toEqual({ message: 'WebSocket mode is not served here; send the request over HTTP POST.', type: 'invalid_request_error', code: 'websocket_not_supported', param: null });
  });

  it('lets a plain request and another upgrade through', async () => {
    expect((await request(app).get('/v1/responses')).body.reached).toBe(true);
    expect((await request(app).get('/v1/responses').set({ upgrade: 'h2c' })).body.reached).toBe(true);
  });
});
