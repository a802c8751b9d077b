/** adminAuth(): admin tokens from options, compared in constant time, failures limited per address; read-only and read-write; or a dashboard session. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { Request, RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../foundation/errors';
import type { SignInLimits } from './sign-in-limits';

/** An admin token: its name goes to the audit trail; `read` tokens may only read. */
export interface AdminToken {
  name: string;
  token: string;
  access: 'read' | 'write';
}

/** Who is calling, as adminAuth() found it. */
export interface AdminIdentity {
  name: string;
  access: 'read' | 'write';
}

/** SHA-256 of a secret: what is compared and kept, never the secret. */
export const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Checks the tokens once: names unique, secrets at least 16 characters and unique. */
export function checkTokens(tokens: readonly AdminToken[]): void {
  if (!Array.isArray(tokens) || tokens.length === 0) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createAdminRouter: option "tokens" must be a non-empty array of { name, token, access: "read" | "write" }.');
  const names = new Set<string>();
  const secrets = new Set<string>();
  for (const [i, t] of tokens.entries()) {
    if (typeof t?.name !== 'string' || t.name.length === 0 || names.has(t.name)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `createAdminRouter: tokens[${i}].name must be a non-empty, unique string.`);
    if (typeof t.token !== 'string' || t.token.length < 16 || secrets.has(t.token)) throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `createAdminRouter: tokens[${i}].token must be a unique secret of at least 16 characters (e.g. from openssl rand -hex 24).`);
    if (t.access !== 'read' && t.access !== 'write') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `createAdminRouter: tokens[${i}].access must be "read" or "write".`);
    names.add(t.name);
    secrets.add(t.token);
  }
}

/** The configured tokens by digest: who a presented secret is, and who a session opened with one is. */
export class AdminTokens {
  private readonly known: ReadonlyArray<{ digest: Buffer; identity: AdminIdentity }>;

  constructor(tokens: readonly AdminToken[]) {
    checkTokens(tokens);
    this.known = tokens.map((t) => ({ digest: digest(t.token), identity: Object.freeze({ name: t.name, access: t.access }) }));
  }

  /**
   * The identity of a presented secret and its digest. Every token is compared (SHA-256 digests,
   * timingSafeEqual), so the time taken says nothing about which one, or how much of one, matched.
   */
  identify(secret: string): { identity: AdminIdentity; digest: Buffer } | undefined {
    const presented = digest(secret);
    let found: { identity: AdminIdentity; digest: Buffer } | undefined;
    for (const k of this.known) if (timingSafeEqual(k.digest, presented) && !found) found = k;
    return found;
  }

  /** The identity of the configured token whose digest passes `check` (a session's token, with its access of now). */
  matching(check: (digest: Buffer) => boolean): AdminIdentity | undefined {
    return this.known.find((k) => check(k.digest))?.identity;
  }
}

/** Identifies a request without an Authorization header (the dashboard's session cookie): an identity, a refusal, or undefined for none. */
export type SessionAuth = (req: Request, tokens: AdminTokens) => Promise<AdminIdentity | GatewayError | undefined>;

/** Who a request is: its Bearer token (a wrong one counted against its address), else its session. */
async function identify(req: Request, tokens: AdminTokens, limits: SignInLimits, session: SessionAuth | undefined): Promise<AdminIdentity | GatewayError | undefined> {
  const header = req.headers.authorization;
  if (header === undefined) return session?.(req, tokens);
  const client = req.ip ?? 'unknown';
  // Past the limit the token is not even looked at: guessing costs the wait, right or wrong.
  const wait = await limits.waitOf(client);
  if (wait !== undefined) return new GatewayError('rate_limit_error', `authorization: too many failed admin tokens from this address; retry in ${wait} s.`, { retryAfter: wait });
  const found = header.startsWith('Bearer ') ? tokens.identify(header.slice(7).trim())?.identity : undefined;
  if (!found) await limits.failed(client);
  return found;
}

/**
 * `Authorization: Bearer <admin token>`, or else a dashboard session when `session` is given.
 * Missing or unknown: 401 (an unknown one counts as a failure of the client's address: past
 * `limits`, 429 with `retry-after`). A `read` token on a write (`writes`, by default any method
 * but GET; the admin router's: its route table's access): 403.
 */
export function adminAuth(tokens: AdminTokens, limits: SignInLimits, session?: SessionAuth, writes: (req: Request) => boolean = (req) => req.method !== 'GET'): RequestHandler {
  return function adminAuthMiddleware(req, res, next) {
    identify(req, tokens, limits, session).then((found) => {
      if (found instanceof GatewayError) return next(found);
      if (!found) return next(new GatewayError('authentication_error', 'authorization: a valid admin token is required (Authorization: Bearer <token>).'));
      if (found.access !== 'write' && writes(req)) return next(new GatewayError('permission_error', `authorization: token "${found.name}" may only read.`));
      res.locals.admin = found;
      return next();
    }, next);
  };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      admin?: AdminIdentity;
    }
  }
}
