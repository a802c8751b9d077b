// @ts-check
/** The admin API as the page calls it: the session cookie goes with every call, the session's CSRF token with every write. */

/** The admin router's mount: this page is at <mount>/dashboard/. */
const BASE = new URL('../', location.href);
let csrf = '';

/** A refusal in the gateway's error shape. */
export class ApiError extends Error {
  /** @param {number} status @param {string} type @param {string} message */
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

/** @typedef {Record<string, string | number | boolean | undefined>} Query */

/**
 * @param {string} method @param {string} path  relative to the mount, e.g. "keys"
 * @param {Query} [query] @param {unknown} [body] @param {Record<string, string>} [headers]
 * @returns {Promise<unknown>}  the answer's JSON (null for none)
 */
async function call(method, path, query = {}, body = undefined, headers = {}) {
  const url = new URL(path, BASE);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method, credentials: 'same-origin', cache: 'no-store',
    headers: { ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    location.assign(new URL('sign-in', location.href)); // the session ended: sign in again
    throw new ApiError(401, 'authentication_error', 'Your session ended; sign in again.');
  }
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const { error } = /** @type {{ error?: { type?: string, message?: string } }} */ (data ?? {});
    throw new ApiError(res.status, error?.type ?? 'api_error', error?.message ?? `HTTP ${res.status}`);
  }
  return data;
}

/**
 * A read; `T` is the answer's type, from ./shapes.d.ts (the server's own types).
 * @template T @param {string} path @param {Query} [query] @returns {Promise<T>}
 */
export const get = (path, query) => /** @type {Promise<T>} */ (call('GET', path, query));

/** A write. @template T @param {string} method @param {string} path @param {unknown} [body] @param {Record<string, string>} [headers] @returns {Promise<T>} */
export const send = (method, path, body, headers) => /** @type {Promise<T>} */ (call(method, path, {}, body, headers));

/**
 * A page of a list: `{ items, next }`.
 * @template T @param {string} path @param {Query} [query] @returns {Promise<import('./shapes').Page<T>>}
 */
export async function list(path, query) {
  return get(path, query);
}

/** Who signed in (name, access), the CSRF token of this session, and what money is called. @returns {Promise<{ name: string, access: 'read' | 'write', expiresAt: number, currency: string }>} */
export async function whoami() {
  /** @type {{ name: string, access: 'read' | 'write', expiresAt: number, currency: string, csrf: string }} */
  const me = await get('dashboard/session');
  csrf = me.csrf;
  return me;
}

/** Ends the session on the server, then shows the sign-in page. */
export async function signOut() {
  await call('POST', 'dashboard/sign-out');
  location.assign(new URL('sign-in', location.href));
}

/** A fresh idempotency key (getRandomValues works on plain http too, unlike randomUUID). */
export function newKey() {
  return `dash-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
