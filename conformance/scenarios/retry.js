'use strict';
// Request ids (docs/protocol.md section 3): the same Acquire request sent twice is one grant, a
// retried Release returns its original outcome instead of acting again, and an Acquire retried
// after its lease ended grants nothing.

const { Session } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, releaseRequest, release, lockStatus } = require('../lib/requests');
const { num } = require('../lib/rpc');

module.exports = async function retry({ client, prefix }) {
  const lock = `${prefix}retry`;
  const session = await Session.open(client, { ttlMs: 10000, clientName: 'conformance retry' });
  try {
    const request = acquireRequest(session, lock);
    const first = await acquire(client, request);
    code(first, 'CODE_OK', 'acquire');
    // The retry a client sends after a lost answer: same request id, its next attempt.
    const second = await acquire(client, { ...request, attempt: 2 });
    code(second, 'CODE_OK', 'the same acquire again');
    equal(second.grant.token, first.grant.token, 'the retry returns the same token');
    equal(second.grant.granted_at_ms, first.grant.granted_at_ms, 'the retry returns the same grant time');
    const status = await lockStatus(client, lock);
    equal(status.holder.token, first.grant.token, 'one lease, the first grant');
    equal(status.history.length, 0, 'no tenure ended meanwhile');

    const releaseOnce = releaseRequest(session, lock, first.grant.token);
    code(await release(client, releaseOnce), 'CODE_OK', 'release');
    code(await release(client, releaseOnce), 'CODE_OK', 'the same release again (its original outcome)');
    // A new request is decided on the state: the lease is gone.
    const fresh = await release(client, releaseRequest(session, lock, first.grant.token));
    code(fresh, 'CODE_NOT_OWNER', 'a new release of the released token');
    equal(fresh.current_token, 0, 'current token of a free lock');
    // The acquire retried once its lease is gone: a new request would be granted a new token; the
    // retry is not a new request, and must not take the free lock again.
    const late = await acquire(client, { ...request, attempt: 3 });
    code(late, 'CODE_CANCELLED', 'the acquire retried after its lease ended');
    const after = await lockStatus(client, lock);
    check(after.holder === null, 'the late retry granted nothing', after.holder);
    equal(after.history.length, 1, 'one tenure, released');
    return { token: num(first.grant.token), request_id: request.request_id };
  } finally {
    await session.close();
  }
};
