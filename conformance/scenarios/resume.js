'use strict';
// Resume (docs/protocol.md section 2): a session whose stream broke keeps its leases through the
// disconnect grace, and a resume on a new connection, with the session's secret and the last
// attachment seen, binds it there (a new attachment, the same lease). A resume that expects an
// attachment the session has left is answered Superseded and changes nothing; one without the
// secret is refused PERMISSION_DENIED.

const { Session } = require('../lib/session');
const { check, equal, code } = require('../lib/check');
const { acquireRequest, acquire, lockStatus, releaseRequest, release } = require('../lib/requests');
const { connect, grpc, num, sleep } = require('../lib/rpc');

const GRACE_MS = 3000;

/** Sends one Resume on a raw stream of `client`; its first answer, or its error. */
async function rawResume(client, resume) {
  const stream = client.Attach();
  const answer = new Promise((resolve) => {
    stream.once('data', (response) => resolve({ response }));
    stream.on('error', (error) => resolve({ error }));
  });
  stream.write({ resume });
  const result = await answer;
  stream.cancel();
  return result;
}

module.exports = async function resume({ client, endpoint, prefix }) {
  const lock = `${prefix}resume`;
  const session = await Session.open(client, { ttlMs: 10000, graceMs: GRACE_MS, clientName: 'conformance resume' });
  const second = connect(endpoint); // another connection, as after a failover
  try {
    const acquired = await acquire(client, acquireRequest(session, lock));
    code(acquired, 'CODE_OK', 'acquire');
    const firstAttachment = session.attachment;
    session.abandon(); // the stream breaks without a Close
    await sleep(100);
    await session.resume(second);
    check(BigInt(session.attachment) > BigInt(firstAttachment), 'a new attachment', session.attachment);
    const status = await lockStatus(client, lock);
    equal(status.holder && status.holder.token, acquired.grant.token, 'the lease survived the broken stream');
    const acked = session.keepalivesAcked;
    await sleep(session.graceMs / 3 + 500);
    check(session.keepalivesAcked > acked, 'keepalives are acked on the resumed stream', session.keepalivesAcked);

    const late = await rawResume(client, {
      session_id: session.id,
      session_secret: session.secret,
      disconnect_grace_ms: GRACE_MS,
      expected_attachment: firstAttachment,
    });
    check(late.response && late.response.kind === 'superseded', 'a resume from the old attachment is superseded', late);
    equal(late.response.superseded.attachment, session.attachment, 'Superseded names the current attachment');
    const forged = await rawResume(client, { session_id: session.id, disconnect_grace_ms: GRACE_MS });
    check(forged.error && forged.error.code === grpc.status.PERMISSION_DENIED, 'a resume without the secret is refused', forged);

    await sleep(100);
    check(!session.lost && !session.ended, 'the session stayed on its stream', session.lost);
    code(await release(second, releaseRequest(session, lock, acquired.grant.token)), 'CODE_OK', 'release after the resume');
    return { token: num(acquired.grant.token), attachment: num(session.attachment), grace_ms: session.graceMs };
  } finally {
    await session.close();
    second.close();
  }
};
