'use strict';
// Owner-bound release (GUARANTEES.md, failure mode 5): a release with a token that is not the
// lock's current grant, or from a session that does not hold it, is CODE_NOT_OWNER naming the
// current token, and the lease, its holder and the lock's history stay as they were.

const { Session } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, releaseRequest, release, lockStatus } = require('../lib/requests');
const { num } = require('../lib/rpc');

function unchanged(status, before, what) {
  equal(status.holder.session_id, before.holder.session_id, `${what}: holder session`);
  equal(status.holder.token, before.holder.token, `${what}: holder token`);
  equal(status.history.length, before.history.length, `${what}: history length`);
}

module.exports = async function ownerBoundRelease({ client, prefix }) {
  const lock = `${prefix}release`;
  const owner = await Session.open(client, { ttlMs: 10000, clientName: 'conformance owner' });
  const other = await Session.open(client, { ttlMs: 10000, clientName: 'conformance other' });
  try {
    const acquired = await acquire(client, acquireRequest(owner, lock));
    code(acquired, 'CODE_OK', 'acquire');
    const token = BigInt(acquired.grant.token);
    const before = await lockStatus(client, lock);

    const wrongToken = await release(client, releaseRequest(owner, lock, token + 1000n));
    code(wrongToken, 'CODE_NOT_OWNER', 'a release with a wrong token');
    equal(wrongToken.current_token, token, 'current_token');
    unchanged(await lockStatus(client, lock), before, 'after the wrong token');

    const wrongSession = await release(client, releaseRequest(other, lock, token));
    code(wrongSession, 'CODE_NOT_OWNER', "another session's release of the right token");
    equal(wrongSession.current_token, token, 'current_token');
    unchanged(await lockStatus(client, lock), before, "after another session's release");

    // The secret is what makes the session yours: the owner's id without it is refused.
    const forged = await release(client, { ...releaseRequest(other, lock, token), session_id: owner.id });
    code(forged, 'CODE_DENIED', "a release naming the owner's session with another secret");
    unchanged(await lockStatus(client, lock), before, 'after the forged release');

    code(await release(client, releaseRequest(owner, lock, token)), 'CODE_OK', "the owner's release");
    const after = await lockStatus(client, lock);
    check(after.holder === null, 'free after the owner released', after.holder);
    return { token: num(acquired.grant.token), refused: 3 };
  } finally {
    await owner.close();
    await other.close();
  }
};
