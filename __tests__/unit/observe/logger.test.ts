/** lib/observe: the logging observer's levels and fields, a JSON logger's lines, and observers combined (one that throws changes nothing). */
import { loggingObserver, jsonLogger } from '../../../lib/observe/logger';
import { combineObservers } from '../../../lib/observe/observer';
import type { RequestLogEntry } from '../../../lib';
import { refused } from '../../helpers/config-error';

const entry = (over: Partial<RequestLogEntry> = {}) => ({
  requestId: 'req_1', callerId: 'acct_1', endpoint: 'messages', model: 'm', stream: false, status: 200, errorCode: null, usage: {}, cost: '1', charge: '1',
  billingStatus: 'billed', durationMs: 5, ttfbMs: 2, upstream: 'anthropic', attempts: [], user: null, detail: null, ...over,
}) as unknown as RequestLogEntry;

describe('loggingObserver()', () => {
  const lines: Array<{ level: string; msg: string; [k: string]: unknown }> = [];
  const observer = loggingObserver(jsonLogger((line) => lines.push(JSON.parse(line))));
  beforeEach(() => { lines.length = 0; });

  it('logs a request that ended well at info, without a detail it does not have', () => {
    observer.requestFinished?.(entry());
    expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'request finished', requestId: 'req_1', attempts: 0 })]);
    expect(lines[0]).not.toHaveProperty('detail');
  });

  it('logs a failed request at warn with its detail, a failed store call at warn, a write set aside at error', () => {
    observer.requestFinished?.(entry({ status: 502, errorCode: 'api_error', detail: 'upstream 502' }));
    observer.storeCall?.('settle', 3, new Error('db down'));
    observer.storeCall?.('settle', 3);
    observer.writeSetAside?.('settlement', 'req_1', 'gone');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['warn', 'request failed'], ['warn', 'store call failed'], ['error', 'store write set aside after repeated failures']]);
    expect(lines[0]).toMatchObject({ detail: 'upstream 502' });
    expect(lines[1]).toMatchObject({ operation: 'settle', cause: 'Error: db down' });
  });

  it('refuses a logger without the three levels, by code', () => {
    expect(() => loggingObserver({ info: () => undefined } as never)).toThrow(refused('ERR_MGW_INVALID_OPTION'));
  });
});

describe('combineObservers()', () => {
  it('tells each in turn, past one that throws; none is undefined, one is itself', () => {
    const seen: string[] = [];
    const one = { requestFinished: () => { seen.push('one'); throw new Error('x'); } };
    const two = { requestFinished: () => { seen.push('two'); } };
    combineObservers([one, undefined, two])?.requestFinished?.(entry());
    expect(seen).toEqual(['one', 'two']);
    expect(combineObservers([undefined])).toBeUndefined();
    expect(combineObservers([two])).toBe(two);
  });
});
