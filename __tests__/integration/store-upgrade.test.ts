/**
 * Upgrades with instances of an older release still running: each release below, built from git
 * history, serves on the schema the current code migrates to, beside an instance of the current
 * code. Every migration it lacks must leave it working, unless the migration table marks it
 * breaking and the failure is the one docs/operations.md tells operators to expect.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { migrate, PostgresStore } from '../../lib';
import { SQL_DIR } from '../../lib/stores/postgres/migrate';
import { exercise, type AnyReleaseStore } from '../helpers/release-exercise';
import { releaseMigrations, releaseStoreModule } from '../helpers/release';
import { pgPool, uniqueSchema } from '../helpers/services';

/**
 * Releases whose instances may still run when the current code migrates their schema, newest
 * first (a new release goes first), with the exercise's steps each has no operation for.
 */
const RELEASES: ReadonlyArray<readonly [commit: string, what: string, lacks: readonly string[]]> = [
  ['044ddc7', 'the previous release: migrations 1-14 and 20', []],
  ['5d2507a', 'the last before migration 13: 1-12 and 20', []],
  ['fbd9eef', 'the last before migration 10: 1-9', ['ledger, spend, accounts, series', 'catalog overrides, dashboard sessions']],
  ['6269bd1', 'the last before migrations 8 and 9: 1-7', ['key records', 'reviews', 'ledger, spend, accounts, series', 'audit', 'catalog overrides, dashboard sessions']],
];

/**
 * What an older release's instance fails once a migration marked breaking is applied: the step,
 * its error, and the words docs/operations.md ("Upgrading") tells operators to expect.
 */
const BREAKS: Record<number, Array<{ step: string; error: string; documented: string }>> = {
  9: [
    { step: 'addKey, credit', error: 'null value in column "key_id"', documented: 'null value in column "key_id"' },
    { step: 'findCaller', error: 'key added by the older, found by the newer', documented: 'cannot add keys' },
    { step: 'key status', error: 'the key disabled by the newer, read by the older', documented: 'keeps working on the older instances' },
  ],
  13: [
    { step: 'sweepExpiredHolds', error: 'there is no unique or exclusion constraint matching the ON CONFLICT specification', documented: 'hold sweep' },
    { step: 'appendLog', error: 'there is no unique or exclusion constraint matching the ON CONFLICT specification', documented: 'there is no unique or exclusion constraint matching the ON CONFLICT specification' },
  ],
};

const ROOT = path.join(__dirname, '..', '..');
const shipped = readdirSync(SQL_DIR).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
const versionOf = (file: string): number => Number(file.split('_')[0]);

/** The rows of CHANGELOG.md's migration table, by file name. */
function migrationTable(): Map<string, string> {
  const section = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8').split('## Upgrading: schema migrations')[1] ?? '';
  return new Map([...section.matchAll(/^\| `(\d+_[^`]+\.sql)` \|(.*)\|\s*$/gm)].map((m) => [m[1] as string, m[2] as string]));
}

it('the migration table has a row for every shipped migration; those marked breaking are the ones whose failure is known and documented', () => {
  const rows = migrationTable();
  expect([...rows.keys()]).toEqual(shipped);
  const breaking = [...rows].filter(([, row]) => row.includes('**breaking**')).map(([file]) => versionOf(file));
  expect(breaking).toEqual(Object.keys(BREAKS).map(Number));
  const upgrading = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8').split('## Upgrading')[1] ?? '';
  for (const failure of Object.values(BREAKS).flat()) expect(upgrading).toContain(failure.documented);
});

it.each(RELEASES)('release %s (%s) works beside the current code on the schema it migrates to, but for the migrations marked breaking', async (commit, _what, lacks) => {
  const { PostgresStore: Older } = require(releaseStoreModule(commit)) as { PostgresStore: typeof PostgresStore };
  const theirs = releaseMigrations(commit);
  const after = shipped.map(versionOf).filter((v) => !theirs.includes(v));
  // One pool per release, as separate processes have: the two name their prepared statements alike.
  const [olderPool, newerPool] = [await pgPool(), await pgPool()];
  const schema = uniqueSchema();
  const older = new Older({ pool: olderPool, schema, sweepIntervalMs: 0, keyCacheMs: 0 }) as AnyReleaseStore;
  const twin = new Older({ pool: olderPool, schema, sweepIntervalMs: 0, keyCacheMs: 0 }) as AnyReleaseStore;
  const newer = new PostgresStore({ pool: newerPool, schema, sweepIntervalMs: 0, keyCacheMs: 0 });
  try {
    // The schema as the release made it, used by two of its instances: every step it has an operation for passes.
    expect(await older.migrate()).toEqual(theirs);
    expect((await exercise(older, twin)).map((f) => f.step)).toEqual(lacks);
    // The current code upgrades it (its first instance starting) while the older instances keep serving.
    if (after.length > 0) await expect(newer.ready()).rejects.toThrow(new RegExp(`lacks migrations? ${after.join(', ')}: run migrate`));
    expect(await migrate(newerPool, schema)).toEqual(after);
    await newer.ready();
    const breaks = after.flatMap((v) => BREAKS[v] ?? []);
    const expected = [...lacks.map((step) => ({ step, error: expect.any(String) })), ...breaks.map((f) => ({ step: f.step, error: expect.stringContaining(f.error) }))];
    const byStep = (x: { step: string }, y: { step: string }): number => x.step.localeCompare(y.step);
    expect((await exercise(older, newer)).sort(byStep)).toEqual(expected.sort(byStep));
  } finally {
    await Promise.all([older.close(), twin.close(), newer.close()]);
    await newerPool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await Promise.all([olderPool.end(), newerPool.end()]);
  }
}, 90_000);
