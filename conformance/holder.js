#!/usr/bin/env node
'use strict';
// A holder to be killed: opens a session with disconnect grace 0 (the node ends it as soon as
// the connection closes), acquires a lock, prints {"session":..,"token":..} and holds it,
// renewing, until killed.
//   node conformance/holder.js --endpoint HOST:PORT --lock NAME [--ttl-ms N]

const { connect, num } = require('./lib/rpc');
const { Session } = require('./lib/session');
const { acquireRequest, acquire } = require('./lib/requests');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  process.stderr.write(`holder.js: ${name} is required\n`);
  process.exit(2);
}

async function main() {
  const client = connect(arg('--endpoint'));
  const ttlMs = Number(arg('--ttl-ms', '10000'));
  const session = await Session.open(client, { ttlMs, graceMs: 0, clientName: `conformance holder ${process.pid}` });
  session.on('lost', (reason) => {
    process.stderr.write(`holder.js: lost: ${reason}\n`);
    process.exit(4);
  });
  const acquired = await acquire(client, acquireRequest(session, arg('--lock')));
  if (acquired.code !== 'CODE_OK') {
    process.stderr.write(`holder.js: acquire answered ${acquired.code}: ${acquired.message}\n`);
    process.exit(3);
  }
  process.stdout.write(`${JSON.stringify({ session: num(session.id), token: num(acquired.grant.token) })}\n`);
}

main().catch((err) => {
  process.stderr.write(`holder.js: ${err.stack || err}\n`);
  process.exit(1);
});
