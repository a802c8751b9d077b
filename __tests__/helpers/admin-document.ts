/** The admin API's OpenAPI document as a test oracle: an answer must match the schema of its path, method and status. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { adminOpenApi } from '../../lib/admin/openapi';

const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
addFormats(ajv);
ajv.addSchema({ ...adminOpenApi, $id: 'admin' });
const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The document's path template for a concrete path (e.g. /keys/{keyId} for /keys/key_…). */
export const templateOf = (path: string): string | undefined =>
  Object.keys(adminOpenApi.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));

/** Throws, naming what differs, unless `body` is what the document promises for this answer (errors: the Error schema). */
export function checkAgainstDocument(method: string, path: string, status: number, body: unknown): void {
  const template = templateOf(path);
  if (!template && status !== 404) throw new Error(`no path in the document for ${path}`);
  const ref = status >= 400 || !template ? 'admin#/components/schemas/Error' : `admin#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(body)) throw new Error(`${method} ${path} ${status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 500)}`);
}

/** Checks a request body against the document's requestBody schema of a route (what the docs show must be what the route takes). */
export function checkRequestBody(method: string, template: string, body: unknown): void {
  const ref = `admin#/${pointer('paths', template, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(body)) throw new Error(`${method} ${template} body: ${ajv.errorsText(validate.errors)}`);
}
