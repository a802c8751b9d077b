/**
 * The layers of lib/: which folder may import which, checked on the imports TypeScript itself
 * finds in every .ts file under lib (ts.preProcessFile: imports, re-exports, require() and import()).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One rule: files under `path` import only `only` (when given) and never `never`; `face`, see LAYERS. */
interface Layer {
  /** A folder (ending in `/`) or a file; a `*` makes each folder it matches a module of its own. */
  readonly path: string;
  readonly only?: readonly string[];
  readonly never?: readonly string[];
  /**
   * A module's public face: from outside the module, only this file of it is imported. It exports
   * values as constants, never by `export … from` (CommonJS re-exports are getters on an exports
   * object in dictionary mode: a slow lookup per read, and the adapters read some per frame).
   */
  readonly face?: string;
  readonly why: string;
}

/**
 * lib's floors, the ground first: the one place the layering is written (a new file or folder of
 * lib goes on a floor here, or a test below fails). A floor's members import only the floors below
 * it (and within themselves: a folder is one module), never a member of their own floor or above.
 */
const FLOORS: readonly { readonly members: readonly string[]; readonly why: string }[] = [
  { members: ['lib/foundation/'], why: 'the ground every floor stands on: value or promise, the construction errors and the defaults table, option checks, the error codes, leaf utilities, leases' },
  { members: ['lib/messages/', 'lib/schemas/'], why: 'definitions: the content model, the request schemas; facts everything reads, reading none' },
  { members: ['lib/billing/', 'lib/wire/', 'lib/limits/', 'lib/budgets/'], why: 'mechanisms on plain values: the money rule and the records a request leaves, SSE and JSON transport, counters, budget periods and sessions; no request, adapter or store' },
  { members: ['lib/types.ts'], why: 'the domain types a host sees (callers, rerank; usage and prices are billing\'s)' },
  { members: ['lib/formats/', 'lib/stores/'], why: 'the wire formats (to and from the content model) and the store contracts with their two stores' },
  { members: ['lib/upstreams/', 'lib/observe/', 'lib/responses-options.ts'], why: 'adapters (they speak a format), observers (they read store records), the Responses state options' },
  { members: ['lib/catalog/'], why: 'the model catalog: models and the names they answer, their adapters and members, their profile, a model as data, runtime overrides kept in step with the store' },
  { members: ['lib/context.ts'], why: 'the request context: facts about one request and its lifecycle' },
  { members: ['lib/middleware/'], why: 'the request pipeline, one stage a file' },
  { members: ['lib/options.ts'], why: 'the router options resolved into stages' },
  { members: ['lib/router.ts', 'lib/admin/'], why: 'the two routers a host mounts: the gateway and the admin API' },
  { members: ['lib/cli/', 'lib/index.ts', 'lib/testing/'], why: 'the faces: the model-gateway binary, the library\'s public index, the store contract suite (model-gateway/testing)' },
];

/**
 * The rule table: each floor's members, then the rules within a floor (extend them here). Imports
 * within a file's own module (its `path`, or the folder its `*` matches) are always allowed.
 */
const LAYERS: readonly Layer[] = [
  ...FLOORS.flatMap((floor, i) => floor.members.map((member) => ({ path: member, only: FLOORS.slice(0, i).flatMap((below) => below.members), why: floor.why }))),
  {
    path: 'lib/formats/*/', face: 'index.ts', never: ['lib/formats/'],
    why: 'a wire format translates to and from the content model only: routes and adapters pick it through its index; it picks no other format',
  },
  { path: 'lib/stores/memory/', never: ['lib/stores/postgres/'], why: 'the two stores implement the contracts in lib/stores/ each on its own: neither reads the other' },
  { path: 'lib/stores/postgres/', never: ['lib/stores/memory/'], why: 'the two stores implement the contracts in lib/stores/ each on its own: neither reads the other' },
  // Each contract file directly in lib/stores/ (listed as the test starts, so a new one is held too).
  ...fs.readdirSync(path.join(__dirname, '..', '..', 'lib', 'stores')).filter((f) => f.endsWith('.ts')).map((f) => ({
    path: `lib/stores/${f}`, never: ['lib/stores/memory/', 'lib/stores/postgres/'], why: 'a store contract knows no store that implements it',
  })),
];

/** Whether `file` is `prefix` (a file) or under it (a folder). */
const under = (file: string, prefix: string): boolean => (prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix);

