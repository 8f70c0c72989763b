# Baseline: what a Python client does at minimum per message: spawn the server, readline, json.loads.
# Usage: python3 drain.py <lines> <command...>; prints "RESULT count=<n> nanos=<first line to last line>".
import json
import subprocess
import sys
import time

n = int(sys.argv[1])
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
count = 0
chars = 0
first = 0
for line in child.stdout:
    if count == 0:
        first = time.perf_counter_ns()
    message = json.loads(line)
    params = message.get("params")
    if isinstance(params, dict) and isinstance(params.get("delta"), str):
        chars += len(params["delta"])
    count += 1
    if count == n:
        break
nanos = time.perf_counter_ns() - first
print(f"RESULT count={count} nanos={nanos} chars={chars}", flush=True)
child.stdin.close()
child.kill()
