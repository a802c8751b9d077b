'use strict';
/* Runs inside a fresh network namespace (see loopback.ts): brings its loopback up, relays 127.0.0.1:<port> to a Unix socket
 * the test process serves, signals "ready" on fd 3, then runs the command and exits with its status.
 * Usage: node loopback-relay.js <ip binary> <port> <unix socket> -- <command> [args...] */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');

const [ip, port, socketPath, separator, command, ...args] = process.argv.slice(2);
if (ip === undefined || port === undefined || socketPath === undefined || separator !== '--' || command === undefined) {
  process.stderr.write('loopback-relay: usage: <ip binary> <port> <unix socket> -- <command> [args...]\n');
  process.exit(2);
}

// A new network namespace has only `lo`, and it is down: nothing, not even 127.0.0.1, is reachable until it is up.
execFileSync(ip, ['link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'inherit'] });

const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const drop = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', drop).on('close', drop);
  upstream.on('error', drop).on('close', drop);
  client.pipe(upstream).pipe(client);
});

server.listen(Number(port), '127.0.0.1', () => {
  fs.writeSync(3, 'ready\n');
  fs.closeSync(3);
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('error', (err) => {
    process.stderr.write(`loopback-relay: cannot run ${command}: ${err.message}\n`);
    process.exit(127);
  });
  // This process is the namespace's init: when it exits, whatever the command left behind is killed with it.
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal === null ? 0 : os.constants.signals[signal])));
});
