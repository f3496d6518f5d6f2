'use strict';
// Stale-token refusal, after the crash takeover: the dead holder's token is refused by the
// fenced store (CODE_STALE_TOKEN naming the current token) and changes nothing; the new
// holder's token is accepted; a release with the dead token is CODE_NOT_OWNER.

const { check, equal, code } = require('../lib/check');
const { fencedPut, kvGet, lockStatus, releaseRequest, release } = require('../lib/requests');
const { num } = require('../lib/rpc');

module.exports = async function staleToken({ client, prefix, takeover }) {
  check(takeover !== undefined, 'needs the crash takeover to have passed');
  const { lock, session, deadToken, token } = takeover;
  const key = `${prefix}orders/cursor-after-takeover`;
  try {
    const stale = await fencedPut(client, session, key, 'from the dead holder', lock, deadToken);
    code(stale, 'CODE_STALE_TOKEN', 'a put with the dead holder token');
    equal(stale.current_token, token, 'current_token of the refusal');
    const absent = await kvGet(client, key);
    code(absent, 'CODE_NOT_FOUND', 'the refused put wrote nothing');

    const fresh = await fencedPut(client, session, key, 'from the new holder', lock, session.fence(token, 500));
    code(fresh, 'CODE_OK', 'a put with the current token');
    const got = await kvGet(client, key);
    equal(got.value.toString('utf8'), 'from the new holder', 'value');
    equal(got.token, token, 'the token that wrote it');

    const staleRelease = await release(client, releaseRequest(session, lock, deadToken));
    code(staleRelease, 'CODE_NOT_OWNER', 'a release with the dead holder token');
    equal(staleRelease.current_token, token, 'current_token of the refused release');

    const status = await lockStatus(client, lock);
    equal(status.holder.token, token, 'the new holder still holds the lock');
    check(BigInt(status.stale_writes.count) >= 2n, 'the stale put and release are counted', status.stale_writes);
    equal(status.stale_writes.last_token, deadToken, 'stale_writes.last_token');
    equal(status.stale_writes.last_current_token, token, 'stale_writes.last_current_token');
    code(await release(client, releaseRequest(session, lock, token)), 'CODE_OK', 'the new holder releases');
    return {
      stale_token: deadToken,
      current_token: num(token),
      stale_writes: num(status.stale_writes.count),
      refusal: stale.message,
    };
  } finally {
    await session.close();
  }
};
