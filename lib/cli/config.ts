/** Reads the standalone config: YAML or JSON, `${VAR}` from the environment (env.ts), checked against the published JSON Schema. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { ErrorObject } from 'ajv';
import { compileSchema } from '../schemas/ajv';
import { configSchema, type GatewayConfig } from './config-schema';
import { ConfigError, configPath } from './config-error';
import { substitute } from './env';

export { buildAt, ConfigError, configPath } from './config-error';
export type { GatewayConfig, ModelConfig, UpstreamConfig } from './config-schema';

const check = compileSchema<GatewayConfig>(configSchema);

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

/** "path.to.value: what is wrong; the fix" for a schema error. */
function explain(error: ErrorObject, data: unknown): string {
  const at = pathOf(error.instancePath, data);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      // The schema object that refused it, found by its path in the schema.
      const parent = error.schemaPath.slice(2).split('/').slice(0, -1)
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], configSchema) as { properties?: object } | undefined;
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

/** Parses and checks a config text (YAML is a superset of JSON, so both are read the same way). */
export function parseConfig(text: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`the file is not valid YAML or JSON: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const { value: config, sources } = substitute(raw, configSchema, env);
  if (check(config)) return config;
  const error = check.errors?.[0];
  if (!error) throw new ConfigError('the config is invalid');
  const from = sources.get(pathOf(error.instancePath, config));
  throw new ConfigError(`${explain(error, config)}${from ? ` (the value comes from environment variable ${from.join(', ')})` : ''}`);
}

/** Reads and checks a config file. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseConfig(text, env);
}
