/** The binary's config turns the dashboard off (it is on by default), and serve says where it is only when it is there. */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { processEnv, startBinary } from '../helpers/binary';
import { tempDirs } from '../helpers/local';

const dirs = tempDirs();
const config = (dashboard: boolean | undefined): string => `
server: { port: 0 }
upstreams: { local: { type: anthropic, baseURL: "http://127.0.0.1:9" } }
models: [{ id: m, capability: llm, upstream: local, free: true }]
admin: { ${dashboard === undefined ? '' : `dashboard: ${dashboard}, `}tokens: [{ name: ops, token: cli-dashboard-token-0123, access: write }] }
`;

it.each([[undefined, 200], [true, 200], [false, 404]])('admin.dashboard: %s serves the page with %i', async (dashboard, status) => {
  const file = path.join(await dirs.make(), 'gateway.yaml');
  writeFileSync(file, config(dashboard));
  const gw = startBinary(['serve', '--config', file], processEnv());
  try {
    const url = `http://127.0.0.1:${(await gw.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`;
    await gw.waitFor(/mounts: .*\n/);
    // Without the dashboard the path is the JSON API's: an unknown path there (behind its token).
    const page = await fetch(`${url}/admin/dashboard/sign-in`, status === 200 ? {} : { headers: { authorization: 'Bearer cli-dashboard-token-0123' } });
    expect(page.status).toBe(status);
    expect(gw.out().includes('dashboard: http://')).toBe(status === 200);
    // The JSON API is there either way.
    expect((await fetch(`${url}/admin/keys`, { headers: { authorization: 'Bearer cli-dashboard-token-0123' } })).status).toBe(200);
  } finally {
    expect(await gw.stop()).toBe(0);
  }
});
