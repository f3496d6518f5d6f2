'use strict';
// README "30 seconds", first holder's part, through the raw protocol: acquire `orders`, read its
// status, write the cursor to the fenced store under the token, release.

const { Session, now } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, releaseRequest, release, fencedPut, kvGet, lockStatus } = require('../lib/requests');
const { num } = require('../lib/rpc');

module.exports = async function walkthrough({ client, prefix }) {
  const lock = `${prefix}orders`;
  const key = `${prefix}orders/cursor`;
  const session = await Session.open(client, { ttlMs: 10000, clientName: 'conformance walkthrough' });
  try {
    const sent = now();
    const acquired = await acquire(client, acquireRequest(session, lock));
    const acquireMs = now() - sent;
    code(acquired, 'CODE_OK', 'acquire');
    const grant = acquired.grant;
    equal(grant.lock, lock, 'grant.lock');
    equal(grant.session_id, session.id, 'grant.session_id');
    equal(grant.ttl_ms, 10000, 'grant.ttl_ms');
    equal(grant.previous_end, 'TENURE_END_NONE', 'grant.previous_end of a new lock');
    equal(grant.previous_token, 0, 'grant.previous_token of a new lock');
    check(BigInt(grant.token) > 0n, 'grant.token > 0', grant.token);

    const status = await lockStatus(client, lock);
    code(status, 'CODE_OK', 'lock status');
    check(status.holder !== null, 'status names a holder', status);
    equal(status.holder.session_id, session.id, 'holder.session_id');
    equal(status.holder.token, grant.token, 'holder.token');
    equal(status.holder.client_name, 'conformance walkthrough', 'holder.client_name');

    const put = await fencedPut(client, session, key, '42', lock, session.fence(grant.token, 500));
    code(put, 'CODE_OK', 'fenced put under the current token');
    equal(put.version, 1, 'version of a new key');
    const got = await kvGet(client, key);
    code(got, 'CODE_OK', 'kv get');
    equal(got.value.toString('utf8'), '42', 'value');
    equal(got.token, grant.token, 'the token that wrote the value');
    equal(got.lock, lock, 'the lock that fenced the value');

    const released = await release(client, releaseRequest(session, lock, grant.token));
    code(released, 'CODE_OK', 'release');
    const after = await lockStatus(client, lock);
    check(after.holder === null, 'no holder after the release', after.holder);
    const last = after.history[after.history.length - 1];
    check(last !== undefined, 'a history record of the tenure', after.history);
    equal(last.token, grant.token, 'history token');
    equal(last.end, 'TENURE_END_RELEASED', 'history end');
    return { token: num(grant.token), session: num(session.id), acquire_ms: Math.round(acquireMs) };
  } finally {
    await session.close();
  }
};
