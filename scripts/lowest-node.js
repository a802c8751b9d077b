// Runs jest.lowest.config.js's files on the lowest Node major the package admits (engines.node): `npm test` runs the
// whole suite on the Node 24 it installs (node_modules/.bin/node), then this. The Node is NODE_LOWEST if set, else the
// first `node` on PATH outside any node_modules whose major is the lowest one. `--which` prints its path and exits.
const { execFileSync, spawn } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');
const semver = require('semver');

const root = path.join(__dirname, '..');
const claimed = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
const major = semver.major(semver.minVersion(claimed));
/** PATH without the node_modules/.bin folders npm adds (one of them holds Node 24). */
const outside = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !dir.split(path.sep).includes('node_modules'));

function versionOf(node) {
  try {
    return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function lowestNode() {
  if (process.env.NODE_LOWEST) return process.env.NODE_LOWEST;
  for (const dir of outside) {
    const node = path.join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    const version = existsSync(node) ? versionOf(node) : undefined;
    if (version && semver.major(version) === major) return node;
  }
  return undefined;
}

const node = lowestNode();
const version = node && versionOf(node);
if (!node || !version || semver.major(version) !== major || !semver.satisfies(version, claimed)) {
  console.error(`lowest-node: no Node ${major} (${claimed}, the lowest the package admits) found${node ? `: ${node} is ${version ?? 'not runnable'}` : ' on PATH outside node_modules'}. Install it, or set NODE_LOWEST to its path.`);
  process.exit(1);
}
if (process.argv[2] === '--which') {
  console.log(node);
  process.exit(0);
}
console.log(`lowest-node: the files of jest.lowest.config.js on Node ${version} (${node})`);
// Spawned processes (node, npm, npx) find this Node first, and none of node_modules/.bin.
const env = { ...process.env, PATH: [path.dirname(node), ...outside].join(path.delimiter) };
const jest = spawn(node, [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '-c', path.join(root, 'jest.lowest.config.js'), ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' });
jest.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
