/** lib/catalog/names.ts: a model's aliases and patterns, their collisions refused by code, and the order names resolve in. */
import { commonName, matches, MAX_MODEL_NAME, ModelNames, nameProblem, type Named } from '../../../lib/catalog/names';
import { refused } from '../../helpers/config-error';

const names = (...models: Named[]): ModelNames<Named> => new ModelNames(new Map(models.map((m) => [m.id, m])));

describe('matches()', () => {
  it.each([
    ['claude-opus-*', 'claude-opus-4-8[1m]', true],
    ['claude-opus-*', 'claude-opus-', true],
    ['claude-opus-*', 'claude-sonnet-4', false],
    ['*-20250929', 'claude-sonnet-4-5-20250929', true],
    ['claude-*-4-*', 'claude-opus-4-8', true],
    ['claude-*-4-*', 'claude-opus-3-8', false],
    ['a*b*c', 'abbbc', true],
    ['a*b*c', 'acb', false],
    ['*', '', true],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(matches(pattern, name)).toBe(expected);
  });

  it('stays linear-ish on a hostile name (no backtracking blow-up)', () => {
    const started = performance.now();
    expect(matches('*a*a*a*a*a*a*b', 'a'.repeat(MAX_MODEL_NAME))).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('commonName()', () => {
  it('finds a name two patterns both match, or none', () => {
    const both = commonName('claude-*-4', 'claude-4-*');
    expect(both).toBeDefined();
    expect(matches('claude-*-4', both as string) && matches('claude-4-*', both as string)).toBe(true);
    expect(commonName('claude-opus-*', 'claude-sonnet-*')).toBeUndefined();
    expect(commonName('a*', '*b')).toBe('ab');
    expect(commonName('x*', 'x*')).toBe('x');
  });
});

describe('nameProblem()', () => {
  it('refuses an empty or overlong name, an alias with "*", a pattern without', () => {
    expect(nameProblem('', 'alias')).toMatch(/non-empty string/);
    expect(nameProblem('x'.repeat(MAX_MODEL_NAME + 1), 'pattern')).toMatch(/at most 256/);
    expect(nameProblem('claude-*', 'alias')).toMatch(/goes in "patterns"/);
    expect(nameProblem('claude', 'pattern')).toMatch(/goes in "aliases"/);
    expect(nameProblem('claude-opus-4-8[1m]', 'alias')).toBeUndefined();
  });
});

describe('ModelNames', () => {
  it('resolves the id, then an alias, then the most specific pattern that matches', () => {
    const opus = { id: 'opus', aliases: ['claude-opus-4-8[1m]'], patterns: ['claude-opus-*'] };
    const any = { id: 'any', patterns: ['claude-*'] };
    const exact = { id: 'claude-opus-legacy' };
    const index = names(any, opus, exact);
    expect(index.resolve('opus')).toBe(opus);
    expect(index.resolve('claude-opus-4-8[1m]')).toBe(opus);
    expect(index.resolve('claude-opus-5')).toBe(opus); // more specific than claude-*, though listed after it
    expect(index.resolve('claude-opus-legacy')).toBe(exact); // an id before any pattern
    expect(index.resolve('claude-haiku')).toBe(any);
    expect(index.resolve('gpt-5')).toBeUndefined();
    expect(index.resolve(`claude-${'x'.repeat(MAX_MODEL_NAME)}`)).toBeUndefined(); // longer than any model name: no pattern tried
  });

  it.each([
    ['an alias that is another id', [{ id: 'a', aliases: ['b'] }, { id: 'b' }], 'the alias "b" of "a" is the id of "b"'],
    ['an alias that is its own id', [{ id: 'a', aliases: ['a'] }], 'the alias "a" of "a" is the id of "a"'],
    ['an alias of two models', [{ id: 'a', aliases: ['x'] }, { id: 'b', aliases: ['x'] }], 'the alias "x" of "b" is an alias of "a" too'],
    ['one pattern on two models', [{ id: 'a', patterns: ['claude-*'] }, { id: 'b', patterns: ['claude-*'] }], 'both match "claude-"'],
    ['two patterns as specific, matching one name', [{ id: 'a', patterns: ['claude-*-4'] }, { id: 'b', patterns: ['claude-4-*'] }], 'neither is more specific'],
  ])('refuses %s with ERR_MGW_CATALOG_NAME_COLLISION', (_case, models, wording) => {
    expect(() => names(...models)).toThrow(refused('ERR_MGW_CATALOG_NAME_COLLISION', wording));
  });

  it("takes one model's own overlapping patterns, and patterns as specific that share no name", () => {
    expect(() => names({ id: 'a', patterns: ['claude-*-4', 'claude-4-*'] })).not.toThrow();
    expect(() => names({ id: 'a', patterns: ['claude-opus-*'] }, { id: 'b', patterns: ['claude-haik-*'] })).not.toThrow();
  });
});
