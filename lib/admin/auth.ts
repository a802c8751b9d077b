/** adminAuth(): admin tokens from options, compared in constant time; read-only and read-write. */
import type { RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../errors';

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

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Checks the tokens once: names unique, secrets at least 16 characters and unique. */
export function checkTokens(tokens: readonly AdminToken[]): void {
  if (!Array.isArray(tokens) || tokens.length === 0) throw new TypeError('createAdminRouter: option "tokens" must be a non-empty array of { name, token, access: "read" | "write" }.');
  const names = new Set<string>();
  const secrets = new Set<string>();
  for (const [i, t] of tokens.entries()) {
    if (typeof t?.name !== 'string' || t.name.length === 0 || names.has(t.name)) throw new TypeError(`createAdminRouter: tokens[${i}].name must be a non-empty, unique string.`);
    if (typeof t.token !== 'string' || t.token.length < 16 || secrets.has(t.token)) throw new TypeError(`createAdminRouter: tokens[${i}].token must be a unique secret of at least 16 characters (e.g. from openssl rand -hex 24).`);
    if (t.access !== 'read' && t.access !== 'write') throw new TypeError(`createAdminRouter: tokens[${i}].access must be "read" or "write".`);
    names.add(t.name);
    secrets.add(t.token);
  }
}

/**
 * `Authorization: Bearer <admin token>`; every configured token is compared (SHA-256 digests,
 * timingSafeEqual), so the time taken says nothing about which one, or how much of one, matched.
 * Missing or unknown: 401. A `read` token on a write (any method but GET): 403.
 */
export function adminAuth(tokens: readonly AdminToken[]): RequestHandler {
  checkTokens(tokens);
  const known = tokens.map((t) => ({ digest: digest(t.token), identity: Object.freeze({ name: t.name, access: t.access }) }));
  return function adminAuthMiddleware(req, res, next) {
    const header = req.headers.authorization;
    const presented = typeof header === 'string' && header.startsWith('Bearer ') ? digest(header.slice(7).trim()) : undefined;
    let found: AdminIdentity | undefined;
    if (presented) for (const k of known) if (timingSafeEqual(k.digest, presented) && !found) found = k.identity;
    if (!found) {
      next(new GatewayError('authentication_error', 'authorization: a valid admin token is required (Authorization: Bearer <token>).'));
      return;
    }
    if (req.method !== 'GET' && found.access !== 'write') {
      next(new GatewayError('permission_error', `authorization: token "${found.name}" may only read.`));
      return;
    }
    res.locals.admin = found;
    next();
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
