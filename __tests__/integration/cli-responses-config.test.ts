/** The binary's `responses` section (the response store: on or off, retention, size bound; the reasoning secret): accepted and refused by `model-gateway validate`, naming the value's path. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { processEnv, runBinaryAsync } from '../helpers/binary';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mgw-responses-'));
const env = processEnv({ MODEL_GATEWAY_CONFIG: undefined, MGW_REASONING_SECRET: 'f'.repeat(64) });
const base = `
server: { port: 0 }
upstreams:
  anthropic: { type: anthropic, baseURL: "http://127.0.0.1:9", apiKey: k }
models:
  - { id: claude, capability: llm, upstream: anthropic, pricing: { input: 300, output: 1500 } }
`;
let n = 0;
const validate = (section: string) => {
  const file = path.join(dir, `config-${n++}.yaml`);
  writeFileSync(file, `${base}${section}\n`);
  return runBinaryAsync(['validate', '--config', file], env);
};

it.each([
  ['turned on with every setting', 'responses: { store: true, retentionDays: 7, maxBytes: 2097152 }'],
  ['turned on with the defaults', 'responses: { store: true }'],
  ['off, as without the section', 'responses: { store: false }'],
  ['the bounds themselves', 'responses: { store: true, retentionDays: 3650, maxBytes: 1024 }'],
  ['a reasoning secret of 32 characters', `responses: { reasoningSecret: "${'s'.repeat(32)}" }`],
])('accepts %s', async (_name, section) => {
  expect(await validate(section)).toMatchObject({ code: 0, err: '', out: expect.stringContaining('valid (1 models)') });
});

it.each([
  ['store: yes (a string)', 'responses: { store: "yes" }', 'config: responses.store: must be boolean; change the value\'s type'],
  ['no retention', 'responses: { store: true, retentionDays: 0 }', 'config: responses.retentionDays: must be >= 1'],
  ['a retention of half a day', 'responses: { retentionDays: 0.5 }', 'config: responses.retentionDays: must be integer; change the value\'s type'],
  ['a retention over ten years', 'responses: { retentionDays: 3651 }', 'config: responses.retentionDays: must be <= 3650'],
  ['a bound under 1 KiB', 'responses: { maxBytes: 100 }', 'config: responses.maxBytes: must be >= 1024'],
  ['a bound over 64 MiB', 'responses: { maxBytes: 67108865 }', 'config: responses.maxBytes: must be <= 67108864'],
  ['a bound in words', 'responses: { maxBytes: 1mb }', 'config: responses.maxBytes: must be integer'],
  ['a key it does not know', 'responses: { store: true, ttlDays: 3 }', 'config: responses.ttlDays: unknown key; remove it or fix its spelling (allowed here: store, retentionDays, maxBytes, reasoningSecret)'],
  ['a reasoning secret of 31 characters', `responses: { reasoningSecret: "${'s'.repeat(31)}" }`, 'config: responses.reasoningSecret: must NOT have fewer than 32 characters'],
])('refuses %s, naming the path', async (_name, section, message) => {
  const out = await validate(section);
  expect(out).toMatchObject({ code: 2, out: '' });
  expect(out.err).toContain(`model-gateway: ${message}`);
});

it('the reasoning secret as docs/operations.md writes it, read from the environment', async () => {
  const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const snippet = /```yaml\n(responses:\n {2}reasoningSecret:[^`]*)```/.exec(doc)?.[1];
  expect(snippet).toContain('${MGW_REASONING_SECRET}');
  expect(await validate(snippet as string)).toMatchObject({ code: 0, err: '', out: expect.stringContaining('valid (1 models)') });
  expect(await runBinaryAsync(['validate', '--config', path.join(dir, `config-${n - 1}.yaml`)], processEnv({ MODEL_GATEWAY_CONFIG: undefined, MGW_REASONING_SECRET: 'short' })))
    .toMatchObject({ code: 2, err: expect.stringContaining('responses.reasoningSecret') });
});

it('the example config shows the section, commented, with the defaults', () => {
  const example = readFileSync(path.join(__dirname, '..', '..', 'examples', 'gateway.yaml'), 'utf8');
  const commented = example.split('\n').filter((l) => /^#\s*responses:|^#\s+(store|retentionDays|maxBytes):/.test(l)).map((l) => l.replace(/^#\s?/, '')).join('\n');
  expect(parse(commented)).toEqual({ responses: { store: true, retentionDays: 30, maxBytes: 1048576 } });
});
