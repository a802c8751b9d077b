/** The one ajv instance (with ajv-formats) and the error text every schema failure turns into. */
import Ajv, { type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import ucs2length from 'ajv/dist/runtime/ucs2length';
import addFormats from 'ajv-formats';

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv);

// maxLength, counted as ajv counts it (code points), but only for a string longer than `limit`
// UTF-16 units: a shorter one cannot have more code points, and 1000 documents need not be walked.
const maxChars: SchemaValidateFunction = (limit: number, text: string) => {
  if (text.length <= limit || ucs2length(text) <= limit) return true;
  maxChars.errors = [{ keyword: 'maxChars', message: `must NOT have more than ${limit} characters`, params: { limit } }];
  return false;
};
ajv.addKeyword({ keyword: 'maxChars', type: 'string', schemaType: 'number', errors: true, validate: maxChars });

/** Compiles a schema once, at construction. */
export function compileSchema<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

const dotted = (pointer: string): string => pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** "<json.path>: <message>" for the first ajv error, in the vendor's pydantic-like style. */
export function describeError(error: ErrorObject): string {
  const path = dotted(error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${join(path, String(p.missingProperty))}: Field required`;
    case 'additionalProperties':
      return `${join(path, String(p.additionalProperty))}: Extra inputs are not permitted`;
    case 'type':
      return `${path}: must be ${String(p.type).replace(',', ' or ')}`;
    case 'enum':
      return `${path}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${path}: must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return `${path}: must contain non-whitespace text`;
    case 'minItems':
      return path === 'messages' ? 'messages: at least one message is required' : `${path}: must have at least ${String(p.limit)} item(s)`;
    default:
      return `${path || 'body'}: ${error.message ?? 'is invalid'}`;
  }
}
