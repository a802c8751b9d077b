/** lib/foundation/compose.ts: middlewares run in order as one handler; an error (passed, thrown or rejected) skips to the next error handler. */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { compose } from '../../../lib';

function app(handlers: RequestHandler[]) {
  const a = express();
  a.get('/', compose(handlers), (_req, res) => { res.json({ fellThrough: true, seen: res.locals.seen }); });
  const onError: ErrorRequestHandler = (err, _req, res, _next) => { res.status(500).json({ error: String((err as Error).message ?? err), seen: res.locals.seen }); };
  a.use(onError);
  return a;
}
const mark = (name: string): RequestHandler => (_req, res, next) => { (res.locals.seen ??= []).push(name); next(); };

describe('compose()', () => {
  it('runs each in order, then goes on to the next route handler', async () => {
    expect((await request(app([mark('a'), mark('b')])).get('/')).body).toEqual({ fellThrough: true, seen: ['a', 'b'] });
    expect((await request(app([])).get('/')).body).toEqual({ fellThrough: true });
  });

  it.each([
    ['passed to next', ((_req, _res, next) => next(new Error('boom'))) as RequestHandler],
    ['thrown', (() => { throw new Error('boom'); }) as RequestHandler],
    ['rejected', (async () => { throw new Error('boom'); }) as RequestHandler],
  ])('skips the rest on an error %s', async (_how, failing) => {
    const res = await request(app([mark('a'), failing, mark('never')])).get('/');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'boom', seen: ['a'] });
  });

  it('stops where a handler answers', async () => {
    const res = await request(app([mark('a'), (_req, res) => { res.json({ answered: true }); }, mark('never')])).get('/');
    expect(res.body).toEqual({ answered: true });
  });
});
