/**
 * The recorded Codex request the benchmark replays (bench/codex-body.json): the last request of a real five-turn Codex session
 * (model gpt-5.5, so Codex's own prompt and tools) against the scripted Responses server, with local paths and ids replaced.
 * This checks the recording still matches what the pinned Codex sends; `RECORD_CODEX_BODY=1` re-records it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCodex } from '../helpers/codex';
import { customToolCall, functionCall, inOrder, message, reasoning, responsesUsage, startResponsesFake, type ResponsesFake, type ResponsesTurn } from '../helpers/fake-responses';
import { tempDirs } from '../helpers/local';

const FIXTURE = path.join(__dirname, '..', '..', 'bench', 'codex-body.json');
const HEADERS = path.join(__dirname, '..', '..', 'bench', 'codex-headers.json');
const PROJECT = '/home/dev/project';
const SOURCES = ['lib/foundation/errors.ts', 'lib/billing/settle.ts', 'lib/catalog/catalog.ts'];
let fake: ResponsesFake;
const dirs = tempDirs('codex-body-');

beforeAll(async () => {
  fake = await startResponsesFake(inOrder());
});
afterAll(() => fake.close());

/** Deterministic opaque reasoning blobs of a realistic size. */
const blob = (seed: number): string => `gAAAAA${Buffer.from(Array.from({ length: 1_800 }, (_, i) => (i * 181 + seed * 29) % 256)).toString('base64')}`;
const usage = responsesUsage({ input: 20_000, cached: 18_000, cacheWrite: 0, output: 200, reasoning: 80 });

/** The session: read two files, search, patch one, look at the result, answer; each tool turn with reasoning and commentary. */
function session(firstLine: string, cwd: string): ResponsesTurn[] {
  const step = (n: number, say: string, call: ReturnType<typeof functionCall> | ReturnType<typeof customToolCall>): ResponsesTurn => ({
    output: [reasoning([`Step ${n}: ${say}`], blob(n), `rs_bench_${n}`), { ...message(say, `msg_bench_${n}`), phase: 'commentary' }, call], usage,
  });
  const patch = `*** Begin Patch\n*** Update File: src/errors.ts\n@@\n ${firstLine}\n+// Each retried request is billed on its own confirmed usage.\n*** End Patch\n`;
  return [
    step(1, 'I will read the error table first.', functionCall('exec_command', { cmd: 'cat src/errors.ts', workdir: cwd, yield_time_ms: 10_000 }, 'call_bench_1', 'fc_bench_1')),
    step(2, 'Now how settlement uses it.', functionCall('exec_command', { cmd: 'cat src/settle.ts src/catalog.ts', yield_time_ms: 10_000 }, 'call_bench_2', 'fc_bench_2')),
    step(3, 'Searching for the retry wording.', functionCall('exec_command', { cmd: "grep -rn 'retry' src", yield_time_ms: 10_000 }, 'call_bench_3', 'fc_bench_3')),
    step(4, 'Adding the note.', customToolCall('apply_patch', patch, 'call_bench_4', 'ctc_bench_4')),
    step(5, 'Checking the result.', functionCall('exec_command', { cmd: 'sed -n 1,12p src/errors.ts', yield_time_ms: 10_000 }, 'call_bench_5', 'fc_bench_5')),
    { output: [{ ...message('Added the note at the top of src/errors.ts.', 'msg_bench_6'), phase: 'final_answer' }], usage },
  ];
}

/** Replaces what names this machine: the working directory, the run's temporary folders, the user's home and name. */
function sanitize(text: string, cwd: string): string {
  const { homedir, username } = os.userInfo();
  return text
    .split(cwd).join(PROJECT)
    .replace(/\/tmp\/codex-run-[A-Za-z0-9]+\/codex-home/g, '/home/dev/.codex')
    .replace(/\/tmp\/codex-run-[A-Za-z0-9]+\/home/g, '/home/dev')
    .split(`"${homedir}"`).join('"/home/dev"').split(`\\"${homedir}\\"`).join('\\"/home/dev\\"')
    .replace(new RegExp(`\\b${username}\\b`, 'g'), 'dev');
}

/** The body's shape: top-level keys, tools by type and name, input items by type (and role). */
function shape(body: Record<string, unknown>): Record<string, unknown> {
  return {
    keys: Object.keys(body),
    tools: (body.tools as Array<Record<string, unknown>>).map((t) => `${String(t.type)}:${String(t.name ?? '')}`),
    input: (body.input as Array<Record<string, unknown>>).map((i) => `${String(i.type)}${i.role ? `:${String(i.role)}` : ''}`),
  };
}

it('the recorded Codex body is what the pinned Codex sends on the last turn of the session, 60–100 KB, with no local paths', async () => {
  const cwd = await dirs.make();
  await mkdir(path.join(cwd, 'src'));
  const sources = await Promise.all(SOURCES.map((f) => readFile(path.join(__dirname, '..', '..', f), 'utf8')));
  await Promise.all(sources.map((text, i) => writeFile(path.join(cwd, 'src', path.basename(SOURCES[i] as string)), text)));
  fake.script = inOrder(...session((sources[0] as string).split('\n')[0] as string, cwd));
  const run = await runCodex({ baseURL: fake.url, apiKey: 'sk-codex-bench', prompt: 'Add a note on retried requests to src/errors.ts.', model: 'gpt-5.5', cwd, catalog: false });
  expect({ code: run.code, failures: run.failures }).toEqual({ code: 0, failures: [] });
  expect(run.completed('file_change')).toHaveLength(1);
  const last = fake.responses().at(-1);
  expect(fake.responses()).toHaveLength(6);
  const text = sanitize(last?.text ?? '', cwd);
  const { host: _host, 'content-length': _length, authorization: _auth, ...headers } = last?.headers ?? {};
  if (process.env.RECORD_CODEX_BODY === '1') {
    await writeFile(FIXTURE, `${JSON.stringify(JSON.parse(text), null, 1)}\n`);
    await writeFile(HEADERS, `${sanitize(JSON.stringify(headers, null, 1), cwd)}\n`);
  }
  const recorded = JSON.parse(await readFile(FIXTURE, 'utf8')) as Record<string, unknown>;
  expect(shape(recorded)).toEqual(shape(JSON.parse(text) as Record<string, unknown>));
  const size = Buffer.byteLength(JSON.stringify(recorded));
  expect(size).toBeGreaterThan(60_000);
  expect(size).toBeLessThan(100_000);
  const raw = JSON.stringify(recorded) + (await readFile(HEADERS, 'utf8'));
  for (const local of [os.tmpdir() + path.sep, os.userInfo().homedir + path.sep, cwd]) expect(raw).not.toContain(local);
  expect(Object.keys(JSON.parse(await readFile(HEADERS, 'utf8')) as object).sort()).toEqual(Object.keys(headers).sort());
});
