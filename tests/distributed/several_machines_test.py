#!/usr/bin/env python3
"""The digits MLP trained over several machines, rehearsed on one (tools/netns-cluster).

Two network namespaces stand for two machines: each has only its loopback and
one veth into a bridge, so a rank reaches the other machine's ranks only by
TCP over the bridge (btl tcp,self: no shared memory), and mpirun starts them
through the cluster's launcher agent where it would use ssh, with the host file
and the mpirun line of docs/guide/distributed.md's "Launching". On 2 machines
x 1 rank and 2 machines x 2 ranks, in 12 micro-batches:

- every rank runs inside a namespace: its host name is that machine's and its
  network that machine's loopback and address alone (each rank prints them,
  then execs the program, so the process that trains is the one that
  printed), and each machine runs as many ranks as its slots;
- every rank ends with the bits (the digest) of one process without MPI
  (--alone);
- the training's traffic crosses the bridge: on 1 rank a machine, each
  machine's veth sent at least what its rank reports sending per step, times
  the steps (on 2 a machine, half of that).

Without the rights to make network namespaces (root, or CAP_NET_ADMIN and
CAP_SYS_ADMIN) or without iproute2's `ip`, it prints why and exits 77, which
CTest reports as skipped.

Usage: several_machines_test.py --mpirun PATH --program PATH --cluster PATH
"""

import argparse
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from training_test import RESULT

ARGUMENTS = None
CLUSTER = None
# CTest's SKIP_RETURN_CODE for this test.
SKIPPED = 77
MICRO = ("--micro-batches", "12")
MACHINES = 2
WHERE = re.compile(r"^where: rank (\d+): (.*)$", re.MULTILINE)
STEPS = re.compile(r"step +\d+/(\d+)")
# Each rank prints its network view, then becomes the program (same process).
SHOW_WHERE = (
    'echo "where: rank $OMPI_COMM_WORLD_RANK: host=$(hostname) '
    "$(ip -4 -o address show | awk '{print $2 \"=\" $4}' | tr '\\n' ' ')\"; "
    'exec "$0" "$@"'
)


class Cluster:
    """Namespaces PREFIX1..PREFIXn on SUBNET.0/24, made and removed by tools/netns-cluster."""

    def __init__(self, script, subnet_octet):
        self.script = script
        self.subnet = f"10.213.{subnet_octet}"
        self.prefix = f"topos-test-{os.getpid()}-{subnet_octet}-"
        self.environment = dict(
            os.environ, TOPOS_NETNS_PREFIX=self.prefix, TOPOS_NETNS_SUBNET=self.subnet
        )

    def run(self, *arguments):
        return subprocess.run(
            [self.script, *arguments],
            env=self.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
            check=False,
        )

    def up(self, machines):
        made = self.run("up", str(machines))
        if made.returncode != 0:
            raise RuntimeError(f"tools/netns-cluster up {machines} failed:\n{made.stdout}")

    def down(self):
        removed = self.run("down")
        if removed.returncode != 0:
            print(f"tools/netns-cluster down failed:\n{removed.stdout}", file=sys.stderr)

    def hostfile(self, slots):
        written = self.run("hostfile", str(slots))
        if written.returncode != 0:
            raise RuntimeError(f"tools/netns-cluster hostfile failed:\n{written.stdout}")
        return written.stdout

    def address(self, machine):
        return f"{self.subnet}.{machine + 1}"

    def sent_bytes(self, machine):
        """What machine's eth0 has sent (its veth's end in the namespace)."""
        shown = subprocess.run(
            ["ip", "-n", f"{self.prefix}{machine}", "-j", "-s", "link", "show", "dev", "eth0"],
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        return json.loads(shown.stdout)[0]["stats64"]["tx"]["bytes"]


def why_namespaces_cannot_be_made():
    """None where this process can make network namespaces, else the reason."""
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not on PATH (tools/install-deps installs iproute2)"
    if os.geteuid() != 0:
        with open("/proc/self/status", encoding="ascii") as status:
            capabilities = next(
                int(line.split()[1], 16) for line in status if line.startswith("CapEff:")
            )
        missing = [
            name
            for name, bit in (("CAP_NET_ADMIN", 12), ("CAP_SYS_ADMIN", 21))
            if not capabilities >> bit & 1
        ]
        if missing:
            return f"not root, and without {' and '.join(missing)}"
    probe = f"topos-test-{os.getpid()}-probe"
    made = subprocess.run(
        ["ip", "netns", "add", probe], stderr=subprocess.PIPE, text=True, check=False
    )
    if made.returncode != 0:
        return f"`ip netns add` fails: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], check=False)
    return None


def remove_clusters_of_dead_tests(script):
    """Namespaces a killed run of this test left (its process gone) are removed."""
    listed = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True, check=False)
    left = set()
    for line in listed.stdout.splitlines():
        match = re.match(r"^topos-test-(\d+)-(\d+)-\d+\b", line)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            left.add((match.group(1), match.group(2)))
    for pid, octet in left:
        environment = dict(
            os.environ,
            TOPOS_NETNS_PREFIX=f"topos-test-{pid}-{octet}-",
            TOPOS_NETNS_SUBNET=f"10.213.{octet}",
        )
        subprocess.run([script, "down"], env=environment, check=False)


