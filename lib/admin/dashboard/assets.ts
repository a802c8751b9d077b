/** The dashboard's files, read once from the installed package, and the headers every dashboard answer carries. */
import type { Request, RequestHandler, Response } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Where the browser code lives: lib/admin/dashboard/public, copied to dist by the build. */
export const PUBLIC_DIR = path.join(__dirname, 'public');

const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** Only this origin's scripts, styles and fetches; no inline script or style, no plugins, no framing, forms post only here. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'", "font-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** Sets the dashboard's security headers on every answer under it. */
export const securityHeaders: RequestHandler = function dashboardHeaders(_req, res, next) {
  res.set({
    'content-security-policy': CONTENT_SECURITY_POLICY, 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin',
  });
  next();
};

/** One file: its type, its bytes and their gzip. */
export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

/** A file to serve, by its extension (".js"). */
export const assetOf = (extension: string, body: Buffer): Asset => ({ type: TYPES[extension] as string, body, gzip: gzipSync(body, { level: 9 }) });

/** Every servable file under `dir` by its path with forward slashes ("pages/keys.js"); nothing else can be named. */
export function loadAssets(dir = PUBLIC_DIR, prefix = '', assets = new Map<string, Asset>()): Map<string, Asset> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) loadAssets(path.join(dir, entry.name), `${prefix}${entry.name}/`, assets);
    if (!entry.isFile() || !TYPES[path.extname(entry.name)]) continue;
    assets.set(prefix + entry.name, assetOf(path.extname(entry.name), readFileSync(path.join(dir, entry.name))));
  }
  return assets;
}

/** Answers a file (gzipped when the browser takes it); the browser revalidates it by ETag, so an upgrade shows at once. */
export function sendAsset(req: Request, res: Response, asset: Asset): void {
  const gzip = req.acceptsEncodings('gzip') === 'gzip';
  res.set({ 'content-type': asset.type, 'cache-control': 'no-cache', vary: 'Accept-Encoding' });
  if (gzip) res.set('content-encoding', 'gzip');
  res.send(gzip ? asset.gzip : asset.body);
}
