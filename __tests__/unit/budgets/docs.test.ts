/** docs/budgets.md's snippets are code: each curl body is what its route takes, and the refusal shown is the one the gateway writes. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bodyReader } from '../../../lib/admin/inputs';
import { limitsOf } from '../../../lib/admin/budgets';
import { ADMIN_ROUTES } from '../../../lib/admin/routes';
import { BudgetPaths, budgetRefusal } from '../../../lib/middleware/budget-path';
import { compileSchema } from '../../../lib/schemas/ajv';
import { runKeyBodySchema } from '../../../lib/schemas/budgets';
import { checkRequestBody, templateOf } from '../../helpers/admin-document';

const text = readFileSync(path.join(__dirname, '../../../docs/budgets.md'), 'utf8');
const curls = [...text.replace(/\\\n\s*/g, ' ').matchAll(/curl -X (\w+) (\S+)[^\n]*? -d '([^']*)'/g)].map((m) => ({ method: m[1] as string, url: m[2] as string, body: JSON.parse(m[3] as string) as unknown }));

it('shows admin bodies each route takes, and a run-key mint its route takes', () => {
  expect(curls.map((c) => `${c.method} ${c.url.replace(/^\$A/, '')}`)).toEqual([
    'PUT /budgets/org:acme-corp', 'PUT /accounts/acme/organization', 'PATCH /keys/key_dc3c0aa60e921ddcaf1a', 'POST https://gateway.example.com/v1/keys/run',
  ]);
  for (const { method, url, body } of curls.filter((c) => c.url.startsWith('$A'))) {
    const template = templateOf(url.slice(2)) as string;
    const row = ADMIN_ROUTES.find((r) => r.method === method.toLowerCase() && r.path === template);
    expect(() => bodyReader(row?.body as never)(body)).not.toThrow();
    checkRequestBody(method, template, body);
  }
  const key = curls[2]?.body as { budget: Parameters<typeof limitsOf>[0] };
  expect(limitsOf(key.budget)).toMatchObject({ amount: 2000, requests: null, perSession: { amount: 500, requests: null, tokens: null } });
  expect(compileSchema(runKeyBodySchema)(curls[3]?.body)).toBe(true);
});

it('shows the refusal the gateway writes for a full session budget', () => {
  const shown = /```text\n(.*)\n```/.exec(text)?.[1];
  const limits = { amount: 2000, period: 'day' as const, timeZone: 'Europe/Paris', requests: null, tokens: null, perSubagent: null,
    perSession: { amount: 500, period: 'day' as const, timeZone: 'Europe/Paris', requests: null, tokens: null } };
  const path = new BudgetPaths().of({ id: 'acme', budgets: [{ scope: 'key:key_dc3c0aa60e921ddcaf1a', limits }] }, { id: '7f3e…', source: 'x-claude-code-session-id' }, undefined, Date.parse('2026-11-24T15:00:00Z'));
  if (!path) throw new Error('a path');
  const scope = path.scopes[0]?.scope as string;
  expect(budgetRefusal(path, { ok: false, available: 10_000, scope, dimension: 'amount', left: 380 }, 1024, 9000).message).toBe(shown);
});
