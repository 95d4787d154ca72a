#!/usr/bin/env python3
"""The digits MLP trained data-parallel (examples/distributed_digits.cpp) under mpirun.

- On 1, 2 and 4 ranks, twice each: every rank ends with the same parameters
  (the same digest), a rerun with as many ranks gives those bits again, and the
  test accuracies differ by one digit of 297 at most.
- A rank killed mid-training, or one that throws, stops the job within 30 s;
  the last checkpoint is intact, and training resumes from it on as many ranks
  (giving the uninterrupted run's bits) or on another number of ranks.
- In 12 micro-batches (--micro-batches 12): one process without MPI and 1, 2,
  3, 4 and 8 ranks end with the same bits, and a checkpoint written on 4 ranks
  resumes on 2 and on 1 with the bits of the uninterrupted run.

Usage: training_test.py --mpirun PATH --program PATH
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

ARGUMENTS = None
RESULT = re.compile(
    r"^rank (\d+) of (\d+)(?: without MPI)?: digest ([0-9a-f]{16}), test accuracy (\d+)/297, "
    r"(\d+) bytes sent per step$",
    re.MULTILINE,
)
# A job with a failed rank must end within this many seconds.
STOP_WITHIN = 30


def launch(ranks, *arguments, fault=None, timeout=300):
    """mpirun with `ranks` ranks; ranks None runs the program alone, without mpirun."""
    environment = dict(os.environ)
    environment.pop("TOPOS_FAULT", None)
    if fault is not None:
        environment["TOPOS_FAULT"] = fault
    started = time.monotonic()
    launcher = [] if ranks is None else [ARGUMENTS.mpirun, "-np", str(ranks)]
    finished = subprocess.run(
        [*launcher, ARGUMENTS.program, *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
        check=False,
    )
    return finished, time.monotonic() - started


class Outcome:
    """What every rank of one finished job printed."""

    def __init__(self, test, ranks, finished):
        self.output = finished.stdout + finished.stderr
        test.assertEqual(finished.returncode, 0, f"{ranks} ranks failed:\n{self.output}")
        lines = RESULT.findall(finished.stdout)
        test.assertEqual(len(lines), ranks or 1, f"one result line per rank expected:\n{self.output}")
        self.digests = {int(rank): digest for rank, _, digest, _, _ in lines}
        self.accuracies = {int(rank): int(correct) for rank, _, _, correct, _ in lines}
        self.bytes_per_step = {int(rank): int(sent) for rank, _, _, _, sent in lines}
        test.assertEqual(
            len(set(self.digests.values())),
            1,
            f"the ranks of one job hold different parameters: {self.digests}",
        )
        test.assertEqual(len(set(self.accuracies.values())), 1)

    @property
    def digest(self):
        return next(iter(self.digests.values()))

    @property
    def accuracy(self):
        return next(iter(self.accuracies.values()))


class Training(unittest.TestCase):
    def train(self, ranks, *arguments):
        finished, _ = launch(ranks, *arguments)
        return Outcome(self, ranks, finished)

    def test_ranks_agree_reruns_repeat_and_rank_counts_reach_the_same_accuracy(self):
        accuracies = {}
        for ranks in (1, 2, 4):
            first = self.train(ranks)
            again = self.train(ranks)
            self.assertEqual(
                first.digest, again.digest, f"two runs on {ranks} ranks ended with other bits"
            )
            accuracies[ranks] = first.accuracy
            if ranks == 1:
                self.assertEqual(first.bytes_per_step[0], 0)
            else:
                self.assertTrue(all(sent > 0 for sent in first.bytes_per_step.values()))
        print(f"test accuracy out of 297 by ranks: {accuracies}")
        self.assertLessEqual(max(accuracies.values()) - min(accuracies.values()), 1, accuracies)
        self.assertGreaterEqual(min(accuracies.values()), 265, accuracies)

    def stopped_job(self, ranks, fault, checkpoint, *arguments):
        finished, seconds = launch(ranks, "--checkpoint", checkpoint, *arguments, fault=fault)
        output = finished.stdout + finished.stderr
        self.assertNotEqual(finished.returncode, 0, f"the job went on after {fault}:\n{output}")
        self.assertLess(seconds, STOP_WITHIN, f"the job took {seconds:.1f} s to stop:\n{output}")
        self.assertNotIn("test accuracy", finished.stdout, output)
        print(f"{fault}: the job stopped in {seconds:.1f} s with exit status {finished.returncode}")
        return output

    def test_a_killed_rank_stops_the_job_and_training_resumes_from_the_checkpoint(self):
        with tempfile.TemporaryDirectory() as folder:
            checkpoint = os.path.join(folder, "digits.safetensors")
            self.stopped_job(4, "2:60:kill", checkpoint)
            self.assertTrue(os.path.isfile(checkpoint), "no checkpoint was left")
            leftovers = [name for name in os.listdir(folder) if name != "digits.safetensors"]
            self.assertEqual(leftovers, [], "a save left files beside the checkpoint")
            with open(checkpoint, "rb") as last_good:
                saved = last_good.read()
            uninterrupted = self.train(4, "--checkpoint", os.path.join(folder, "whole.safetensors"))
            os.remove(os.path.join(folder, "whole.safetensors"))
            resumed = self.train(4, "--checkpoint", checkpoint, "--resume")
            self.assertIn("resumed at step 50", resumed.output)
            self.assertEqual(
                resumed.digest,
                uninterrupted.digest,
                "resuming on as many ranks must give the uninterrupted run's bits",
            )
            with open(checkpoint, "wb") as rewound:
                rewound.write(saved)
            elsewhere = self.train(2, "--checkpoint", checkpoint, "--resume")
            self.assertIn("resumed at step 50", elsewhere.output)
            self.assertLessEqual(abs(elsewhere.accuracy - uninterrupted.accuracy), 3)

    def test_micro_batches_give_the_same_bits_alone_and_on_any_number_of_ranks(self):
        micro = ("--micro-batches", "12")
        alone = self.train(None, *micro, "--alone")
        self.assertIn("without MPI", alone.output)
        for ranks in (1, 2, 3, 4, 8):
            shared = self.train(ranks, *micro)
            self.assertEqual(
                shared.digest, alone.digest, f"{ranks} ranks ended with other bits than one process"
            )
        print(f"12 micro-batches: digest {alone.digest} alone and on 1, 2, 3, 4 and 8 ranks, "
              f"test accuracy {alone.accuracy}/297")

    def test_a_checkpoint_of_micro_batches_resumes_on_fewer_ranks_with_the_same_bits(self):
        micro = ("--micro-batches", "12")
        with tempfile.TemporaryDirectory() as folder:
            checkpoint = os.path.join(folder, "digits.safetensors")
            self.stopped_job(4, "3:60:kill", checkpoint, *micro)
            with open(checkpoint, "rb") as last_good:
                saved = last_good.read()
            uninterrupted = self.train(None, *micro, "--alone")
            for ranks in (2, 1):
                with open(checkpoint, "wb") as rewound:
                    rewound.write(saved)
                resumed = self.train(ranks, "--checkpoint", checkpoint, "--resume", *micro)
                self.assertIn("resumed at step 50", resumed.output)
                self.assertEqual(
                    resumed.digest,
                    uninterrupted.digest,
                    f"resumed on {ranks} ranks, a run of 4 must give the uninterrupted run's bits",
                )

    def test_an_exception_on_one_rank_stops_the_job_with_its_message(self):
        with tempfile.TemporaryDirectory() as folder:
            output = self.stopped_job(
                2, "1:30:throw", os.path.join(folder, "digits.safetensors")
            )
            self.assertIn("rank 1 stops the job", output)
            self.assertIn("TOPOS_FAULT", output)


def main():
    global ARGUMENTS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--program", required=True)
    ARGUMENTS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    main()
