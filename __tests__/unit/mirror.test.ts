/**
 * Tests find their module: every folder of lib/ holding code, and every top-level lib file that
 * holds logic, has a unit test at the same path under __tests__/unit (a folder with tests, or
 * `<name>.test.ts`), unless COVERED_ELSEWHERE names the tests that cover it and why.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/**
 * What has no unit test of its own at its mirrored path, on purpose. Each entry names the tests
 * that cover it (paths under __tests__/, checked to exist) and why no unit test is written.
 */
const COVERED_ELSEWHERE: Readonly<Record<string, { readonly by: readonly string[]; readonly why: string }>> = {
  'lib/admin/dashboard/': {
    by: ['browser/access.test.ts', 'browser/what-it-shows.test.ts', 'integration/dashboard-auth.test.ts', 'integration/cli-dashboard.test.ts'],
    why: 'the dashboard is pages and their sessions: what it shows is only meaningful in a real browser, its sign-in over real HTTP',
  },
  'lib/testing/': {
    by: ['integration/store-contract.test.ts'],
    why: 'it is itself a test suite (the store contract, model-gateway/testing): run against MemoryStore and PostgresStore, which is its test',
  },
  'lib/router.ts': {
    by: ['integration/front-stages.test.ts', 'integration/error-answers.test.ts', 'integration/messages-wire.test.ts'],
    why: 'it only composes the stages, each unit-tested under unit/middleware/; the composed routes are what every integration test calls',
  },
  'lib/index.ts': {
    by: ['unit/exports.test.ts'],
    why: 'the public index: its export list is the test (exports.test.ts), named for what it checks',
  },



  'lib/stores/postgres/': {
    by: ['integration/store-contract.test.ts', 'integration/pg-restart.test.ts', 'integration/pg-deadlock.test.ts', 'integration/kill-mid-batch.test.ts', 'integration/request-log-scale.test.ts'],
    why: 'PostgresStore is SQL: only a real PostgreSQL tests it, which makes every test of it an integration test',
  },

};

/** Whether a TypeScript file holds logic: anything left once compiled to JavaScript (types and comments vanish). */
function holdsLogic(file: string): boolean {
  const out = ts.transpileModule(fs.readFileSync(path.join(ROOT, file), 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, removeComments: true } }).outputText;
  return out.split('\n').map((l) => l.trim()).some((l) => l !== '' && l !== '"use strict";' && !l.startsWith('Object.defineProperty(exports, "__esModule"'));
}

const isCode = (name: string): boolean => name.endsWith('.ts') && !name.endsWith('.d.ts');
const entries = (dir: string) => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true });

/** Every folder under `dir` (itself included) that holds a code file directly, with a trailing slash. */
function codeFolders(dir: string): string[] {
  const here = entries(dir);
  const own = here.some((e) => e.isFile() && isCode(e.name)) ? [`${dir}/`] : [];
  return [...own, ...here.filter((e) => e.isDirectory()).flatMap((e) => codeFolders(`${dir}/${e.name}`))];
}

/** Whether `dir` holds a test file, at any depth. */
function holdsTests(dir: string): boolean {
  if (!fs.existsSync(path.join(ROOT, dir))) return false;
  return entries(dir).some((e) => (e.isDirectory() ? holdsTests(`${dir}/${e.name}`) : e.name.endsWith('.test.ts')));
}

/** The unit test path mirroring a lib path: `lib/wire/` → `__tests__/unit/wire/`, `lib/context.ts` → `__tests__/unit/context.test.ts`. */
const mirrorOf = (libPath: string): string => `__tests__/unit/${libPath.slice('lib/'.length).replace(/\.ts$/, '.test.ts')}`;
const mirrored = (libPath: string): boolean => (libPath.endsWith('/') ? holdsTests(mirrorOf(libPath).slice(0, -1)) : fs.existsSync(path.join(ROOT, mirrorOf(libPath))));

const FOLDERS = codeFolders('lib').filter((f) => f !== 'lib/');
const FILES = entries('lib').filter((e) => e.isFile() && isCode(e.name)).map((e) => `lib/${e.name}`).filter(holdsLogic);

describe('unit tests mirror lib/', () => {
  it('finds the folders and the files with logic', () => {
    expect(FOLDERS).toEqual(expect.arrayContaining(['lib/middleware/', 'lib/upstreams/http/', 'lib/formats/anthropic/']));
    expect(FILES).toEqual(expect.arrayContaining(['lib/context.ts', 'lib/options.ts']));
    expect(FILES).not.toContain('lib/types.ts'); // types only
  });

  it('has a unit test at the path of every folder and logic file, or says what covers it', () => {
    const missing = [...FOLDERS, ...FILES].filter((p) => !mirrored(p) && !Object.hasOwn(COVERED_ELSEWHERE, p)).map((p) => `${p}: add ${mirrorOf(p)}`);
    expect(missing).toEqual([]);
  });

  it('keeps the allow-list true: each entry exists, still has no mirror, and names tests that exist', () => {
    const stale = Object.entries(COVERED_ELSEWHERE).flatMap(([p, { by, why }]) => [
      ...(![...FOLDERS, ...FILES].includes(p) ? [`${p}: no such folder or logic file in lib`] : []),
      ...(mirrored(p) ? [`${p}: has ${mirrorOf(p)} now; remove it from COVERED_ELSEWHERE`] : []),
      ...by.filter((t) => !fs.existsSync(path.join(ROOT, '__tests__', t))).map((t) => `${p}: ${t} does not exist`),
      ...(why.trim() === '' ? [`${p}: say why`] : []),
    ]);
    expect(stale).toEqual([]);
  });

  it('has every folder of __tests__/unit mirror a folder of lib (helpers/ mirrors __tests__/helpers)', () => {
    const unitFolders = (dir: string): string[] => entries(dir).filter((e) => e.isDirectory()).flatMap((e) => [`${dir}/${e.name}`, ...unitFolders(`${dir}/${e.name}`)]);
    const strays = unitFolders('__tests__/unit').map((d) => d.slice('__tests__/unit/'.length))
      .filter((rel) => rel !== 'helpers' && !fs.existsSync(path.join(ROOT, 'lib', rel)));
    expect(strays).toEqual([]);
  });
});
