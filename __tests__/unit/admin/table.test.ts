/** lib/admin/table.ts: the admin table made into Express routes (inputs read by the row's schemas, NUL refused), access by row, 405 by path. */
import express from 'express';
import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { errorHandler, MemoryStore } from '../../../lib';
import { ADMIN_ROUTES } from '../../../lib/admin/routes';
import { defineRoute, paramsOf, RouteMatcher, routerOf, type AdminContext } from '../../../lib/admin/table';

const rows = [
  defineRoute({
    method: 'get', path: '/things/{thingId}', summary: 'one thing', access: 'read', answer: {},
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }),
    handle: ({ params, query }) => ({ id: params.thingId, limit: query.limit ?? null }),
  }),
  defineRoute({
    method: 'post', path: '/things', summary: 'make one', access: 'write', status: 201, answer: {},
    body: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    handle: ({ body, actor }) => ({ made: body.name, actor }),
  }),
];

function app() {
  const a = express();
  a.use(express.json());
  a.use(new RouteMatcher(rows).undocumentedMethod());
  a.use(routerOf(rows, { store: new MemoryStore(), catalog: {} as AdminContext['catalog'], models: undefined }));
  a.use(errorHandler());
  return a;
}

describe('routerOf()', () => {
  it('serves each row at its path, params and coerced query handed to its handler', async () => {
    const res = await request(app()).get('/things/t1?limit=5');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 't1', limit: 5 });
  });

  it("answers with the row's status and names a bad input's field", async () => {
    const made = await request(app()).post('/things').send({ name: 'lamp' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ made: 'lamp', actor: 'unknown' });
    const bad = await request(app()).get('/things/t1?limit=zero');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^limit/);
    const extra = await request(app()).post('/things').send({ name: 'lamp', colour: 'red' });
    expect(extra.status).toBe(400);
  });

  it('refuses a NUL character anywhere in the inputs, naming where', async () => {
    const res = await request(app()).post('/things').send({ name: 'a\u0000b' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('name: must not contain the NUL character');
  });
});

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher(ADMIN_ROUTES);
  const req = (method: string, path: string) => ({ method, path }) as express.Request;

  it("decides write access by the row's access, and by method where no row matches", () => {
    expect(matcher.writes(req('GET', '/keys'))).toBe(false);
    expect(matcher.writes(req('POST', '/keys'))).toBe(true);
    expect(matcher.writes(req('GET', '/nowhere'))).toBe(false);
    expect(matcher.writes(req('DELETE', '/nowhere'))).toBe(true);
  });

  it('answers 405 with allow for a path of the table asked with another method', async () => {
    const res = await request(app()).delete('/things');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect((await request(app()).put('/things/t1')).headers.allow).toBe('GET, HEAD');
  });
});

describe('the table', () => {
  it('names each path parameter once per template, and has one row per method and path', () => {
    expect(paramsOf('/keys/{keyId}/grants/{model}')).toEqual(['keyId', 'model']);
    const keys = ADMIN_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(ADMIN_ROUTES.every((r) => r.summary.length > 0 && (r.access === 'read' || r.access === 'write'))).toBe(true);
  });
});
