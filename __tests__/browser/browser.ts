/** Debian's Chromium driven by playwright-core (no browser download): launch flags that keep it off the network, and a watch on a page. */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Screenshots of every page, kept as test artifacts (gitignored). */
export const ARTIFACTS = path.join(__dirname, 'artifacts');

/** The browser binary: CHROMIUM_PATH, or `chromium` on the PATH (.ci/run installs Debian's package when it is missing). */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0] as string;
  } catch {
    throw new Error('Chromium is required for the browser tests: apt-get install -y --no-install-recommends chromium (.ci/run does it), or set CHROMIUM_PATH.');
  }
}

/**
 * Headless Chromium with a temporary profile (playwright's launch makes and removes one), no
 * sandbox (CI runs as root), and nothing of its own on the network. `evil.test` resolves to this
 * machine: a site of its own for the cross-site tests.
 */
export function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(), headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-dev-shm-usage', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
  });
}

/** What a page did that a test must see: console errors, uncaught errors, and every URL it requested. */
export interface Watch {
  errors: string[];
  requests: string[];
}

export function watch(page: Page): Watch {
  const seen: Watch = { errors: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(`${m.text()} (${m.location().url})`); });
  page.on('pageerror', (e) => seen.errors.push(`uncaught: ${e.message}`));
  page.on('request', (r) => seen.requests.push(r.url()));
  return seen;
}

/** Takes a screenshot into the artifacts folder. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
