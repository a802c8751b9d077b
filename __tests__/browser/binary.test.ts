/** The standalone binary's dashboard in Chromium: served on the admin port only; a key made there answers the SDK on the public port. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processEnv, startBinary } from '../helpers/binary';
import { UPSTREAM_KEY } from '../helpers/fake-server';
import { anthropic, itLeftNoTrace, OPS, useDashboard } from './dashboard';
import { shot } from './browser';

const d = useDashboard();

/** A port free now, for the binary's admin port (its public port is 0: one the system picks). */
const freePort = (): Promise<number> => new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as net.AddressInfo;
    probe.close(() => resolve(port));
  });
});

it('the binary serves the dashboard on its admin port: a key made there answers the SDK on the public port, the overview counts it, money carries admin.currency', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-dash-'));
  const adminPort = await freePort();
  writeFileSync(path.join(dir, 'gateway.yaml'), `
server: { port: 0 }
store: { type: memory }
upstreams: { fake: { type: anthropic, baseURL: "${d.upstream.url}", apiKey: "${UPSTREAM_KEY}" } }
models: [{ id: claude-json, capability: llm, upstream: fake, pricing: { input: 300000, output: 1500000 } }]
admin: { port: ${adminPort}, currency: EUR cents, tokens: [{ name: ops, token: "${OPS}", access: write }] }
`);
  const gw = startBinary(['serve', '--config', path.join(dir, 'gateway.yaml')], processEnv());
  try {
    const publicUrl = (await gw.waitFor(/serving on (http:\/\/\S+)/))[1] as string;
    const at = (await gw.waitFor(/dashboard: (http:\/\/\S+)\/dashboard\/ \(sign in with an admin token\)/))[1] as string;
    expect(at).toBe(`http://127.0.0.1:${adminPort}/admin`);
    expect((await fetch(`${publicUrl}/admin/dashboard/sign-in`)).status).toBe(404); // the public port has no admin mount
    const { page, context } = await d.signedIn(OPS, at);
    await d.open(page, 'keys', at);
    await page.getByLabel('Caller id').fill('bin');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('#new-secret').inputValue();
    await d.open(page, 'accounts/bin', at);
    await page.getByLabel('Amount').fill('1000');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('status').filter({ hasText: 'Applied: +1,000 EUR cents.' }).waitFor();
    const answer = await anthropic(secret, publicUrl).messages.create({ model: 'claude-json', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.content[0]).toMatchObject({ type: 'text' });
    await d.open(page, 'overview', at);
    await expect(page.locator('[data-chart=requests-24h] figcaption strong').textContent()).resolves.toBe('1 requests, 0 errors');
    await shot(page, 'binary-overview');
    await context.close();
  } finally {
    await gw.stop();
  }
});

itLeftNoTrace(d, 1);
