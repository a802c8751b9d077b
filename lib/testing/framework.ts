/**
 * The test framework's functions the contract suite takes (Jest's and Vitest's fit), so
 * model-gateway/testing loads without either at runtime.
 */

/** The matchers the suite uses. */
export interface Matchers {
  toBe(expected: unknown): unknown;
  toEqual(expected: unknown): unknown;
  toMatchObject(expected: object): unknown;
  toHaveLength(length: number): unknown;
  toBeUndefined(): unknown;
  toBeNull(): unknown;
  toContain(item: unknown): unknown;
  readonly not: Pick<Matchers, 'toContain'>;
  readonly rejects: { toThrow(expected?: unknown): Promise<unknown> };
}

/** `expect`, with the asymmetric matchers the suite uses. */
export interface ExpectLike {
  (actual: unknown): Matchers;
  any(type: unknown): unknown;
  objectContaining(shape: object): unknown;
  stringMatching(pattern: RegExp): unknown;
}

/** The framework: `describe`, `it` (with a timeout in ms), `beforeAll`, `afterAll` and `expect`. */
export interface TestFramework {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<unknown>, timeoutMs?: number): unknown;
  beforeAll(body: () => Promise<unknown>, timeoutMs?: number): unknown;
  afterAll(body: () => Promise<unknown>, timeoutMs?: number): unknown;
  expect: ExpectLike;
}
