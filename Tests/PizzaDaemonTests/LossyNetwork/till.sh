#!/usr/bin/env bash
# One till on a lossy network: orders COUNT orders, each with its own Idempotency-Key, retrying each with the same
# key (a short timeout, as a till on Wi-Fi has) until it gets the order back. Run inside the till's network namespace.
#   till.sh DEVICE TOKEN URL CACERT COUNT
set -u
device=$1 token=$2 url=$3 cacert=$4 count=$5
for i in $(seq 1 "$count"); do
  key="$device-order-$i"
  body="{\"customer\":\"$device order $i\",\"items\":[{\"kind\":\"cheese\"}],\"place\":true}"
  for attempt in $(seq 1 200); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --connect-timeout 1 --max-time 2 --cacert "$cacert" \
      -H "Authorization: Bearer $token" -H "Idempotency-Key: $key" -H 'Content-Type: application/json' \
      --data "$body" "$url/v1/orders")
    if [ "$code" = 201 ]; then
      echo "$key $attempt"
      break
    fi
    if [ "$attempt" = 200 ]; then
      echo "$key gave up" >&2
      exit 1
    fi
    sleep 0.1
  done
done
