'use strict';
// Crash takeover (GUARANTEES.md, failure mode 1): a holder in another process, with disconnect
// grace 0, is killed with SIGKILL while this process waits on its lock in the node's queue. The
// node sees the connection close and grants the lock to the waiter at once, well before the
// dead holder's TTL, with a higher token and previous_end DISCONNECTED.

const path = require('node:path');
const { spawn } = require('node:child_process');
const { once } = require('node:events');
const { Session, now } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, lockStatus } = require('../lib/requests');
const { num, sleep } = require('../lib/rpc');

const HOLDER_TTL_MS = 10000;

/** Starts holder.js on `lock`; resolves with the child and its {session, token} line. */
async function startHolder(endpoint, lock) {
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '..', 'holder.js'), '--endpoint', endpoint, '--lock', lock, '--ttl-ms', String(HOLDER_TTL_MS)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  child.stdout.setEncoding('utf8');
  const line = await Promise.race([
    once(child.stdout, 'data').then(([d]) => d),
    once(child, 'exit').then(([status]) => { throw new Error(`holder exited ${status}: ${err.trim()}`); }),
  ]);
  return { child, grant: JSON.parse(line) };
}

/** Polls the lock's status until `sessionId` is among its waiters. */
async function awaitWaiter(client, lock, sessionId) {
  for (let i = 0; i < 200; i += 1) {
    const status = await lockStatus(client, lock);
    if (status.waiters.some((w) => String(w.session_id) === String(sessionId))) return status;
    await sleep(25);
  }
  throw new Error(`session ${sessionId} never appeared among the waiters of ${lock}`);
}

module.exports = async function takeover(context) {
  const { client, endpoint, prefix } = context;
  const lock = `${prefix}takeover`;
  const { child, grant: dead } = await startHolder(endpoint, lock);
  const session = await Session.open(client, { ttlMs: 10000, clientName: 'conformance waiter' });
  try {
    const waiting = acquire(client, acquireRequest(session, lock, { waitMs: 30000 }));
    waiting.catch(() => {}); // awaited below; a failure before that must not end the whole run
    const queued = await awaitWaiter(client, lock, session.id);
    equal(queued.holder.token, dead.token, 'the holder is the child');
    const killedAt = now();
    child.kill('SIGKILL');
    const acquired = await waiting;
    const takeoverMs = now() - killedAt;
    code(acquired, 'CODE_OK', 'the waiter is granted');
    const grant = acquired.grant;
    check(BigInt(grant.token) > BigInt(dead.token), `a token above the dead holder's ${dead.token}`, grant.token);
    equal(grant.previous_end, 'TENURE_END_DISCONNECTED', 'previous_end');
    equal(grant.previous_token, dead.token, 'previous_token');
    check(takeoverMs < HOLDER_TTL_MS, `granted before the dead holder's TTL of ${HOLDER_TTL_MS} ms`, takeoverMs);
    context.takeover = { lock, session, deadToken: dead.token, token: grant.token };
    return {
      dead_token: dead.token,
      token: num(grant.token),
      previous_end: grant.previous_end,
      takeover_ms: Math.round(takeoverMs),
      holder_ttl_ms: HOLDER_TTL_MS,
    };
  } catch (err) {
    await session.close();
    throw err;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
};