/** The module `file` belongs to under a layer's path (the folder its `*` matches), or undefined. */
function moduleOf(file: string, layerPath: string): string | undefined {
  const star = layerPath.indexOf('*');
  if (star < 0) return under(file, layerPath) ? layerPath : undefined;
  const head = layerPath.slice(0, star);
  if (!file.startsWith(head)) return undefined;
  const module = head + (file.slice(head.length).split('/')[0] ?? '') + layerPath.slice(star + 1);
  return under(file, module) && module !== file ? module : undefined;
}

/** Every breach of `layers` in an import graph (file → the lib files it imports), one line each. */
function violations(graph: ReadonlyMap<string, readonly string[]>, layers: readonly Layer[] = LAYERS): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      for (const layer of layers) {
        const mine = moduleOf(file, layer.path);
        if (mine !== undefined && !under(target, mine)) {
          if (layer.only && !layer.only.some((p) => under(target, p))) found.push(`${file} imports ${target}: ${layer.path} imports only ${layer.only.join(', ') || 'nothing in lib'} (${layer.why})`);
          if (layer.never?.some((p) => under(target, p))) found.push(`${file} imports ${target}: ${layer.path} never imports ${layer.never.join(', ')} (${layer.why})`);
        }
        const theirs = layer.face === undefined ? undefined : moduleOf(target, layer.path);
        if (theirs !== undefined && theirs !== mine && target !== theirs + layer.face) found.push(`${file} imports ${target}: import ${theirs}${layer.face} instead (${layer.why})`);
      }
    }
  }
  return found;
}

/** The value re-exports (`export … from`, `export * from`) of a source text; `export type … from` is none (no code). */
function valueReexports(text: string): string[] {
  const source = ts.createSourceFile('face.ts', text, ts.ScriptTarget.ES2022, false);
  return source.statements.filter((st): st is ts.ExportDeclaration => {
    if (!ts.isExportDeclaration(st) || st.moduleSpecifier === undefined || st.isTypeOnly) return false;
    const clause = st.exportClause;
    return clause === undefined || !ts.isNamedExports(clause) || clause.elements.some((e) => !e.isTypeOnly);
  }).map((st) => st.getText(source));
}

const ROOT = path.join(__dirname, '..', '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The lib file a relative specifier names (`x` → x.ts or x/index.ts); the bare path when it is no .ts file. */
function resolved(from: string, specifier: string): string {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => candidate.endsWith('.ts') && fs.existsSync(path.join(ROOT, candidate))) ?? base;
}

/** lib's import graph: every .ts file under lib and the lib files it imports (packages left out). */
function libGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles('lib')) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    graph.set(file, info.importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.')).map((s) => resolved(file, s)));
  }
  return graph;
}

