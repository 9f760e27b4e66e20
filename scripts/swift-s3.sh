#!/usr/bin/env bash
# Real S3 endpoint for tests and CI: Debian's OpenStack Swift + s3api on loopback.
#
#   scripts/swift-s3.sh            install if missing, configure, start (idempotent), print env
#   scripts/swift-s3.sh --env      same, but stdout carries only the S3_* env lines (progress on stderr)
#   scripts/swift-s3.sh status     exit 0 if S3 answers, 1 otherwise
#   scripts/swift-s3.sh stop       stop all Swift processes started by this script
#   scripts/swift-s3.sh purge      stop and delete all state (rings, configs, objects, logs)
#
# Needs root (apt-get, binds loopback ports). No systemd: servers run as background processes
# with pid files. Everything lives under $LODE_SWIFT_HOME (default /var/lib/lode-swift); the one
# file outside it is /etc/swift/swift.conf, which Swift always reads (written only if missing).
#
# Environment knobs: LODE_SWIFT_HOME, LODE_SWIFT_PORT (proxy, default 8070; the object,
# container and account servers use PORT+1, +2, +3), LODE_SWIFT_TIMEOUT (seconds, default 60).
set -euo pipefail

HOME_DIR=${LODE_SWIFT_HOME:-/var/lib/lode-swift}
PORT=${LODE_SWIFT_PORT:-8070}
TIMEOUT=${LODE_SWIFT_TIMEOUT:-60}
OBJ_PORT=$((PORT + 1))
CONT_PORT=$((PORT + 2))
ACC_PORT=$((PORT + 3))
ETC=$HOME_DIR/etc
RUN=$HOME_DIR/run
DEVICES=$HOME_DIR/devices
LOG=$HOME_DIR/swift.log
PY=/usr/bin/python3            # Swift's own interpreter (not a pyenv/venv python from PATH)
SERVERS=(object container account proxy)
ACCESS_KEY='test:tester'
SECRET_KEY='testing'
REGION='us-east-1'

ENV_ONLY=0
CMD=start
for arg in "$@"; do
  case $arg in
    --env) ENV_ONLY=1 ;;
    start | stop | status | purge) CMD=$arg ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "swift-s3: unknown argument: $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { echo "swift-s3: $*" >&2; }
die() { echo "swift-s3: ERROR: $*" >&2; exit 1; }

print_env() {
  cat <<EOF
S3_ENDPOINT=http://127.0.0.1:$PORT
S3_REGION=$REGION
S3_ACCESS_KEY_ID=$ACCESS_KEY
S3_SECRET_ACCESS_KEY=$SECRET_KEY
S3_FORCE_PATH_STYLE=true
EOF
}

port_of() {
  case $1 in object) echo "$OBJ_PORT" ;; container) echo "$CONT_PORT" ;; account) echo "$ACC_PORT" ;; proxy) echo "$PORT" ;; esac
}

# pid of a running server started by us, or nothing.
server_pid() {
  local pidfile=$RUN/$1.pid pid
  [[ -f $pidfile ]] || return 0
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 0
  [[ $cmd == *"$ETC/$1-server.conf"* ]] && echo "$pid"
  return 0
}

# Signed ListBuckets (SigV2) against the proxy plus /healthcheck on each backend.
# Prints the reason on failure. Exit 0 only when S3 answers 200 ListAllMyBucketsResult.
probe() {
  "$PY" - "$PORT" "$OBJ_PORT" "$CONT_PORT" "$ACC_PORT" "$ACCESS_KEY" "$SECRET_KEY" <<'PYEOF'
import base64, email.utils, hashlib, hmac, sys, urllib.request, urllib.error
port, obj, cont, acc, ak, sk = sys.argv[1:7]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def get(url, headers=None):
    try:
        r = opener.open(urllib.request.Request(url, headers=headers or {}), timeout=3)
        return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except Exception as e:  # refused, reset, timeout
        return None, str(e).encode()
for name, p in (("object", obj), ("container", cont), ("account", acc)):
    st, body = get("http://127.0.0.1:%s/healthcheck" % p)
    if st != 200:
        print("%s server on :%s not healthy: %s %s" % (name, p, st, body[:200]))
        sys.exit(1)
date = email.utils.formatdate(usegmt=True)
sig = base64.b64encode(hmac.new(sk.encode(), ("GET\n\n\n%s\n/" % date).encode(), hashlib.sha1).digest()).decode()
st, body = get("http://127.0.0.1:%s/" % port, {"Date": date, "Authorization": "AWS %s:%s" % (ak, sig)})
if st == 200 and b"ListAllMyBucketsResult" in body:
    sys.exit(0)
print("S3 ListBuckets on :%s -> %s %s" % (port, st, body[:300]))
sys.exit(1)
PYEOF
}

