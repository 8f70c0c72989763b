// Baseline: what a Node client does at minimum per message: spawn the server, readline, JSON.parse.
// Usage: node drain.js <lines> <command...>; prints "RESULT count=<n> nanos=<first line to last line>".
'use strict';
const { spawn } = require('child_process');
const readline = require('readline');

const n = Number(process.argv[2]);
const command = process.argv.slice(3);
const child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
let count = 0;
let chars = 0;
let first = 0n;
lines.on('line', (line) => {
  if (count === 0) {
    first = process.hrtime.bigint();
  }
  const message = JSON.parse(line);
  if (message.params && typeof message.params.delta === 'string') {
    chars += message.params.delta.length;
  }
  count++;
  if (count === n) {
    const nanos = process.hrtime.bigint() - first;
    console.log(`RESULT count=${count} nanos=${nanos} chars=${chars}`);
    lines.close();
    child.stdin.end();
    child.kill();
  }
});
