/** Behind a TLS-terminating proxy (server.trustProxy): the dashboard's session cookie is Secure, and the sign-in limit counts each forwarded address apart. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processEnv, startBinary, type Running } from '../helpers/binary';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
const TOKEN = 'proxy-admin-token-0123456789';

/** serve with `trustProxy` (none: the line is left out); resolves with the sign-in URL. */
async function start(trustProxy: string | undefined): Promise<{ gw: Running; signIn: string }> {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, `
server: { port: 0${trustProxy === undefined ? '' : `, trustProxy: ${trustProxy}`} }
upstreams: { a: { type: anthropic, baseURL: "http://127.0.0.1:9" } }
models: [{ id: m, capability: llm, upstream: a, free: true }]
admin: { tokens: [{ name: ops, token: ${TOKEN}, access: write }] }
`);
  const gw = startBinary(['serve', '--config', file], processEnv({ MODEL_GATEWAY_CONFIG: undefined }));
  const url = (await gw.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
  await gw.waitFor(/mounts: .*\n/);
  return { gw, signIn: `${url}/admin/dashboard/sign-in` };
}

/** A sign-in as the proxy forwards it: the browser's address and https. */
const signIn = (url: string, token: string, from: string): Promise<Response> => fetch(url, {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from, 'x-forwarded-proto': 'https' },
  body: new URLSearchParams({ token }).toString(),
});

/** Fails sign-ins from `from` until the limit refuses it (429); resolves with how many failed first. */
async function exhaust(url: string, from: string): Promise<number> {
  for (let failed = 0; failed < 100; failed++) {
    const res = await signIn(url, 'not-the-token', from);
    if (res.status === 429) return failed;
    expect(res.status).toBe(401);
  }
  throw new Error('the sign-in limit never refused');
}

it.each([['1'], ['true'], ['[127.0.0.1]']])('trustProxy: %s: a sign-in forwarded as https sets a Secure cookie; two forwarded addresses are limited apart', async (trustProxy) => {
  const { gw, signIn: url } = await start(trustProxy);
  try {
    const ok = await signIn(url, TOKEN, '203.0.113.7');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(/; Secure/i);
    expect(await exhaust(url, '203.0.113.1')).toBeGreaterThan(0);
    expect((await signIn(url, 'not-the-token', '203.0.113.2')).status).toBe(401); // another operator, not refused
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});

it('without trustProxy the forwarded headers are not believed: no Secure over plain http, and every forwarded address is the proxy\'s one', async () => {
  const { gw, signIn: url } = await start(undefined);
  try {
    const ok = await signIn(url, TOKEN, '203.0.113.7');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).not.toMatch(/; Secure/i);
    await exhaust(url, '203.0.113.1');
    expect((await signIn(url, 'not-the-token', '203.0.113.2')).status).toBe(429);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});
