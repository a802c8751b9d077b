/**
 * Every curl command of docs/admin.md, run as written by bash against the binary, in the document's order, with the
 * variables the page names (`A`, `ADMIN`, `KEY_ID`, `REQUEST_ID`): each must answer 2xx.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { processEnv, startBinary, type Running } from '../helpers/binary';
import { startAnthropicFake } from '../helpers/fake-anthropic';
import { startRerankFake } from '../helpers/fake-rerank';
import type { FakeServer } from '../helpers/fake-server';
import { blocks, read } from '../helpers/markdown';

jest.setTimeout(60_000);
const ADMIN = 'admin-doc-token-0123456789abcdef';
const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-admin-doc-'));
const commands = blocks(read('docs/admin.md')).filter((b) => b.lang === 'sh');
let anthropic: FakeServer;
let cohere: FakeServer;
let gateway: Running;
let url: string;

beforeAll(async () => {
  [anthropic, cohere] = await Promise.all([startAnthropicFake(), startRerankFake('cohere')]);
  // The page's models: claude-sonnet (its PUT gives other prices, so the revert has a change to undo), and a rerank model
  // whose upstream bills search units only, so a request of it is flagged for review.
  writeFileSync(path.join(dir, 'gateway.yaml'), `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "${anthropic.url}" }
  cohere: { type: cohere, baseURL: "${cohere.url}" }
models:
  - { id: claude-sonnet, capability: llm, upstream: anthropic, upstreamModel: claude-json, pricing: { input: 250, output: 1250 } }
  - { id: rerank, capability: rerank, upstream: cohere, upstreamModel: rerank-units, pricing: { input: 5 } }
admin: { tokens: [{ name: ops, token: "${ADMIN}", access: write }] }
`);
  gateway = startBinary(['serve', '--config', path.join(dir, 'gateway.yaml')], processEnv());
  url = `http://127.0.0.1:${(await gateway.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
});
afterAll(async () => {
  await gateway.stop();
  await Promise.all([anthropic.close(), cohere.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const admin = async (method: string, route: string, body?: object): Promise<Record<string, unknown>> => {
  const res = await fetch(`${url}/admin${route}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return res.json() as Promise<Record<string, unknown>>;
};

/** A fresh active key of acme, for a command that changes one. */
const newKey = async (): Promise<string> => ((await admin('POST', '/keys', { callerId: 'acme' })).record as { keyId: string }).keyId;

/** A request of acme flagged for review (the rerank upstream confirms search units only). */
async function flaggedRequest(): Promise<string> {
  const { key } = await admin('POST', '/keys', { callerId: 'acme' }) as { key: string };
  await fetch(`${url}/admin/accounts/acme/credits`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': 'doc-review-funds' }, body: JSON.stringify({ amount: 1000 }) });
  const res = await fetch(`${url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'rerank', query: 'q', documents: ['a', 'b'] }) });
  expect(res.status).toBe(200);
  return res.headers.get('request-id') as string;
}

it('runs every curl command of the page, in order, each answered 2xx', async () => {
  expect(commands.length).toBeGreaterThanOrEqual(10);
  const ran: string[] = [];
  for (const { code, heading } of commands) {
    const vars: Record<string, string> = { A: `${url}/admin`, ADMIN };
    if (code.includes('$KEY_ID')) vars.KEY_ID = await newKey();
    if (code.includes('$REQUEST_ID')) vars.REQUEST_ID = await flaggedRequest();
    // Each curl fails the block on a status of 400 or more (its body printed); the text itself is the page's.
    const script = `set -e\ncurl() { command curl -sS --fail-with-body -w '\\n' "$@"; }\n${code}`;
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { ...processEnv(), ...vars } }).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`docs/admin.md, "${heading}":\n${code}\nfailed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    });
    expect(stdout.trim()).not.toBe('');
    ran.push(heading);
  }
  expect(ran).toContain('Reads');
});
