/** compose(): runs middlewares in order as one handler, without a router layer between each. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isThenable } from './sync';

/**
 * Chains `handlers` like an Express route would (an error skips to `next(err)`), but with one
 * function call per step instead of a router dispatch. Works with Express 4 and 5.
 */
export function compose(handlers: readonly RequestHandler[]): RequestHandler {
  const list = [...handlers];
  return function composedMiddleware(req: Request, res: Response, done: NextFunction) {
    let index = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        done(err);
        return;
      }
      const handler = list[index++];
      if (!handler) {
        done();
        return;
      }
      try {
        const out: unknown = handler(req, res, step);
        if (isThenable(out)) out.then(undefined, done);
      } catch (thrown) {
        done(thrown);
      }
    };
    step();
  };
}
