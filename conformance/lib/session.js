'use strict';
// One Tenure session over one Attach stream, as docs/protocol.md section 2 describes it: open,
// keepalives every TTL/3 (d/3 with a shorter disconnect grace d) with their send times on the
// monotonic clock, the horizon from acked keepalives only, resume on a new stream, close.

const { EventEmitter } = require('node:events');
const { performance } = require('node:perf_hooks');

/** The monotonic clock, in ms: wall-clock steps must not move a horizon. */
const now = () => performance.now();

/** The drift margin for a window of `windowMs`: max(window/20, 20 ms), kept below the window. */
function driftMarginMs(windowMs) {
  return Math.min(Math.max(windowMs / 20, 20), windowMs / 2);
}

class Session extends EventEmitter {
  /**
   * Opens a session on a new Attach stream of `client`. Options: ttlMs, graceMs (the disconnect
   * grace, 0 by default: the session ends as soon as the connection closes), clientName,
   * marginMs (the drift margin; driftMarginMs(ttl) by default), closeOnLoss (true: at the
   * horizon, close the session EXPIRED, as the protocol asks of a client that still can).
   */
  static async open(client, { ttlMs, graceMs = 0, clientName = 'conformance', marginMs, closeOnLoss = true }) {
    const session = new Session(closeOnLoss);
    const sentAt = now();
    const opened = await session.#attach(client, {
      open: { ttl_ms: ttlMs, client_name: clientName, disconnect_grace_ms: graceMs },
    });
    session.id = opened.session_id;
    session.secret = opened.session_secret;
    session.ttlMs = Number(opened.ttl_ms);
    session.graceMs = Number(opened.disconnect_grace_ms);
    session.echoes = opened.echoes;
    session.marginMs = marginMs ?? driftMarginMs(session.ttlMs);
    session.#confirmed(opened, sentAt);
    return session;
  }

  constructor(closeOnLoss) {
    super();
    this.closeOnLoss = closeOnLoss;
    this.lost = null; // why the client stopped trusting the session, once it did
    this.ended = null; // SessionEnded, once the node said so
    this.ackedSendMs = -Infinity; // send time of the newest acked keepalive (or Open/Resume)
    this.answeredSendMs = -Infinity; // send time of the newest request this stream answered
    this.keepalivesSent = 0;
    this.keepalivesAcked = 0;
    this.requestIds = 0;
    this.stream = null;
    this.sends = new Map(); // keepalive seq -> send time, until acked
    this.seq = 0;
    this.keepaliveTimer = null;
    this.lossTimer = null;
    this.pending = null; // the Open or Resume awaiting its answer
  }

  /** The client's deadline for every lease of the session, on the monotonic clock (ms). */
  horizon() {
    return this.ackedSendMs + this.ttlMs - this.marginMs;
  }

  /** Until when the leases may be acted on: the horizon, and with a grace d the stream's bound. */
  validUntil() {
    if (this.graceMs <= 0) return this.horizon();
    return Math.min(this.horizon(), this.answeredSendMs + this.graceMs - driftMarginMs(this.graceMs));
  }

  /** `token` if the session may still act on it for at least minRemainingMs; else throws. */
  fence(token, minRemainingMs) {
    const left = this.validUntil() - now();
    if (this.lost || left < minRemainingMs) {
      throw new Error(`lease ${token} not usable: ${this.lost ? this.lost : `${left.toFixed(0)} ms left`}`);
    }
    return token;
  }

  /** The next request id of this session: unique and increasing. */
  nextRequestId() {
    this.requestIds += 1;
    return this.requestIds;
  }

  /** Session id and secret, as every request that names the session carries them. */
  auth() {
    return { session_id: this.id, session_secret: this.secret };
  }

  /** Re-binds the session to a new stream of `client` (any node), renewing it. */
  async resume(client) {
    this.#detach();
    const sentAt = now();
    const opened = await this.#attach(client, {
      resume: {
        session_id: this.id,
        session_secret: this.secret,
        disconnect_grace_ms: this.graceMs,
        expected_attachment: this.attachment,
      },
    });
    this.#confirmed(opened, sentAt);
  }

  /** Stops renewing, keeping the stream open: the node then keeps the session until its TTL. */
  stopKeepalives() {
    clearTimeout(this.keepaliveTimer);
    this.keepaliveTimer = null;
  }

  /** Ends the session with `end` and waits for the node's SessionEnded. */
  async close(end = 'TENURE_END_RELEASED', timeoutMs = 10000) {
    if (this.ended || !this.stream) return this.ended;
    const ended = new Promise((resolve) => this.once('ended', resolve));
    this.stream.write({ close: { end } });
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    this.#detach();
    return this.ended;
  }

  /** Drops the stream without a Close, as a broken connection would. */
  abandon() {
    this.#detach();
  }

  #attach(client, first) {
    this.stream = client.Attach();
    this.seq = 0;
    this.sends.clear();
    const stream = this.stream;
    stream.on('data', (response) => this.#onResponse(stream, response));
    stream.on('error', (err) => this.#onBroken(stream, err));
    stream.on('end', () => this.#onBroken(stream, new Error('stream ended by the node')));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      stream.write(first);
    });
  }

  #confirmed(opened, sentAt) {
    this.attachment = opened.attachment;
    this.#proved(sentAt);
    this.#scheduleKeepalive();
  }

  #onResponse(stream, response) {
    if (stream !== this.stream) return; // a stream the session left proves nothing
    const message = response[response.kind];
    switch (response.kind) {
      case 'opened':
        this.#settle(null, message);
        break;
      case 'ack': {
        const sentAt = this.sends.get(Number(message.seq));
        for (const seq of this.sends.keys()) if (seq <= Number(message.seq)) this.sends.delete(seq);
        if (sentAt !== undefined) {
          this.keepalivesAcked += 1;
          this.#proved(sentAt);
        }
        break;
      }
      case 'echoed':
        break; // this client renews often enough that it sends no echoes
      case 'lease_ended':
        this.emit('leaseEnded', message);
        break;
      case 'superseded':
        this.#settle(new Error(`resume superseded: the session is on attachment ${message.attachment}`));
        break;
      case 'session_ended':
        this.ended = message;
        this.#declareLost(`session ended ${message.end}: ${message.message}`);
        this.#settle(new Error(`session ended ${message.end}: ${message.message}`));
        this.emit('ended', message);
        break;
      default:
        break;
    }
  }

  #onBroken(stream, err) {
    if (stream !== this.stream) return;
    this.stopKeepalives();
    this.#settle(err);
    // Not lost yet: the node keeps the session for its grace (or its TTL); a resume may save it.
    this.emit('broken', err);
  }

  #settle(err, value) {
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    if (err) pending.reject(err);
    else pending.resolve(value);
  }

  /** A renewal sent at sentAt was committed: the cluster held the session at some instant after it. */
  #proved(sentAt) {
    this.answeredSendMs = Math.max(this.answeredSendMs, sentAt);
    if (sentAt > this.ackedSendMs) {
      this.ackedSendMs = sentAt;
      clearTimeout(this.lossTimer);
      this.lossTimer = setTimeout(() => this.#checkHorizon(), Math.max(0, this.horizon() - now()));
      this.lossTimer.unref();
    }
  }

  #checkHorizon() {
    if (now() >= this.horizon()) this.#declareLost('horizon passed');
  }

  #declareLost(reason) {
    if (this.lost) return;
    this.lost = reason;
    this.lostAt = now();
    clearTimeout(this.lossTimer);
    this.emit('lost', reason);
    if (this.closeOnLoss && !this.ended && this.stream) {
      // Tells the next holder that this one stopped without releasing cleanly.
      this.stream.write({ close: { end: 'TENURE_END_EXPIRED' } });
    }
  }

  #scheduleKeepalive() {
    clearTimeout(this.keepaliveTimer);
    const intervalMs = this.graceMs > 0 ? Math.min(this.ttlMs, this.graceMs) / 3 : this.ttlMs / 3;
    const tick = () => {
      if (!this.stream || this.ended) return;
      this.seq += 1;
      this.sends.set(this.seq, now());
      this.keepalivesSent += 1;
      this.stream.write({ keep_alive: { seq: this.seq } });
      this.keepaliveTimer = setTimeout(tick, intervalMs);
    };
    this.keepaliveTimer = setTimeout(tick, intervalMs);
  }

  #detach() {
    this.stopKeepalives();
    const stream = this.stream;
    this.stream = null;
    if (stream) {
      stream.removeAllListeners('data');
      stream.on('error', () => {}); // its cancellation is expected now
      stream.cancel();
    }
  }
}

module.exports = { Session, now, driftMarginMs };