# SIGTERM makes each server drain before it exits: signal all first, then wait for all, then SIGKILL.
stop_servers() {
  local s pid pids=() names=()
  for s in "$@"; do
    pid=$(server_pid "$s")
    if [[ -n $pid ]]; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid"); names+=("$s")
    fi
  done
  local i
  for _ in $(seq 100); do
    for i in "${!pids[@]}"; do kill -0 "${pids[$i]}" 2>/dev/null || unset 'pids[i]'; done
    ((${#pids[@]} == 0)) && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for s in "$@"; do rm -f "$RUN/$s.pid"; done
  ((${#names[@]} == 0)) || say "stopped ${names[*]}"
  return 0
}

stop_all() { stop_servers proxy object container account; }

# Write $2 to $1 only when it differs; return 0 when the file changed.
write_if_changed() {
  if [[ -f $1 ]] && [[ "$(<"$1")" == "$2" ]]; then return 1; fi
  printf '%s\n' "$2" >"$1"
  return 0
}

install_packages() {
  local missing=() p
  for p in swift-proxy swift-object swift-container swift-account; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  say "installing ${missing[*]} (apt-get, ~1 min)"
  # Debian's postinst would try to start the packaged services; forbid that if nothing else does.
  local policy_added=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  local rc=0
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swift-proxy swift-object swift-container swift-account; } \
    >>"$HOME_DIR/apt.log" 2>&1 || rc=$?
  if ((policy_added)); then rm -f /usr/sbin/policy-rc.d; trap - EXIT; fi
  ((rc == 0)) || { tail -n 30 "$HOME_DIR/apt.log" >&2; die "apt-get install failed (log: $HOME_DIR/apt.log)"; }
}

# Slow (it imports Swift), so it runs again only when the installed packages change.
check_deps() {
  local b stamp
  stamp=$(dpkg-query -W -f='${Package}=${Version} ' python3-swift python3-eventlet python3-greenlet \
    python3-lxml python3-xattr python3-pastedeploy python3-cryptography 2>/dev/null || true)
  [[ -f $RUN/deps.ok && "$(<"$RUN/deps.ok")" == "$stamp" ]] && return 0
  for b in swift-ring-builder swift-proxy-server swift-object-server swift-container-server swift-account-server; do
    [[ -x /usr/bin/$b ]] || die "/usr/bin/$b missing (is the swift-* package set installed?)"
  done
  [[ -x $PY ]] || die "$PY missing"
  "$PY" -c '
import eventlet, greenlet, lxml.etree, xattr, paste.deploy, sqlite3, cryptography
import swift.proxy.server, swift.obj.server, swift.container.server, swift.account.server
import swift.common.middleware.s3api.s3api, swift.common.middleware.tempauth
import swift.common.middleware.memcache, swift.common.middleware.healthcheck
' 2>"$RUN/deps.err" || { cat "$RUN/deps.err" >&2; die "Swift python dependencies are incomplete"; }
  # Swift keeps object metadata in user xattrs: fail early and clearly if the filesystem cannot.
  "$PY" -c '
import sys, xattr
f = sys.argv[1]
open(f, "w").close()
xattr.setxattr(f, "user.swift.probe", b"1")
assert xattr.getxattr(f, "user.swift.probe") == b"1"
' "$DEVICES/.xattr-probe" 2>"$RUN/deps.err" ||
    { cat "$RUN/deps.err" >&2; die "filesystem under $DEVICES does not support user xattrs"; }
  rm -f "$DEVICES/.xattr-probe"
  echo "$stamp" >"$RUN/deps.ok"
}

write_configs() {
  local changed=() common
  common="bind_ip = 127.0.0.1
workers = 0
user = root
swift_dir = $ETC
devices = $DEVICES
mount_check = false
log_level = INFO"
  write_if_changed "$ETC/object-server.conf" "[DEFAULT]
$common
bind_port = $OBJ_PORT
disable_fallocate = true

[pipeline:main]
pipeline = healthcheck object-server

[app:object-server]
use = egg:swift#object

[filter:healthcheck]
use = egg:swift#healthcheck" && changed+=(object)
  write_if_changed "$ETC/container-server.conf" "[DEFAULT]
$common
bind_port = $CONT_PORT
disable_fallocate = true

[pipeline:main]
pipeline = healthcheck container-server

[app:container-server]
use = egg:swift#container

[filter:healthcheck]
use = egg:swift#healthcheck" && changed+=(container)
  write_if_changed "$ETC/account-server.conf" "[DEFAULT]
$common
bind_port = $ACC_PORT
disable_fallocate = true

[pipeline:main]
pipeline = healthcheck account-server

[app:account-server]
use = egg:swift#account

[filter:healthcheck]
use = egg:swift#healthcheck" && changed+=(account)
  # No memcached runs here: the cache middleware still provides a client (tempauth requires
  # one); its connection errors are swallowed, so requests work without memcached.
  write_if_changed "$ETC/proxy-server.conf" "[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $PORT
workers = 0
user = root
swift_dir = $ETC
log_level = INFO

[pipeline:main]
pipeline = catch_errors proxy-logging cache s3api tempauth slo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:11211
# silences the per-request memcached connection errors (no memcached runs here)
log_level = CRITICAL

# slo: s3api needs it for multipart uploads (CreateMultipartUpload/UploadPart/Complete).
[filter:slo]
use = egg:swift#slo

[filter:s3api]
use = egg:swift#s3api
location = $REGION

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $SECRET_KEY .admin" && changed+=(proxy)
  CHANGED_SERVERS=("${changed[@]}")
}

rings_current() {
  [[ -f $ETC/rings.stamp && "$(<"$ETC/rings.stamp")" == "ports $OBJ_PORT $CONT_PORT $ACC_PORT" ]] &&
    [[ -f $ETC/object.ring.gz && -f $ETC/container.ring.gz && -f $ETC/account.ring.gz ]]
}

build_rings() {
  rings_current && return 0
  say "building single-replica rings"
  # Same as, per ring: swift-ring-builder X.builder create 10 1 1;
  #   swift-ring-builder X.builder add r1z1-127.0.0.1:PORT/d1 1; swift-ring-builder X.builder rebalance
  # but in one python process (each swift-ring-builder call imports Swift anew).
  rm -rf "$ETC/backups" "$ETC"/*.builder "$ETC"/*.ring.gz
  "$PY" - "$ETC" "$OBJ_PORT" "$CONT_PORT" "$ACC_PORT" >>"$LOG" 2>&1 <<'PYEOF' ||
import os, sys
from swift.common.ring import RingBuilder
etc = sys.argv[1]
for kind, port in zip(("object", "container", "account"), sys.argv[2:5]):
    b = RingBuilder(10, 1, 1)
    b.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port), "device": "d1", "weight": 1})
    b.rebalance()
    b.save(os.path.join(etc, kind + ".builder"))
    b.get_ring().save(os.path.join(etc, kind + ".ring.gz"))
    print("ring %s: 127.0.0.1:%s/d1, %d partitions" % (kind, port, b.parts))
PYEOF
    { tail -n 20 "$LOG" >&2; die "ring build failed"; }
  echo "ports $OBJ_PORT $CONT_PORT $ACC_PORT" >"$ETC/rings.stamp"
  RINGS_REBUILT=1
}

start_server() {
  local s=$1
  rm -f "$RUN/$s.pid"
  # The child writes its own pid right before exec'ing the server, so the pid file is right even
  # if setsid has to fork (it does when it is started as a process-group leader).
  # shellcheck disable=SC2016 # expands in the child
  env -u PYTHONPATH -u PYTHONHOME -u PYTHONSTARTUP setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' \
    swift-launch "$RUN/$s.pid" "/usr/bin/swift-$s-server" "$ETC/$s-server.conf" --verbose \
    </dev/null >>"$LOG" 2>&1 9>&- &
  for _ in $(seq 50); do [[ -s $RUN/$s.pid ]] && break; sleep 0.02; done
  say "started $s-server on 127.0.0.1:$(port_of "$s") (pid $(cat "$RUN/$s.pid" 2>/dev/null))"
}

tail_log_and_die() {
  echo "---- last 40 lines of $LOG ----" >&2
  tail -n 40 "$LOG" >&2 || true
  die "$*"
}

# Serialises concurrent invocations (parallel CI jobs); servers get fd 9 closed.
take_lock() {
  mkdir -p "$HOME_DIR" "$ETC" "$RUN" "$DEVICES/d1"
  exec 9>"$HOME_DIR/lock"
  flock -w "$TIMEOUT" 9 || die "another swift-s3.sh holds $HOME_DIR/lock"
}

start_all() {
  take_lock

  CHANGED_SERVERS=()
  RINGS_REBUILT=0
  write_configs
  local s all_up=1
  for s in "${SERVERS[@]}"; do [[ -n $(server_pid "$s") ]] || all_up=0; done
  if ((all_up && ${#CHANGED_SERVERS[@]} == 0)) && rings_current && probe >/dev/null 2>&1; then
    say "already running on http://127.0.0.1:$PORT"
    return 0
  fi

  install_packages
  check_deps
  if [[ ! -s /etc/swift/swift.conf ]] || ! grep -Eq '^[[:space:]]*swift_hash_path_(suffix|prefix)[[:space:]]*=[[:space:]]*[^[:space:]]' /etc/swift/swift.conf; then
    mkdir -p /etc/swift
    printf '[swift-hash]\nswift_hash_path_suffix = lode-test\nswift_hash_path_prefix = lode-test\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n' >/etc/swift/swift.conf
    say "wrote /etc/swift/swift.conf"
  fi
  build_rings

  # Restart servers whose config changed (or all, after a ring rebuild); start dead ones.
  local restart=("${CHANGED_SERVERS[@]}")
  ((RINGS_REBUILT)) && restart=("${SERVERS[@]}")
  ((${#restart[@]} == 0)) || stop_servers "${restart[@]}"
  local port
  for s in "${SERVERS[@]}"; do
    [[ -z $(server_pid "$s") ]] || continue
    port=$(port_of "$s")
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "127.0.0.1:$port ($s-server) is already taken by another process; set LODE_SWIFT_PORT (see: ss -ltnp)"
    fi
  done
  for s in "${SERVERS[@]}"; do
    [[ -n $(server_pid "$s") ]] || start_server "$s"
  done

  local deadline=$((SECONDS + TIMEOUT)) why=""
  while :; do
    for s in "${SERVERS[@]}"; do
      [[ -n $(server_pid "$s") ]] || tail_log_and_die "$s-server exited during startup"
    done
    if why=$(probe 2>&1); then break; fi
    ((SECONDS < deadline)) || tail_log_and_die "S3 not answering after ${TIMEOUT}s: $why"
    sleep 0.2
  done
  say "S3 (Swift s3api) ready on http://127.0.0.1:$PORT (log: $LOG)"
}

[[ $(id -u) == 0 ]] || die "run as root (apt-get and server processes)"

case $CMD in
  start)
    if ((ENV_ONLY)); then
      start_all
      print_env
    else
      start_all
      echo "# S3 env for tests:"
      print_env
    fi
    ;;
  status)
    mkdir -p "$RUN"
    for s in "${SERVERS[@]}"; do
      pid=$(server_pid "$s")
      if [[ -n $pid ]]; then echo "$s-server: running (pid $pid)"; else echo "$s-server: not running"; fi
    done
    if why=$(probe 2>&1); then echo "S3 answering on http://127.0.0.1:$PORT"; else echo "S3 not answering: $why"; exit 1; fi
    ;;
  stop)
    take_lock
    stop_all
    ;;
  purge)
    take_lock
    stop_all
    rm -rf "$HOME_DIR"
    say "removed $HOME_DIR"
    ;;
esac
