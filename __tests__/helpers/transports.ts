/** The upstream HTTP clients the adapter contract tests run on: node-fetch 2 (the default) and undiciFetch(). */
import { undiciFetch, type FetchLike } from '../../lib';

/** [name, the adapters' `fetch` option (a new client per call)]: `undefined` is the default client. */
export const TRANSPORTS: ReadonlyArray<readonly [string, () => FetchLike | undefined]> = [
  ['node-fetch', () => undefined],
  ['undici', () => undiciFetch()],
];
