#!/usr/bin/env node
'use strict';
// Runs every conformance scenario against one real node and prints one line per scenario:
//   node conformance/run.js --endpoint HOST:PORT [--json]
// With --json each line is {"scenario":NAME,"ok":true|false,...figures} (or "error" when not
// ok). Exits 0 only if every scenario passed, 1 if one failed, 2 on bad arguments.

const { connect } = require('./lib/rpc');

const SCENARIOS = [
  ['walkthrough', require('./scenarios/walkthrough')],
  ['request-id-retry', require('./scenarios/retry')],
  ['crash-takeover', require('./scenarios/takeover')],
  ['stale-token', require('./scenarios/stale-token')],
  ['owner-bound-release', require('./scenarios/release')],
  ['horizon', require('./scenarios/horizon')],
  ['resume', require('./scenarios/resume')],
];
const SCENARIO_TIMEOUT_MS = 60000;

function usage(problem) {
  process.stderr.write(`run.js: ${problem}\nusage: node conformance/run.js --endpoint HOST:PORT [--json]\n`);
  process.exit(2);
}

function parse(argv) {
  const options = { json: false, endpoint: null };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--json') options.json = true;
    else if (argv[i] === '--endpoint' && i + 1 < argv.length) options.endpoint = argv[++i];
    else if (argv[i].startsWith('--endpoint=')) options.endpoint = argv[i].slice('--endpoint='.length);
    else usage(`unknown argument ${argv[i]}`);
  }
  if (!options.endpoint || !/^[^\s:]+:\d{1,5}$/.test(options.endpoint)) usage('--endpoint HOST:PORT is required');
  return options;
}

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function print(options, line) {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const { scenario, ok, ...rest } = line;
  process.stdout.write(`${ok ? 'pass' : 'FAIL'} ${scenario} ${JSON.stringify(rest)}\n`);
}

async function main() {
  const options = parse(process.argv.slice(2));
  const client = connect(options.endpoint);
  // Names of this run only, so that runs against the same node never meet each other's locks.
  const context = { endpoint: options.endpoint, client, prefix: `conformance/${Date.now()}-${process.pid}/` };
  let failed = 0;
  for (const [name, scenario] of SCENARIOS) {
    const started = Date.now();
    let line;
    try {
      const figures = await withTimeout(scenario(context), SCENARIO_TIMEOUT_MS);
      line = { scenario: name, ok: true, ...figures, elapsed_ms: Date.now() - started };
    } catch (err) {
      failed += 1;
      line = { scenario: name, ok: false, error: err.message, elapsed_ms: Date.now() - started };
    }
    print(options, line);
  }
  client.close();
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`run.js: ${err.stack || err}\n`);
  process.exit(1);
});
