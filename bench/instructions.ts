/**
 * `npm run bench:instructions -- <target> <scenario> [requests] [warm-up]`: instructions per
 * request of one server under callgrind (valgrind), counted after a warm-up. Counts repeat within
 * about 2 % whatever else the host does, so they compare code where the CPU timings of this host
 * cannot (docs/benchmarks.md). Targets: express (c), gateway-memory (d). Scenarios below.
 */
import autocannon from 'autocannon';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLAUDE_CODE_HEADERS, claudeCodeBody } from './claude-code-body';
import { HEADERS, KEY } from './key';
import { STREAM_SCENARIOS } from './streams';

const msg = [{ role: 'user', content: 'Summarise the plot of a short story in one paragraph.' }];
const SCENARIOS: Record<string, [string, object]> = {
  json: ['/v1/messages', { model: 'claude', max_tokens: 256, messages: msg }],
  sse: ['/v1/messages', { model: 'claude', max_tokens: 256, stream: true, messages: msg }],
  'openai-json': ['/v1/messages', { model: 'gpt', max_tokens: 256, messages: msg }],
  'openai-sse': ['/v1/messages', { model: 'gpt', max_tokens: 256, stream: true, messages: msg }],
  'chat-json': ['/v1/chat/completions', { model: 'gpt', max_tokens: 256, messages: msg }],
  'chat-sse': ['/v1/chat/completions', { model: 'gpt', max_tokens: 256, stream: true, stream_options: { include_usage: true }, messages: msg }],
  rerank: ['/v2/rerank', { model: 'rerank', query: 'topic 3', documents: Array.from({ length: 100 }, (_, i) => `Document number ${i} talks about topic ${i % 7}.`) }],
  agent: ['/v1/messages?beta=true', claudeCodeBody('agent')],
  'agent-openai': ['/v1/messages?beta=true', claudeCodeBody('agent-gpt')],
};
/** The long agent streams and the Codex body (bench/streams.ts): long, long-chat, codex-json, codex-gpt-json, codex-sse, codex-gpt-sse. */
const STREAM_KEYS = ['long', 'long-chat', 'codex-json', 'codex-gpt-json', 'codex-sse', 'codex-gpt-sse'];
STREAM_SCENARIOS.forEach((s, i) => { SCENARIOS[STREAM_KEYS[i] as string] = [s.gateway.path, s.gateway.body]; });
const STREAM_HEADERS: Record<string, Record<string, string> | undefined> = Object.fromEntries(STREAM_SCENARIOS.map((s, i) => [STREAM_KEYS[i], s.gateway.headers]));

const [target = 'gateway-memory', scenario = 'json', requests = '1000', warmUp = '3000'] = process.argv.slice(2);
const chosen = SCENARIOS[scenario];
if (!chosen) throw new Error(`unknown scenario "${scenario}"; one of: ${Object.keys(SCENARIOS).join(', ')}`);

const portOf = (child: ChildProcess): Promise<number> => new Promise((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'callgrind-'));
  // fork() needs a node executable: a wrapper that runs node under callgrind, one file per thread.
  const wrapper = path.join(dir, 'node-callgrind.sh');
  writeFileSync(wrapper, `#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=${dir}/out.%p --collect-jumps=no --separate-threads=yes node "$@"\n`);
  chmodSync(wrapper, 0o755);
  const upstream = fork(path.join(__dirname, 'upstream.js'));
  const server = fork(path.join(__dirname, 'targets.js'), [target, String(await portOf(upstream))], { execPath: wrapper, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const port = await portOf(server);
  const [urlPath, body] = chosen as [string, object];
  const load = (amount: number): Promise<autocannon.Result> => autocannon({
    url: `http://127.0.0.1:${port}${urlPath}`, method: 'POST', amount, connections: 4, timeout: 120,
    headers: { ...(scenario.startsWith('agent') ? CLAUDE_CODE_HEADERS : {}), ...STREAM_HEADERS[scenario], ...HEADERS, authorization: `Bearer ${KEY}` }, body: JSON.stringify(body),
  });
  try {
    await load(Number(warmUp));
    execFileSync('callgrind_control', ['--zero', String(server.pid)]);
    const result = await load(Number(requests));
    execFileSync('callgrind_control', ['--dump', String(server.pid)]);
    let all = 0;
    let main = 0;
    for (const file of readdirSync(dir).filter((f) => f.startsWith(`out.${server.pid}.1-`))) {
      const count = Number(/^totals: (\d+)/m.exec(readFileSync(path.join(dir, file), 'utf8'))?.[1] ?? 0);
      all += count;
      if (file.endsWith('-01')) main = count;
    }
    const per = (n: number): string => Math.round(n / Number(requests)).toLocaleString('en');
    console.log(`${target} ${scenario}: ${per(main)} instructions per request on the main thread, ${per(all)} on all threads (${result['2xx']} of ${requests} answered 2xx)`);
  } finally {
    server.kill('SIGKILL');
    upstream.kill();
    rmSync(dir, { recursive: true, force: true }); // callgrind's files run to tens of MB
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