describe('the layers of lib', () => {
  const graph = libGraph();

  it('reads the imports TypeScript finds, resolved to files', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('lib/middleware/proxy-chat.ts')).toContain('lib/formats/openai-chat/index.ts');
    expect(graph.get('lib/formats/openai-chat/index.ts')).toContain('lib/formats/openai-chat/request-from-chat.ts'); // a re-export
    expect(graph.get('lib/upstreams/providers/anthropic.ts')).toContain('lib/formats/anthropic/index.ts');
  });

  it('holds for every file of lib', () => {
    expect(violations(graph)).toEqual([]);
  });

  it("is the table docs/architecture.md shows, floor by floor", () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d+) \| (.+?) \|/gm)].map((m) => [...(m[2] ?? '').matchAll(/`([^`]+)`/g)].map((n) => `lib/${n[1]}`));
    expect(rows).toEqual(FLOORS.map((floor) => floor.members));
  });

  it('puts every file and folder of lib on exactly one floor', () => {
    const entries = fs.readdirSync(path.join(ROOT, 'lib'), { withFileTypes: true }).map((e) => `lib/${e.name}${e.isDirectory() ? '/' : ''}`);
    const members = FLOORS.flatMap((floor) => floor.members);
    expect(entries.filter((entry) => !members.includes(entry))).toEqual([]);
    expect(members.filter((member) => !entries.includes(member))).toEqual([]);
    expect(new Set(members).size).toBe(members.length);
  });

  it("has every module's face export constants, not re-exports", () => {
    const faces = new Set<string>();
    for (const file of graph.keys()) {
      for (const layer of LAYERS) {
        const module = layer.face === undefined ? undefined : moduleOf(file, layer.path);
        if (module !== undefined) faces.add(module + layer.face);
      }
    }
    expect([...faces]).toEqual(expect.arrayContaining(['lib/formats/anthropic/index.ts', 'lib/formats/openai-chat/index.ts', 'lib/formats/openai-responses/index.ts']));
    expect([...faces].filter((face) => !graph.has(face))).toEqual([]); // every module has its face
    const found = [...faces].flatMap((face) => valueReexports(fs.readFileSync(path.join(ROOT, face), 'utf8')).map((line) => `${face}: ${line}`));
    expect(found).toEqual([]);
  });

  it.each([
    ["export { a } from './a';", 1],
    ["export * from './a';", 1],
    ["export * as a from './a';", 1],
    ["export { type A, b } from './a';", 1],
    ["export type { A } from './a';", 0],
    ["export { type A } from './a';", 0],
    ["import * as a from './a';\nexport const { b } = a;\nexport type A = a.A;", 0],
  ])('counts the value re-exports of %j: %d', (text, count) => {
    expect(valueReexports(text)).toHaveLength(count);
  });

  it.each([
    ['a format importing an adapter', 'lib/formats/openai-chat/usage.ts', 'lib/upstreams/types.ts'],
    ['a format importing a route', 'lib/formats/anthropic/events.ts', 'lib/middleware/validate.ts'],
    ['a format importing the router', 'lib/formats/openai-responses/stream.ts', 'lib/router.ts'],
    ['a format importing the admin API', 'lib/formats/openai-chat/types.ts', 'lib/admin/http.ts'],
    ['a format importing another format', 'lib/formats/openai-responses/tools.ts', 'lib/formats/openai-chat/index.ts'],
    ['the content model importing outside itself', 'lib/messages/content.ts', 'lib/types.ts'],
    ['an adapter importing a route', 'lib/upstreams/failover.ts', 'lib/middleware/limits.ts'],
    ['the billing rule importing the request context', 'lib/billing/settle.ts', 'lib/context.ts'],
    ['a store importing an adapter', 'lib/stores/types.ts', 'lib/upstreams/types.ts'],
    ['a floor importing its own floor', 'lib/wire/sse-writer.ts', 'lib/billing/figures.ts'],
    ['the admin API importing the gateway router', 'lib/admin/router.ts', 'lib/router.ts'],
    ['the catalog importing the request context', 'lib/catalog/catalog.ts', 'lib/context.ts'],
    ["a route importing a format's inner file", 'lib/middleware/proxy-chat.ts', 'lib/formats/openai-chat/answer-to-chat.ts'],
    ["an adapter importing a format's inner file", 'lib/upstreams/providers/anthropic.ts', 'lib/formats/anthropic/frames.ts'],
    ['transport importing an adapter', 'lib/wire/stream-answer.ts', 'lib/upstreams/types.ts'],
    ['the foundation importing a definition', 'lib/foundation/errors.ts', 'lib/messages/content.ts'],
    ['the foundation importing the catalog', 'lib/foundation/sync.ts', 'lib/catalog/catalog.ts'],
    ['the content model importing a format', 'lib/messages/request.ts', 'lib/formats/anthropic/index.ts'],
    ['one store importing the other', 'lib/stores/memory/store.ts', 'lib/stores/postgres/migrate.ts'],
    ['a store contract importing a store', 'lib/stores/keys.ts', 'lib/stores/memory/keys.ts'],
  ])('refuses %s', (_case, from, to) => {
    expect(violations(new Map([[from, [to]]]))).toHaveLength(1);
  });

  it.each([
    ['a route importing a format through its index', 'lib/middleware/validate.ts', 'lib/formats/openai-chat/index.ts'],
    ['a format importing its own inner files', 'lib/formats/openai-chat/answer-to-chat.ts', 'lib/formats/openai-chat/tables.ts'],
    ['a format importing the content model', 'lib/formats/anthropic/frames.ts', 'lib/messages/events.ts'],
    ['a format importing a leaf', 'lib/formats/openai-chat/tables.ts', 'lib/foundation/errors.ts'],
    ['the content model importing itself', 'lib/messages/gateway-thinking.ts', 'lib/messages/content.ts'],
    ['lib/index.ts importing a format through its index', 'lib/index.ts', 'lib/formats/openai-responses/index.ts'],
    ['a stage importing the billing rule', 'lib/middleware/billing-records.ts', 'lib/billing/settle.ts'],
    ['an adapter importing the billing records', 'lib/upstreams/types.ts', 'lib/billing/records.ts'],
    ['a store importing its contract', 'lib/stores/postgres/keys.ts', 'lib/stores/keys.ts'],
  ])('allows %s', (_case, from, to) => {
    expect(violations(new Map([[from, [to]]]))).toEqual([]);
  });
});
