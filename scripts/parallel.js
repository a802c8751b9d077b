// Runs shell commands at once (`npm test`'s build and its three type-checks were a minute's queue on
// 2 cores), each one's output printed whole when it ends; exits with the first failure's code.
const { spawn } = require('node:child_process');

const commands = process.argv.slice(2);
let failed = 0;
Promise.all(commands.map((command) => new Promise((resolve) => {
  const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => out.push(c));
  child.on('close', (code, signal) => {
    process.stdout.write(`> ${command}\n${Buffer.concat(out).toString()}`);
    if (code !== 0 && !failed) failed = code ?? 1;
    if (code !== 0) process.stdout.write(`failed (${code ?? signal}): ${command}\n`);
    resolve();
  });
}))).then(() => process.exit(failed));
