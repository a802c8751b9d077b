/** lib/foundation/check-options.ts: an unknown option refused by code, naming the nearest known one or listing them. */
import { checkKnownOptions, nearest } from '../../../lib/foundation/check-options';
import { refused } from '../../helpers/config-error';

describe('checkKnownOptions()', () => {
  const known = ['bodyLimit', 'store', 'models'];
  it('passes known options', () => {
    expect(() => checkKnownOptions('router', { store: 1, models: 2 }, known)).not.toThrow();
  });

  it('names the nearest known option, by case first then by edits', () => {
    expect(nearest('bodylimit', known)).toBe('bodyLimit');
    expect(nearest('modles', known)).toBe('models');
    expect(nearest('colour', known)).toBeUndefined();
    expect(() => checkKnownOptions('router', { bodylimit: 1 }, known)).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', 'router: unknown option "bodylimit"; did you mean "bodyLimit"?'));
  });

  it('lists the options when none is close', () => {
    expect(() => checkKnownOptions('router', { colour: 1 }, known)).toThrow(refused('ERR_MGW_UNKNOWN_OPTION', 'the options are bodyLimit, store, models.'));
  });
});