def free_subnet_octet():
    """A third number X such that nothing here uses 10.213.X.0/24 (7 is the default cluster's)."""
    shown = subprocess.run(
        "ip -4 -o address show; ip -4 route show table all",
        shell=True,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    ).stdout
    used = {int(octet) for octet in re.findall(r"\b10\.213\.(\d+)\.", shown)}
    for offset in range(247):
        octet = 8 + (os.getpid() + offset) % 247
        if octet not in used:
            return octet
    raise RuntimeError("every 10.213.X.0/24 from X = 8 to 254 is in use")


def run_job(command, environment, timeout=300):
    """Runs mpirun; stopped early (a signal, the timeout), it ends its job before this returns."""
    with subprocess.Popen(
        command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as job:
        try:
            stdout, stderr = job.communicate(timeout=timeout)
        except BaseException:
            # mpirun passes SIGTERM on to the daemons and ranks of every machine.
            job.terminate()
            try:
                job.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                job.kill()
            raise
    return subprocess.CompletedProcess(command, job.returncode, stdout, stderr)


def stop(number, frame):
    """SIGTERM, SIGINT, SIGHUP: unittest lets KeyboardInterrupt through (SystemExit it records)."""
    raise KeyboardInterrupt(f"signal {number}")


class Outcome:
    """What one job printed: each rank's digest, bytes sent per step, and network view."""

    def __init__(self, test, ranks, finished):
        self.output = finished.stdout + finished.stderr
        test.assertEqual(finished.returncode, 0, f"{ranks} ranks failed:\n{self.output}")
        lines = RESULT.findall(finished.stdout)
        test.assertEqual(len(lines), ranks, f"one result line per rank expected:\n{self.output}")
        self.digests = {int(rank): digest for rank, _, digest, _, _ in lines}
        self.bytes_per_step = {int(rank): int(sent) for rank, _, _, _, sent in lines}
        self.where = {int(rank): view.split() for rank, view in WHERE.findall(finished.stdout)}
        steps = STEPS.findall(self.output)
        self.steps = int(steps[-1]) if steps else None


class SeveralMachines(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        alone = subprocess.run(
            [ARGUMENTS.program, *MICRO, "--alone"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            check=False,
        )
        lines = RESULT.findall(alone.stdout)
        if alone.returncode != 0 or len(lines) != 1:
            raise RuntimeError(f"--alone failed:\n{alone.stdout}{alone.stderr}")
        cls.alone_digest = lines[0][2]

    def train(self, slots):
        ranks = MACHINES * slots
        with tempfile.TemporaryDirectory() as folder:
            hosts = os.path.join(folder, "hosts")
            with open(hosts, "w", encoding="ascii") as hostfile:
                hostfile.write(CLUSTER.hostfile(slots))
            before = [CLUSTER.sent_bytes(machine) for machine in range(1, MACHINES + 1)]
            started = time.monotonic()
            # The mpirun line of docs/guide/distributed.md, the program behind SHOW_WHERE.
            finished = run_job(
                [
                    ARGUMENTS.mpirun, "--hostfile", hosts, "-np", str(ranks),
                    "--mca", "plm_rsh_agent", f"{CLUSTER.script} agent",
                    "--mca", "btl", "tcp,self",
                    "--mca", "btl_tcp_if_include", f"{CLUSTER.subnet}.0/24",
                    "--mca", "oob_tcp_if_include", f"{CLUSTER.subnet}.0/24",
                    "-x", "TOPOS_THREADS=1",
                    "sh", "-c", SHOW_WHERE, ARGUMENTS.program, *MICRO,
                ],
                CLUSTER.environment,
            )
            seconds = time.monotonic() - started
            after = [CLUSTER.sent_bytes(machine) for machine in range(1, MACHINES + 1)]
        outcome = Outcome(self, ranks, finished)
        outcome.sent = [end - start for start, end in zip(before, after)]
        outcome.seconds = seconds
        return outcome

    def check(self, slots):
        outcome = self.train(slots)
        ranks = MACHINES * slots
        # Open MPI fills each machine's slots in host file order.
        machine_of = {rank: 1 + rank // slots for rank in range(ranks)}
        self.assertEqual(sorted(outcome.where), list(range(ranks)), outcome.output)
        for rank, machine in machine_of.items():
            self.assertEqual(
                sorted(outcome.where[rank]),
                sorted([
                    f"host={CLUSTER.prefix}{machine}",
                    f"eth0={CLUSTER.address(machine)}/24",
                    "lo=127.0.0.1/8",
                ]),
                f"rank {rank} should see machine {machine}'s network alone:\n{outcome.output}",
            )
        self.assertEqual(
            set(outcome.digests.values()),
            {self.alone_digest},
            f"on {MACHINES} machines x {slots} ranks, other bits than one process's",
        )
        self.assertIsNotNone(outcome.steps, f"no progress line:\n{outcome.output}")
        for machine in range(1, MACHINES + 1):
            mine = max(sent for rank, sent in outcome.bytes_per_step.items()
                       if machine_of[rank] == machine)
            # With one rank a machine every byte a rank sends crosses the
            # bridge. With more, what crosses depends on the reduction's
            # pattern: half of one rank's bytes is a floor, thousands of times
            # what starting the job sends (a few kB).
            least = mine * outcome.steps // slots
            self.assertGreaterEqual(
                outcome.sent[machine - 1],
                least,
                f"machine {machine} sent less over the bridge than its ranks report:\n"
                f"{outcome.sent} {outcome.bytes_per_step}",
            )
        print(
            f"{MACHINES} machines x {slots} rank{'s' if slots > 1 else ''}: "
            f"digest {self.alone_digest} as alone, "
            f"{outcome.seconds:.1f} s, sent over the bridge by machine: {outcome.sent} bytes, "
            f"ranks' bytes per step {outcome.bytes_per_step} over {outcome.steps} steps"
        )

    def test_one_rank_on_each_of_two_machines_gives_the_bits_of_one_process(self):
        self.check(1)

    def test_two_ranks_on_each_of_two_machines_give_the_bits_of_one_process(self):
        self.check(2)


def main():
    global ARGUMENTS, CLUSTER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--cluster", required=True, help="tools/netns-cluster")
    ARGUMENTS, rest = parser.parse_known_args()
    why = why_namespaces_cannot_be_made()
    if why is not None:
        print(f"skipped: cannot make network namespaces: {why}")
        sys.exit(SKIPPED)
    script = os.path.abspath(ARGUMENTS.cluster)
    remove_clusters_of_dead_tests(script)
    CLUSTER = Cluster(script, free_subnet_octet())
    # Removed however this ends: normally, by an exception, or by a signal
    # (SIGKILL, as CTest's timeout sends, leaves it to the next run's clean-up).
    atexit.register(CLUSTER.down)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, stop)
    CLUSTER.up(MACHINES)
    print(f"cluster: namespaces {CLUSTER.prefix}1..{MACHINES} on {CLUSTER.subnet}.0/24")
    try:
        unittest.main(argv=[sys.argv[0], "-v", *rest])
    except KeyboardInterrupt as stopped:
        print(f"stopped by {stopped}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
