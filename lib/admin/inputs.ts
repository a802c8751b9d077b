/** A route's inputs read by their schemas: query text coerced by the type its schema declares, times by timeOf, then the schema's own checks; errors name the field. */
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Request } from 'express';
import { GatewayError } from '../foundation/errors';
import { compileSchema, describeError } from '../schemas/ajv';
import { timeOf } from './http';
import { TIME } from './schemas';

const bad = (field: string, what: string): GatewayError => new GatewayError('invalid_request_error', `${field}: ${what}`);
const isTime = (schema: TSchema): boolean => (schema as { [TIME]?: boolean })[TIME] === true;

/** A checker compiled once from a schema: the value if it holds, else a 400 naming the first field that does not. */
function checked<T>(schema: object): (value: unknown) => T {
  const check = compileSchema<T>(schema);
  return (value) => {
    if (check(value)) return value;
    const first = check.errors?.[0];
    throw new GatewayError('invalid_request_error', first ? describeError(first) : 'body: is invalid');
  };
}

/** One query parameter's text as its schema's type: an integer, true or false, a time, or the text. */
function coerce(name: string, text: string, schema: TSchema): unknown {
  if (isTime(schema)) return timeOf(name, text);
  if (schema.type === 'integer') {
    if (!/^-?\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) throw bad(name, 'must be an integer');
    return Number(text);
  }
  if (schema.type === 'boolean') {
    if (text !== 'true' && text !== 'false') throw bad(name, 'must be true or false');
    return text === 'true';
  }
  return text;
}

/**
 * The reader of a route's query: each parameter its schema names is text of 1 to 512 characters
 * (a repeated one is refused), coerced by its declared type; then the schema checks what it says
 * (required, enum, minimum). Parameters it does not name are ignored.
 */
export function queryReader<T>(schema: TObject): (query: Request['query']) => T {
  const params = Object.entries(schema.properties);
  const check = checked<T>(schema);
  return (query) => {
    const values: Record<string, unknown> = {};
    for (const [name, param] of params) {
      const text = query[name];
      if (text === undefined) continue;
      if (typeof text !== 'string' || text.length === 0 || text.length > 512) throw bad(name, 'must be a string of 1 to 512 characters');
      values[name] = coerce(name, text, param);
    }
    return check(values);
  };
}

/** The reader of a route's JSON body: a time field's number or text is read by timeOf first (its error names both forms), then the schema checks the whole. */
export function bodyReader<T>(schema: TSchema): (body: unknown) => T {
  const times = Object.entries((schema as Partial<TObject>).properties ?? {}).filter(([, field]) => isTime(field)).map(([name]) => name);
  const check = checked<T>(schema);
  return (body) => {
    if (times.length === 0 || typeof body !== 'object' || body === null) return check(body);
    const values: Record<string, unknown> = { ...body };
    for (const name of times) {
      const value = values[name];
      if (typeof value === 'number' || typeof value === 'string') values[name] = timeOf(name, value);
    }
    return check(values);
  };
}
