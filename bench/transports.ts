/** The bench's undici targets (issue 47 goal 5): (c) on undici's request() instead of node-fetch 2, and the gateway on undiciFetch(). */
import express from 'express';
import { Agent, request } from 'undici';

/** (c) with undici: Express parses the JSON and forwards it with undici's `request()` on a keep-alive agent, piping the answer. */
export function expressUndiciApp(upstream: string): express.Express {
  const dispatcher = new Agent({ keepAliveTimeout: 60_000 });
  const app = express();
  app.post('/*path', express.json({ limit: '32mb' }), async (req, res) => {
    const up = await request(`${upstream}${req.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body), dispatcher });
    const type = up.headers['content-type'];
    res.status(up.statusCode).setHeader('content-type', typeof type === 'string' ? type : 'application/json');
    if (req.body.stream) up.body.pipe(res);
    else res.end(await up.body.text());
  });
  return app;
}
