'use strict';
// The horizon (docs/protocol.md section 2): with a 1 s TTL, while keepalives are acked the
// client's horizon stays ahead of now; when they stop, the client declares the lease lost at its
// horizon, and the node ends the session (EXPIRED) never before that: no answer received before
// the horizon may show the lock free.

const { once } = require('node:events');
const { Session, now } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, lockStatus } = require('../lib/requests');
const { sleep } = require('../lib/rpc');

const TTL_MS = 1000;
const ACKED_PHASE_MS = 3000;
const SAMPLE_MS = 20;

/** Samples horizon − now while keepalives run; the smallest lead seen. */
async function leadWhileAcked(session) {
  let minLeadMs = Infinity;
  const until = now() + ACKED_PHASE_MS;
  while (now() < until) {
    minLeadMs = Math.min(minLeadMs, session.horizon() - now());
    check(!session.lost, 'the session stays trusted while keepalives are acked', session.lost);
    await sleep(SAMPLE_MS);
  }
  return minLeadMs;
}

/** Reads the lock until it is free; fails if an answer received before `horizon()` shows it free. */
async function awaitNodeEnd(client, lock, session) {
  const deadline = now() + 10 * TTL_MS;
  while (now() < deadline) {
    const sentAt = now();
    const status = await lockStatus(client, lock);
    const receivedAt = now();
    if (status.holder === null) {
      check(receivedAt >= session.horizon(), 'the node ended the session no earlier than the client horizon', {
        free_seen_ms_before_horizon: session.horizon() - receivedAt,
      });
      return { status, sentAt, receivedAt };
    }
    await sleep(SAMPLE_MS);
  }
  throw new Error(`the node still held the silent session ${10 * TTL_MS} ms after its keepalives stopped`);
}

module.exports = async function horizon({ client, prefix }) {
  const lock = `${prefix}horizon`;
  // closeOnLoss off: a silenced client cannot close, and the node must expire it on its own.
  const session = await Session.open(client, { ttlMs: TTL_MS, clientName: 'conformance horizon', closeOnLoss: false });
  let endedAt = null;
  session.on('ended', () => { endedAt = now(); });
  try {
    const acquired = await acquire(client, acquireRequest(session, lock));
    code(acquired, 'CODE_OK', 'acquire');
    const minLeadMs = await leadWhileAcked(session);
    check(minLeadMs > 0, 'the horizon stayed ahead of now while acked', minLeadMs);
    const acked = session.keepalivesAcked;
    check(acked >= ACKED_PHASE_MS / (TTL_MS / 3) - 2, 'keepalives were acked every TTL/3', acked);

    session.stopKeepalives(); // acks stop: nothing renews the session any more
    const stoppedAt = now();
    const horizonAt = session.horizon();
    const seen = await awaitNodeEnd(client, lock, session);
    // The stream still stands, so the node says so on it too (docs/protocol.md, "Closing").
    if (endedAt === null) await Promise.race([once(session, 'ended'), sleep(2 * TTL_MS)]);
    check(endedAt !== null, 'the node sent SessionEnded on the silent stream');
    // A timer may fire late on a loaded machine, after the node's SessionEnded arrived; what the
    // protocol requires is that the node ended the session no sooner than the client's horizon.
    check(
      session.lost === 'horizon passed' || (endedAt !== null && endedAt >= horizonAt),
      'the client declared the lease lost at its horizon, or the node ended the session after it',
      session.lost,
    );
    check(session.lostAt >= horizonAt, 'not before the horizon', session.lostAt - horizonAt);
    check(endedAt >= horizonAt, 'SessionEnded came after the horizon', endedAt - horizonAt);
    const last = seen.status.history[seen.status.history.length - 1];
    equal(last.token, acquired.grant.token, 'history token');
    equal(last.end, 'TENURE_END_EXPIRED', 'how the silent tenure ended');
    equal(session.ended.end, 'TENURE_END_EXPIRED', 'SessionEnded.end');
    return {
      ttl_ms: TTL_MS,
      margin_ms: session.marginMs,
      keepalives_acked: acked,
      min_lead_ms: Math.round(minLeadMs),
      lost_after_stop_ms: Math.round(session.lostAt - stoppedAt),
      // The first read that saw the lock free was answered this long after the horizon.
      node_end_seen_after_horizon_ms: Math.round(seen.receivedAt - horizonAt),
      session_ended_after_horizon_ms: Math.round(endedAt - horizonAt),
    };
  } finally {
    await session.close('TENURE_END_EXPIRED', 1000);
  }
};
