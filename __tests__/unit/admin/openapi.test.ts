/** The OpenAPI document is built from the route table (every row documented, nothing else), the shared shapes are the same objects everywhere, and the bodies docs/admin.md shows are what the routes take. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { adminOpenApi } from '../../../lib/admin/openapi';
import { bodyReader } from '../../../lib/admin/inputs';
import { ADMIN_ROUTES } from '../../../lib/admin/routes';
import { configSchema } from '../../../lib/cli/config-schema';
import { BILLING_STATUSES, limitsSchema } from '../../../lib/schemas/shapes';
import { checkRequestBody, templateOf } from '../../helpers/admin-document';

type Operation = { summary: string; parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, unknown> };
const operations = Object.entries(adminOpenApi.paths as Record<string, Record<string, Operation>>)
  .flatMap(([template, item]) => Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${template}`, operation })));

describe('the admin OpenAPI document', () => {
  it('documents every row of the route table, and nothing else', () => {
    const rows = ADMIN_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(new Set(rows).size).toBe(rows.length);
    expect(operations.map((o) => o.key).sort()).toEqual([...rows].sort());
  });

  it('takes each operation from its row: summary, path parameters, query, body, answer', () => {
    for (const row of ADMIN_ROUTES) {
      const operation = operations.find((o) => o.key === `${row.method.toUpperCase()} ${row.path}`)?.operation as Operation;
      const names = (where: string) => (operation.parameters ?? []).filter((p) => p.in === where).map((p) => p.name);
      expect([row.path, operation.summary]).toEqual([row.path, row.summary]);
      expect([row.path, names('path')]).toEqual([row.path, [...row.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])]);
      expect([row.path, names('query')]).toEqual([row.path, Object.keys(row.query?.properties ?? {})]);
      expect([row.path, operation.requestBody?.content['application/json']?.schema]).toEqual([row.path, row.body]);
      expect([row.path, Object.keys(operation.responses)[0]]).toEqual([row.path, String(row.status ?? 200)]);
    }
  });

  it('asks a write token for every route but the reads (a read token may only GET)', () => {
    for (const row of ADMIN_ROUTES) expect([row.method, row.path, row.access]).toEqual([row.method, row.path, row.method === 'get' ? 'read' : 'write']);
  });

  it('shows the shapes written once: the limits of a key and of the config, the billing statuses', () => {
    const schemas = adminOpenApi.components.schemas as unknown as Record<string, { properties: Record<string, { anyOf?: unknown[]; enum?: unknown[] }> }>;
    const keyBody = (adminOpenApi.paths['/keys'] as Record<string, Operation>).post?.requestBody?.content['application/json']?.schema as { properties: { limits: { anyOf: unknown[] } } };
    expect(keyBody.properties.limits.anyOf[0]).toBe(limitsSchema);
    expect(schemas.Key?.properties.limits?.anyOf?.[0]).toBe(limitsSchema);
    expect(configSchema.properties.limits.properties.defaults.properties).toBe(limitsSchema.properties);
    expect(Object.keys(limitsSchema.properties)).toEqual(['rpm', 'tpm', 'concurrency']);
    expect(schemas.Request?.properties.billingStatus?.enum).toEqual(BILLING_STATUSES);
  });
});

/** Every `curl -X METHOD $A/path … -d '<json>'` of docs/admin.md: its method, path and body. */
function documentedBodies(): Array<{ method: string; path: string; body: unknown }> {
  const text = readFileSync(path.join(__dirname, '../../../docs/admin.md'), 'utf8').replace(/\\\n\s*/g, ' ');
  return [...text.matchAll(/curl -X (\w+) \$A(\/\S+)[^\n]*? -d '([^']*)'/g)].map((m) => ({ method: m[1] as string, path: m[2] as string, body: JSON.parse(m[3] as string) as unknown }));
}

describe('docs/admin.md', () => {
  const bodies = documentedBodies();

  it('shows a body for each route that takes one', () => {
    const shown = new Set(bodies.map((b) => `${b.method} ${templateOf(b.path)}`));
    const taking = ADMIN_ROUTES.filter((r) => r.body).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(taking.filter((r) => !shown.has(r))).toEqual([]);
  });

  it.each(bodies.map((b) => [`${b.method} ${b.path}`, b] as const))('%s: its body is what the route takes and what the document says', (_name, { method, path: at, body }) => {
    const template = templateOf(at) as string;
    const row = ADMIN_ROUTES.find((r) => r.method === method.toLowerCase() && r.path === template);
    expect(row?.body).toBeDefined();
    expect(() => bodyReader(row?.body as never)(body)).not.toThrow();
    checkRequestBody(method, template, body);
  });
});
