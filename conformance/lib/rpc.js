'use strict';
// The wire: tenure.v1.Tenure loaded from the repository's .proto at run time, and unary calls
// with the retry rule of docs/protocol.md section 3 (retry UNAVAILABLE and DEADLINE_EXCEEDED with
// the same request, never anything else).

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.resolve(__dirname, '../../api/src/main/proto/tenure/v1/tenure.proto');

// Field names as the .proto spells them (snake_case), enums by name, absent scalars as their
// defaults (absent messages as null), int64 as decimal strings so that no token loses precision.
const definition = protoLoader.loadSync(PROTO, {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const Tenure = grpc.loadPackageDefinition(definition).tenure.v1.Tenure;

/** A client of one node, plaintext (a node without a certificate serves plaintext only). */
function connect(endpoint) {
  return new Tenure(endpoint, grpc.credentials.createInsecure());
}

/** Resolves with the response, or rejects with the gRPC error (its `code` a grpc.status). */
function unary(client, method, request, deadlineMs) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + deadlineMs);
    client[method](request, { deadline }, (err, response) => {
      if (err) reject(err);
      else resolve(response);
    });
  });
}

const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);

/**
 * A call that may be retried: the same request (same request id) again after UNAVAILABLE or
 * DEADLINE_EXCEEDED, each delay drawn uniformly below a ceiling that doubles from 100 ms to 1 s,
 * until `totalMs` has passed. Any answer with a Code is the log's decision and ends the retries.
 */
async function call(client, method, request, { deadlineMs = 10000, totalMs = 30000 } = {}) {
  const start = Date.now();
  let ceilingMs = 100;
  for (;;) {
    try {
      return await unary(client, method, request, deadlineMs);
    } catch (err) {
      if (!RETRYABLE.has(err.code) || Date.now() - start + ceilingMs > totalMs) throw err;
      await sleep(Math.random() * ceilingMs);
      ceilingMs = Math.min(ceilingMs * 2, 1000);
    }
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An int64 as the loader gives it (a decimal string), as a BigInt for comparisons. */
function big(value) {
  return BigInt(value);
}

/** An int64 for a JSON report: a number while it is exact, else its decimal string. */
function num(value) {
  const b = BigInt(value);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(b) : b.toString();
}

module.exports = { connect, unary, call, sleep, big, num, grpc };
