/** Reads the standalone config: YAML or JSON, `${VAR}` from the environment (env.ts), checked against the published JSON Schema. */
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { compileSchema } from '../schemas/ajv';
import { configSchema, type GatewayConfig, type ModelConfig } from './config-schema';
import { ConfigError, configPath } from './config-error';
import { substitute } from './env';
import { unknownKeys, yamlError } from './config-text';

export { buildAt, ConfigError, configPath } from './config-error';
export type { GatewayConfig, ModelConfig, UpstreamConfig } from './config-schema';

const check = compileSchema<GatewayConfig>(configSchema);
/** The models section alone (client-config reads only it: the rest may name variables not set where it runs). */
const modelsSchema = Type.Object({ models: configSchema.properties.models });
const checkModels = compileSchema<{ models: ModelConfig[] }>(modelsSchema);

/** The config path of a JSON pointer into `data` (an index wherever the value there is an array). */
function pathOf(pointer: string, data: unknown): string {
  let at = '';
  let node = data;
  for (const part of pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    at = configPath(at, Array.isArray(node) ? Number(part) : part);
    node = (node as Record<string, unknown> | undefined)?.[part];
  }
  return at;
}

/** "path.to.value: what is wrong; the fix" for a schema error of `data` against `schema`. */
function explain(error: ErrorObject, data: unknown, schema: object): string {
  const at = pathOf(error.instancePath, data);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      // The schema object that refused it, found by its path in the schema.
      const parent = error.schemaPath.slice(2).split('/').slice(0, -1)
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], schema) as { properties?: object } | undefined;
      return `${configPath(at, String(p.additionalProperty))}: unknown key; remove it or fix its spelling${parent?.properties ? ` (allowed here: ${Object.keys(parent.properties).join(', ')})` : ''}`;
    }
    case 'required':
      return `${configPath(at, String(p.missingProperty))}: required; add it`;
    case 'type':
      return `${at || '(top level)'}: must be ${String(p.type).replaceAll(',', ' or ')}; change the value's type`;
    case 'enum':
      return `${at}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at || '(top level)'}: ${error.message ?? 'is invalid'}`;
  }
}

/** The YAML (or JSON) of a config text; a syntax error is refused whole, with the lines it points at. */
function parseText(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (err) {
    throw new ConfigError(`the file is not valid YAML or JSON: ${yamlError(err)}`);
  }
}

/** Checks a filled config against `schema`, or throws the first error by path (with the variable a value came from). */
function checked<T>(validate: ValidateFunction<T>, schema: object, filled: unknown, sources: Map<string, string[]>): T {
  if (validate(filled)) return filled;
  const error = validate.errors?.[0];
  if (!error) throw new ConfigError('the config is invalid');
  const from = sources.get(pathOf(error.instancePath, filled));
  throw new ConfigError(`${explain(error, filled, schema)}${from ? ` (the value comes from environment variable ${from.join(', ')})` : ''}`);
}

/** Parses and checks a config text (YAML is a superset of JSON, so both are read the same way). */
export function parseConfig(text: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const raw = parseText(text);
  unknownKeys(raw, configSchema);
  const { value, sources } = substitute(raw, configSchema, env);
  return checked(check, configSchema, value, sources);
}

/** Reads and checks only the models of a config file: the other sections, and the variables they name, are not read. */
export function loadModels(file: string, env: NodeJS.ProcessEnv = process.env): ModelConfig[] {
  const raw = parseText(readText(file));
  const models = raw && typeof raw === 'object' && 'models' in raw ? { models: raw.models } : {};
  unknownKeys(models, modelsSchema);
  const { value, sources } = substitute(models, modelsSchema, env);
  return checked(checkModels, modelsSchema, value, sources).models;
}

/** A config file's text; one that cannot be read is named with the reason. */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Reads and checks a config file. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfig(readText(file), env);
}
