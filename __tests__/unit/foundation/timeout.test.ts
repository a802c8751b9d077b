/** lib/foundation/timeout.ts: a store call bounded in time; a value answers at once. */
import { checkTimeout, withTimeout } from '../../../lib/foundation/timeout';
import { refused } from '../../helpers/config-error';

describe('withTimeout()', () => {
  it('passes a value and a prompt answer through', async () => {
    await expect(withTimeout(7, 10, 'lookup')).resolves.toBe(7);
    await expect(withTimeout(Promise.resolve(8), 1000, 'lookup')).resolves.toBe(8);
    await expect(withTimeout(Promise.reject(new Error('down')), 1000, 'lookup')).rejects.toThrow('down');
  });

  it('rejects a stalled call, naming it and the bound', async () => {
    await expect(withTimeout(new Promise(() => undefined), 20, 'key lookup')).rejects.toThrow('key lookup timed out after 20 ms');
  });

  it('checks a timeout option with the one duration check', () => {
    expect(checkTimeout(5, 'x')).toBe(5);
    expect(() => checkTimeout(0, 'reserve: option "timeoutMs"')).toThrow(refused('ERR_MGW_INVALID_DURATION'));
  });
});
