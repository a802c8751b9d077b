/**
 * The shipped contract suite (model-gateway/testing, as built in dist/) as a store author runs it:
 * Jest with two workers, against a store that gets money wrong. A failure must name its test and
 * show what was expected and received, not die crossing from the worker to Jest's parent process.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

it('a failing exact-money case under two Jest workers is reported by its name, with expected and received', async () => {
  if (!existsSync(path.join(root, 'dist', 'testing', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (`npm test` does).');
  // A fresh cache: no timings, so Jest runs the two files in two workers rather than in band.
  const cache = mkdtempSync(path.join(os.tmpdir(), 'mgw-contract-jest-'));
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
  delete env.JEST_WORKER_ID;
  try {
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      execFile(process.execPath, [require.resolve('jest/bin/jest'), '--config', path.join(__dirname, '..', 'fixtures', 'store-contract', 'jest.config.js'),
        '--maxWorkers=2', '--cacheDirectory', cache, '--ci', '-t', 'exact money: for any sequence'], { cwd: root, env, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, text: `${stdout}${stderr}` }));
    });
    expect(out.text).not.toContain('serialize a BigInt');
    expect(out.text).toContain('● OverchargingStore › exact money: for any sequence of costs, the total charged is the exact total rounded down and the rest is carried');
    expect(out.text).toMatch(/Expected: "\d+"\n\s*Received: "\d+"/);
    expect(out.text).toMatch(/PASS .*memory\.spec\.js/);
    expect(out.text).toMatch(/Tests:\s+1 failed, \d+ skipped, 1 passed/);
    expect(out.code).toBe(1);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}, 130_000);
