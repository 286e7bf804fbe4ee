#!/usr/bin/env bash
# Start or stop a two-node Slurm cluster on this machine (munged, slurmctld, one slurmd per
# node in Slurm's multiple-slurmd mode; no systemd) for the integration tests.
#
#   tests/slurm/cluster.sh start STATE_DIR   install slurm-wlm + munge if missing (root),
#                                            write the configuration, start the daemons and
#                                            wait until both nodes take jobs
#   tests/slurm/cluster.sh stop STATE_DIR    stop the daemons started by `start`
#
# Exit status of `start`: 0 ready; 3 Slurm cannot be set up here (the reason is the last
# line of stderr; tests skip); anything else: the cluster failed (tests fail).
set -euo pipefail

ACTION=${1:?usage: cluster.sh start|stop STATE_DIR}
STATE=${2:?usage: cluster.sh start|stop STATE_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
CONF_DIR=/etc/slurm
MARKER="# biocompact test cluster"
READY_TIMEOUT=${SLURM_TEST_READY_TIMEOUT:-90}
D_PORT=${SLURM_TEST_D_PORT:-6818}  # the first node's slurmd; the second's is the next port

unavailable() { echo "$1" >&2; exit 3; }

install_packages() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && return
    [ "$(id -u)" = 0 ] || unavailable "Slurm is not installed and installing it needs root"
    command -v apt-get >/dev/null || unavailable "Slurm is not installed and there is no apt-get"
    export DEBIAN_FRONTEND=noninteractive
    timeout 300 apt-get install -y --no-install-recommends slurm-wlm munge >"$STATE/apt.log" 2>&1 \
        || { timeout 120 apt-get update >>"$STATE/apt.log" 2>&1 \
             && timeout 300 apt-get install -y --no-install-recommends slurm-wlm munge >>"$STATE/apt.log" 2>&1; } \
        || unavailable "apt-get install slurm-wlm munge failed (see $STATE/apt.log)"
}

render() {  # template -> file, with this machine's name, CPUs and memory
    sed -e "s|@HOST@|$HOST|g" -e "s|@STATE@|$STATE|g" -e "s|@CPUS@|$(nproc)|g" \
        -e "s|@MEM_MB@|$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))|g" \
        -e "s|@CTLD_PORT@|${SLURM_TEST_CTLD_PORT:-6817}|g" -e "s|@D_PORT@|$D_PORT|g" \
        -e "s|@D_PORT2@|$(( D_PORT + 1 ))|g" \
        "$1" | { echo "$MARKER"; cat; } >"$2"
}

wait_for() {  # wait_for SECONDS COMMAND...: poll until COMMAND succeeds
    local deadline=$(( $(date +%s) + $1 )); shift
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 1
    done
}

nodes() { echo "$HOST" "$HOST-2"; }  # the two nodes, both on this host
node_idle() { [ "$(sinfo --noheader --Node --partition twonodes --format %t | grep -cx idle)" = 2 ]; }

start() {
    [ "$(id -u)" = 0 ] || unavailable "starting slurmctld/slurmd needs root"
    HOST=$(hostname -s)
    mkdir -p "$STATE/ctld" "$STATE/d-$HOST" "$STATE/d-$HOST-2"
    touch "$STATE/gpu0" "$STATE/gpu1" "$STATE/gpu2" "$STATE/gpu3"
    install_packages
    if [ -e "$CONF_DIR/slurm.conf" ] && ! head -1 "$CONF_DIR/slurm.conf" | grep -qx "$MARKER"; then
        unavailable "$CONF_DIR/slurm.conf belongs to a real Slurm installation; not replacing it"
    fi
    mkdir -p "$CONF_DIR"
    render "$HERE/slurm.conf.in" "$CONF_DIR/slurm.conf"
    render "$HERE/gres.conf.in" "$CONF_DIR/gres.conf"

    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        [ -s /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 || create-munge-key -f >/dev/null 2>&1; }
        chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
        mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge
        runuser -u munge -- /usr/sbin/munged
        echo munged >"$STATE/started-munged"
        wait_for 20 sh -c 'munge -n | unmunge' || { echo "munged did not start" >&2; exit 1; }
    fi
    slurmctld -f "$CONF_DIR/slurm.conf"
    wait_for 30 scontrol ping || { echo "slurmctld did not start:" >&2; tail -20 "$STATE/slurmctld.log" >&2; exit 1; }
    for node in $(nodes); do slurmd -f "$CONF_DIR/slurm.conf" -N "$node"; done
    if ! wait_for "$READY_TIMEOUT" node_idle; then
        echo "nodes $(nodes) did not become idle:" >&2
        sinfo --long --Node >&2 || true
        tail -n 20 "$STATE"/slurmd-*.log >&2 || true
        exit 1
    fi
}

stop_pid() {  # stop_pid PIDFILE: TERM, then KILL after 15 s
    [ -s "$1" ] || return 0
    local pid; pid=$(cat "$1")
    kill "$pid" 2>/dev/null || return 0
    wait_for 15 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
}

stop() {
    if scancel --user root >/dev/null 2>&1; then  # let the jobs end before their slurmd does
        wait_for 60 sh -c '[ -z "$(squeue --noheader)" ]' || true
    fi
    for pidfile in "$STATE"/slurmd-*.pid; do stop_pid "$pidfile"; done
    stop_pid "$STATE/slurmctld.pid"
    if [ -e "$STATE/started-munged" ]; then stop_pid /run/munge/munged.pid; fi
    for file in slurm.conf gres.conf; do
        if [ -e "$CONF_DIR/$file" ] && head -1 "$CONF_DIR/$file" | grep -qx "$MARKER"; then rm -f "$CONF_DIR/$file"; fi
    done
}

case "$ACTION" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: cluster.sh start|stop STATE_DIR" >&2; exit 2 ;;
esac
