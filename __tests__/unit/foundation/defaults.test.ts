/** The defaults table: written once, frozen, read by resolveOptions() into a complete config, and the README's option tables checked against it. */
import fs from 'node:fs';
import path from 'node:path';
import { MemoryStore, anthropicAdapter, resolveOptions } from '../../../lib';
import { ADAPTER_DEFAULTS, GATEWAY_DEFAULTS } from '../../../lib/foundation/defaults';
import { OPTION_NAMES } from '../../../lib/options';

const README = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** A default as the README writes it: `'32mb'`, `60000`, `['a','b']`, `{keyPrefix: 'mgw', windowSec: 60}`. */
function render(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(render).join(',')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([k, v]) => `${k}: ${render(v)}`).join(', ')}}`;
  return String(value);
}

/** The rows of the first table after `heading`: each option named in the first cell → its default cell. */
function optionTable(heading: string): Map<string, string> {
  const section = README.split(`\n${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const table = new Map<string, string>();
  for (const row of rows) {
    const [names = '', defaults = ''] = row.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    const named = [...names.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    const each = defaults.split(', ');
    named.forEach((name, i) => table.set(name, named.length > 1 && each.length === named.length ? (each[i] as string) : defaults));
  }
  return table;
}

describe('the defaults table', () => {
  it('is frozen all the way down', () => {
    expect(Object.isFrozen(GATEWAY_DEFAULTS)).toBe(true);
    for (const value of Object.values(GATEWAY_DEFAULTS)) if (typeof value === 'object') expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(ADAPTER_DEFAULTS.timeouts)).toBe(true);
  });

  it("is what resolveOptions() fills in: the config is complete", () => {
    const config = resolveOptions({ store: new MemoryStore(), models: [{ id: 'm', capability: 'llm', upstream: anthropicAdapter({ baseURL: 'http://127.0.0.1:1' }), free: true }] });
    const { versions, bodyLimit, holdLeaseMs, keepAliveMs, rerank, notFound, storeTimeoutMs, failOpen, limits, responses } = config;
    expect({ versions, bodyLimit, holdLeaseMs, keepAliveMs, rerank, notFound, storeTimeoutMs, failOpen }).toEqual({
      versions: GATEWAY_DEFAULTS.versions, bodyLimit: GATEWAY_DEFAULTS.bodyLimit, holdLeaseMs: GATEWAY_DEFAULTS.holdLeaseMs, keepAliveMs: GATEWAY_DEFAULTS.keepAliveMs,
      rerank: GATEWAY_DEFAULTS.rerank, notFound: GATEWAY_DEFAULTS.notFound, storeTimeoutMs: GATEWAY_DEFAULTS.storeTimeoutMs, failOpen: GATEWAY_DEFAULTS.failOpen,
    });
    expect(limits).toMatchObject(GATEWAY_DEFAULTS.limits);
    expect(typeof limits.estimator).toBe('function');
    expect({ retentionDays: responses.retentionDays, maxBytes: responses.maxBytes, store: responses.store !== undefined }).toEqual(GATEWAY_DEFAULTS.responses);
    expect(Object.entries(config).filter(([, v]) => v === undefined).map(([k]) => k).sort()).toEqual(['metrics', 'observer', 'onSettled']); // none given
  });

  it("is the README's option table of createGatewayRouter, which lists every option", () => {
    const table = optionTable('## Options');
    expect([...table.keys()].sort()).toEqual([...OPTION_NAMES].sort());
    for (const [name, value] of Object.entries(GATEWAY_DEFAULTS)) expect([name, table.get(name)]).toEqual([name, `\`${render(value)}\``]);
  });

  it("is the README's adapter table", () => {
    const table = optionTable('## Upstream adapters');
    expect(table.get('timeouts')).toBe(`\`${render(ADAPTER_DEFAULTS.timeouts)}\``);
    expect(table.get('maxResponseBytes')).toBe(`${ADAPTER_DEFAULTS.maxResponseBytes / 1_048_576} MiB`);
  });

  it('renders a default the way the README writes it', () => {
    expect([render('32mb'), render(['a', 'b']), render({ a: 1, b: 'x' }), render(true)]).toEqual(["'32mb'", "['a','b']", "{a: 1, b: 'x'}", 'true']);
  });
});
