'use strict';
// Assertions that name what was expected and what came, so that a failed scenario's line says why.

class CheckFailed extends Error {}

function check(condition, what, seen) {
  if (!condition) {
    throw new CheckFailed(seen === undefined ? what : `${what}; got ${JSON.stringify(seen)}`);
  }
}

function equal(actual, expected, what) {
  check(String(actual) === String(expected), `${what}: expected ${expected}`, actual);
}

/** An answer decided by the log with `code`, else a failure naming the answer. */
function code(response, expected, what) {
  check(response.code === expected, `${what}: expected ${expected}`, {
    code: response.code,
    message: response.message,
  });
}

module.exports = { CheckFailed, check, equal, code };
