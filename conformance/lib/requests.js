'use strict';
// The requests the scenarios make, each as docs/protocol.md section 3 asks: a mutating request
// names its session with the secret and carries a fresh request id (a retry reuses the request).

const { call } = require('./rpc');

/** An AcquireRequest of `session` for `lock`; send it with acquire(), again to retry it. */
function acquireRequest(session, lock, { waitMs = 0, attempt = 1 } = {}) {
  return { ...session.auth(), request_id: session.nextRequestId(), lock, wait_ms: waitMs, attempt };
}

/** Sends an AcquireRequest, with a deadline beyond its wait (docs/protocol.md, "Waiting"). */
function acquire(client, request) {
  const waitMs = Number(request.wait_ms);
  const deadlineMs = (waitMs < 0 ? 3600000 : waitMs) + 10000;
  return call(client, 'Acquire', request, { deadlineMs, totalMs: deadlineMs });
}

function releaseRequest(session, lock, token) {
  return { ...session.auth(), request_id: session.nextRequestId(), lock, token: String(token) };
}

function release(client, request) {
  return call(client, 'Release', request);
}

/** A fenced put: accepted only while `token` is the lock's current grant. */
function fencedPut(client, session, key, value, lock, token) {
  return call(client, 'KvPut', {
    ...session.auth(),
    request_id: session.nextRequestId(),
    key,
    value: Buffer.from(value, 'utf8'),
    fence: { lock, token: String(token) },
  });
}

function kvGet(client, key) {
  return call(client, 'KvGet', { key });
}

function lockStatus(client, lock) {
  return call(client, 'LockStatus', { lock });
}

module.exports = { acquireRequest, acquire, releaseRequest, release, fencedPut, kvGet, lockStatus };
