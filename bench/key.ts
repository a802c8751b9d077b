/** The bench caller's key and request headers, shared by the load generator and the servers under test. */
export const KEY = 'sk-bench-key-0123456789abcdef';
export const HEADERS = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
