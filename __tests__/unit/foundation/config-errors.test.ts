/** Construction errors: one class with a code and a link, the codes written once (CONFIG_ERRORS), docs/errors.md checked against them, one duration check. */
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_ERRORS, GatewayConfigError } from '../../../lib';
import { ERRORS_DOC, wordingOf } from '../../../lib/foundation/config-errors';
import { checkDuration } from '../../../lib/foundation/duration';
import { refused } from '../../helpers/config-error';

const ROOT = path.join(__dirname, '..', '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The entries of docs/errors.md's construction section: code → its first paragraph. */
function documented(): Map<string, string> {
  const section = read('docs/errors.md').split(/^## Construction errors$/m)[1]?.split(/^## /m)[0] ?? '';
  const entries = new Map<string, string>();
  for (const part of section.split(/^### /m).slice(1)) {
    const [heading = '', ...rest] = part.split('\n');
    entries.set(heading.trim(), rest.join('\n').trim().split('\n\n')[0] ?? '');
  }
  return entries;
}

/** Every lib .ts file's text. */
function libText(dir = 'lib'): string {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).map((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? libText(rel) : e.name.endsWith('.ts') ? read(rel) : '';
  }).join('\n');
}

describe('GatewayConfigError', () => {
  it('is a TypeError with its code, its reason and a link to its entry', () => {
    const err = new GatewayConfigError('ERR_MGW_UNKNOWN_OPTION', 'f: unknown option "x".');
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ name: 'GatewayConfigError', code: 'ERR_MGW_UNKNOWN_OPTION', reason: 'f: unknown option "x".', help: `${ERRORS_DOC}#err_mgw_unknown_option` });
    expect(err.message).toBe(`f: unknown option "x". (ERR_MGW_UNKNOWN_OPTION, see ${ERRORS_DOC}#err_mgw_unknown_option)`);
    expect(wordingOf(err)).toBe('f: unknown option "x".');
    expect(wordingOf(new Error('plain'))).toBe('plain');
  });

  it('docs/errors.md documents every code, with its title, and nothing else', () => {
    const docs = documented();
    expect([...docs.keys()]).toEqual(Object.keys(CONFIG_ERRORS));
    for (const [code, { title, fix }] of Object.entries(CONFIG_ERRORS)) expect(docs.get(code)).toBe(`**${title}.** ${fix}`);
  });

  it('every code is thrown somewhere in lib, and lib throws no plain TypeError', () => {
    const text = libText();
    const unused = Object.keys(CONFIG_ERRORS).filter((code) => !text.includes(`'${code}'`));
    expect(unused).toEqual([]);
    expect(text.match(/new TypeError\(/g) ?? []).toEqual([]);
  });
});

describe('checkDuration, the one check of a duration', () => {
  it.each<[unknown, number | undefined]>([[1, 1], [2_147_483_647, 2_147_483_647], [0, undefined], [-1, undefined], [1.5, undefined], [Infinity, undefined], [NaN, undefined], ['15s', undefined], [2_147_483_648, undefined]])('%p', (value, kept) => {
    if (kept === undefined) expect(() => checkDuration(value, 'f: option "waitMs"')).toThrow(refused('ERR_MGW_INVALID_DURATION', 'f: option "waitMs" must be a positive integer of milliseconds.'));
    else expect(checkDuration(value, 'f: option "waitMs"')).toBe(kept);
  });

  it('takes a least value, zero included, and seconds', () => {
    expect(() => checkDuration(99, 'f: option "leaseMs"', { min: 100 })).toThrow(refused('ERR_MGW_INVALID_DURATION', 'f: option "leaseMs" must be an integer of at least 100 ms.'));
    expect(checkDuration(0, 'f: option "graceMs"', { min: 0 })).toBe(0);
    expect(() => checkDuration(-1, 'f: option "graceMs"', { min: 0 })).toThrow(refused('ERR_MGW_INVALID_DURATION', 'must be a non-negative integer of milliseconds'));
    expect(() => checkDuration(0, 'limits: option "windowSec"', { unit: 'seconds' })).toThrow(refused('ERR_MGW_INVALID_DURATION', 'limits: option "windowSec" must be a positive integer of seconds.'));
  });
});
