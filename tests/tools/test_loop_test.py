#!/usr/bin/python3
"""Tests of tools/test-loop.sh with a fake suite (TEST_LOOP_SUITE) that prints
what ctest prints, in a temp dir (ctest test_loop_test).

Run: python3 tests/tools/test_loop_test.py
"""

import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOOP = os.path.join(ROOT, "tools", "test-loop.sh")

# ctest's closing lines when two tests failed (ctest 3.25).
FAILED_TAIL = """\
98% tests passed, 2 tests failed out of 100

Total Test time (real) =  12.00 sec

The following tests FAILED:
\t 17 - openapi_responses_valid (Failed)
\t 42 - JobsIntegration.TwentyAtOnce (Timeout)
Errors while running CTest
"""
PASSED_TAIL = """\
100% tests passed, 0 tests failed out of 100

Total Test time (real) =  11.00 sec
"""

# The fake suite: run number N (counted in a file) prints the output the test
# put in outputs/N and exits with the status in statuses/N (default: passes).
# It also notes its arguments and the busy loops beside it (siblings).
FAKE_SUITE = """\
#!/bin/bash
dir=$(dirname "$0")
n=$(( $(cat "$dir/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$dir/count"
echo "$*" >"$dir/args.$n"
ps -o pid=,args= --ppid "$PPID" | grep -c 'while :; do :; done' >"$dir/hogs.$n" || true
ps -o pid= --ppid "$PPID" >"$dir/siblings.$n"
if [ -f "$dir/outputs/$n" ]; then cat "$dir/outputs/$n"; else cat "$dir/passed"; fi
exit "$(cat "$dir/statuses/$n" 2>/dev/null || echo 0)"
"""


class TestLoopTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        os.makedirs(os.path.join(self.dir, "outputs"))
        os.makedirs(os.path.join(self.dir, "statuses"))
        self.suite = os.path.join(self.dir, "suite.sh")
        with open(self.suite, "w") as f:
            f.write(FAKE_SUITE)
        os.chmod(self.suite, 0o755)
        self.write("passed", PASSED_TAIL)
        self.logs = os.path.join(self.dir, "logs")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def fail_run(self, run, output, status=8):
        self.write(f"outputs/{run}", output)
        self.write(f"statuses/{run}", f"{status}\n")

    def loop(self, *args):
        env = dict(os.environ, TEST_LOOP_SUITE=self.suite)
        return subprocess.run([LOOP, "--logs", self.logs, *args], env=env,
                              capture_output=True, text=True, timeout=60)

    def test_all_runs_pass(self):
        done = self.loop("-n", "3")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("all 3 runs passed", done.stderr)
        self.assertEqual(self.read("count").strip(), "3")
        for run in (1, 2, 3):
            with open(os.path.join(self.logs, f"run-{run}.log")) as f:
                self.assertIn("100% tests passed", f.read())
        with open(os.path.join(self.logs, "summary.txt")) as f:
            self.assertIn("all 3 runs passed", f.read())

    def test_names_each_failed_test_with_its_runs(self):
        self.fail_run(2, FAILED_TAIL)
        self.fail_run(3, FAILED_TAIL.replace("\t 42 - JobsIntegration.TwentyAtOnce (Timeout)\n", ""))
        done = self.loop("-n", "4")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(self.read("count").strip(), "4")
        self.assertIn("2 of 4 runs failed", done.stderr)
        self.assertRegex(done.stderr, r"openapi_responses_valid +2\(Failed\) 3\(Failed\)")
        self.assertRegex(done.stderr, r"JobsIntegration.TwentyAtOnce +2\(Timeout\)\s*\n")
        self.assertIn("run 2: exit 8", done.stderr)
        self.assertIn("run 4: exit 0", done.stderr)

    def test_a_failure_before_ctest_is_counted(self):
        self.fail_run(1, "ninja: build stopped: subcommand failed.\n", status=1)
        done = self.loop("-n", "2")
        self.assertEqual(done.returncode, 1)
        self.assertIn("1 of 2 runs failed", done.stderr)
        self.assertRegex(done.stderr, r"before or outside ctest: see run-1.log\) +1")

    def test_passes_ctest_arguments_to_every_run(self):
        done = self.loop("-n", "2", "--", "-L", "integration")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.read("args.1").strip(), "-L integration")
        self.assertEqual(self.read("args.2").strip(), "-L integration")

    def test_load_runs_busy_loops_beside_each_run_and_stops_them(self):
        done = self.loop("-n", "2", "--load=3")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.read("hogs.1").strip(), "3")
        self.assertEqual(self.read("hogs.2").strip(), "3")
        # Every process that ran beside the suite is gone once the loop ends.
        for run in (1, 2):
            for pid in self.read(f"siblings.{run}").split():
                self.assertFalse(os.path.exists(f"/proc/{pid}"), f"pid {pid} still runs")

    def test_without_load_nothing_runs_beside(self):
        done = self.loop("-n", "1")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.read("hogs.1").strip(), "0")

    def test_refuses_a_bad_count(self):
        for bad in ("0", "x", "-3"):
            done = self.loop("-n", bad)
            self.assertEqual(done.returncode, 2, bad)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "count")))
        self.assertTrue(re.search(r"RUNS must be a positive number", done.stderr))


if __name__ == "__main__":
    unittest.main()
