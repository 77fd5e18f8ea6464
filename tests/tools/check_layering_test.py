#!/usr/bin/env python3
"""Tests of tools/check-layering on small fake trees built in a temp dir.

Run: python3 tests/tools/check_layering_test.py (tools/test.sh does, before
the build). Standard library only.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "check-layering")


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="check-layering-test-")
        self.root = self._tmp.name
        # A minimal tree that passes: each unit has a header.
        self.write("common/result.h", "#pragma once\n#include <string>\n")
        self.write("lsf_adapter/table.h", '#pragma once\n#include "common/result.h"\n')

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, relpath, text):
        path = os.path.join(self.root, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))

    def run_checker(self, *args):
        done = subprocess.run([sys.executable, CHECKER, "--root", self.root, *args],
                              capture_output=True, text=True, timeout=30)
        return done.returncode, done.stdout, done.stderr

    def assert_ok(self, *args):
        code, out, err = self.run_checker(*args)
        self.assertEqual(code, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertEqual(err, "")
        return out

    def assert_fails(self, *args):
        code, out, err = self.run_checker(*args)
        self.assertEqual(code, 1, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertIn(": FAILED", err)
        return out, err

    def test_allowed_edges_pass(self):
        self.write("daemon/cluster/snapshot.h", """\
            #pragma once
            #include <vector>
            #include "common/result.h"
            #include "lsf_adapter/table.h"
            #include "daemon/options.h"
            """)
        self.write("daemon/options.h", "#pragma once\n")
        self.write("daemon/cluster/snapshot.cc", '#include "daemon/cluster/snapshot.h"\n')
        out = self.assert_ok()
        self.assertEqual(
            out, "check-layering: 5 files, 5 include edges, "
                 "units: common, lsf_adapter, daemon/options, daemon/cluster: OK\n")

    def test_a_unit_may_name_a_file(self):
        # daemon/options is daemon/options.h and .cc, not every file whose
        # name starts so: daemon/options_table.h is of the unit daemon.
        self.write("daemon/options.h", '#pragma once\n#include "daemon/options_table.h"\n')
        self.write("daemon/options.cc", '#include "daemon/options.h"\n')
        self.write("daemon/options_table.h", "#pragma once\n")
        _, err = self.assert_fails()
        self.assertIn('daemon/options.h:2: daemon/options -> daemon '
                      '(#include "daemon/options_table.h") is not an allowed edge\n', err)
        self.assertNotIn("daemon/options.cc", err)

    def test_forbidden_edge_names_file_and_line(self):
        self.write("api/router.h", '#pragma once\n#include "common/result.h"\n')
        self.write("daemon/placement/placement.cc", """\
            #include "daemon/placement/placement.h"

            #include "api/router.h"
            """)
        self.write("daemon/placement/placement.h", "#pragma once\n")
        _, err = self.assert_fails()
        self.assertIn('daemon/placement/placement.cc:3: daemon/placement -> api '
                      '(#include "api/router.h") '
                      "is not an allowed edge\n", err)
        # The allowed edges of the same tree are not reported.
        self.assertNotIn("lsf_adapter -> common", err)
        self.assertEqual(err.count("is not an allowed edge"), 1)

    def test_cycle_is_reported(self):
        self.write("api/router.h", '#pragma once\n#include "daemon/snapshot.h"\n')
        self.write("daemon/snapshot.h", '#pragma once\n#include "api/router.h"\n')
        _, err = self.assert_fails()
        self.assertIn("daemon/snapshot.h:2: daemon -> api", err)
        self.assertIn("cycle: daemon -> api -> daemon\n", err)
        self.assertIn('  daemon -> api (1 include(s)), e.g. daemon/snapshot.h:2: '
                      '#include "api/router.h"', err)
        self.assertIn('  api -> daemon (1 include(s)), e.g. api/router.h:2: '
                      '#include "daemon/snapshot.h"', err)

    def test_longer_cycle_is_reported_once(self):
        # common -> identity -> lsf_adapter -> common: two forbidden edges,
        # one cycle.
        self.write("common/clock.h", '#pragma once\n#include "identity/user.h"\n')
        self.write("identity/user.h", '#pragma once\n#include "lsf_adapter/table.h"\n')
        _, err = self.assert_fails()
        self.assertIn("common/clock.h:2: common -> identity", err)
        self.assertIn("identity/user.h:2: identity -> lsf_adapter", err)
        self.assertEqual(err.count("cycle: "), 1)
        self.assertIn("cycle: common -> identity -> lsf_adapter -> common\n", err)

    def test_unresolved_include_fails(self):
        self.write("daemon/snapshot.cc", """\
            #include "daemon/snapshot.h"
            #include "lsf_adapter/bqueues_parser.h"
            """)
        self.write("daemon/snapshot.h", "#pragma once\n")
        _, err = self.assert_fails()
        self.assertIn('daemon/snapshot.cc:2: #include "lsf_adapter/bqueues_parser.h" '
                      "does not resolve to a file in the repo\n", err)

    def test_include_of_a_configure_file_template_resolves(self):
        # common/version.h is generated by CMake from common/version.h.in.
        self.write("common/version.h.in", "#pragma once\n")
        self.write("cli/main.cc", '#include "common/version.h"\n')
        self.assert_ok()

    def test_cli_may_not_include_the_daemon(self):
        self.write("daemon/cache.h", '#pragma once\n')
        self.write("cli/main.cc", '#include "daemon/cache.h"\n')
        _, err = self.assert_fails()
        self.assertIn("cli -> daemon", err)

    def test_include_relative_to_the_including_file_fails(self):
        self.write("daemon/snapshot.h", "#pragma once\n")
        self.write("daemon/snapshot.cc", '#include "snapshot.h"\n#include "../common/result.h"\n')
        _, err = self.assert_fails()
        self.assertIn('daemon/snapshot.cc:1: #include "snapshot.h" is not repo-root relative '
                      "(it resolves only next to the including file, as daemon/snapshot.h)", err)
        self.assertIn('daemon/snapshot.cc:2: #include "../common/result.h" is not repo-root '
                      "relative", err)

    def test_shadowed_include_fails(self):
        # The compiler looks next to the including file first.
        self.write("daemon/common/result.h", "#pragma once\n")
        self.write("daemon/snapshot.cc", '#include "common/result.h"\n')
        _, err = self.assert_fails()
        self.assertIn('daemon/snapshot.cc:1: #include "common/result.h" is shadowed by '
                      "daemon/common/result.h", err)

    def test_tests_bench_and_tools_are_ignored(self):
        for folder in ("tests/daemon", "tests", "bench", "tools"):
            self.write(f"{folder}/x_test.cc", """\
                #include "bplaced/daemon.h"
                #include "api/router.h"
                #include "tests/fakes/missing.h"
                """)
        self.write("api/router.h", "#pragma once\n")
        self.write("bplaced/daemon.h", '#pragma once\n#include "api/router.h"\n')
        out = self.assert_ok()
        self.assertIn("4 files, 2 include edges", out)

    def test_production_may_not_include_tests(self):
        self.write("tests/fakes/fake_runner.h", "#pragma once\n")
        self.write("daemon/snapshot.cc", '#include "tests/fakes/fake_runner.h"\n')
        _, err = self.assert_fails()
        self.assertIn("daemon/snapshot.cc:1: daemon -> tests", err)

    def test_rdma_probe_main_is_its_own_unit(self):
        self.write("config/config.h", '#pragma once\n#include "rdma_probe/probe_options.h"\n')
        self.write("rdma_probe/probe_options.h", "#pragma once\n")
        self.write("rdma_probe/main/main.cc", """\
            #include "config/config.h"
            #include "rdma_probe/probe_options.h"
            """)
        out = self.assert_ok("--graph")
        self.assertIn("rdma_probe/main -> config (1)\n", out)
        self.assertIn("rdma_probe/main -> rdma_probe (1)\n", out)
        self.assertIn("units: common, lsf_adapter, rdma_probe, config, rdma_probe/main: OK", out)

        # The library itself may not read the config, nor include its main.
        self.write("rdma_probe/probe.cc", """\
            #include "config/config.h"
            #include "rdma_probe/main/main.cc"
            """)
        _, err = self.assert_fails()
        self.assertIn('rdma_probe/probe.cc:1: rdma_probe -> config (#include "config/config.h") '
                      "is not an allowed edge", err)
        self.assertIn("rdma_probe/probe.cc:2: rdma_probe -> rdma_probe/main", err)
        self.assertIn("cycle: rdma_probe -> config -> rdma_probe\n", err)

    def test_bplaced_may_include_every_unit(self):
        units = ["common", "identity", "lsf_adapter", "rdma_probe", "daemon", "daemon/cluster",
                 "api", "api/http", "config", "rdma_probe/main"]
        for unit in units:
            self.write(f"{unit}/x.h", "#pragma once\n")
        self.write("bplaced/main.cc", "".join(f'#include "{u}/x.h"\n' for u in units))
        self.assert_ok()
        # But nothing may include the composition root.
        self.write("api/y.cc", '#include "bplaced/main.cc"\n')
        _, err = self.assert_fails()
        self.assertIn("api/y.cc:1: api -> bplaced", err)

    def test_angle_and_commented_includes_are_ignored(self):
        self.write("common/clock.h", """\
            #pragma once
            #include <api/router.h>
            // #include "api/router.h"
              #  include "common/result.h"
            """)
        out = self.assert_ok()
        self.assertIn("3 files, 2 include edges", out)

    def test_unknown_folder_with_sources_fails(self):
        self.write("scheduler/policy.cc", '#include "common/result.h"\n')
        self.write("deploy/README.md", "no sources here\n")
        _, err = self.assert_fails()
        self.assertIn("scheduler/: 1 source file(s) in a folder that is not a unit", err)
        self.assertNotIn("deploy", err)

    def test_build_trees_and_hidden_folders_are_skipped(self):
        self.write("build/test/CMakeCache.txt", "")
        self.write("build/test/gen/x.h", '#include "nowhere.h"\n')
        self.write(".cache/clangd/x.h", '#include "nowhere.h"\n')
        self.assert_ok()

    def test_graph_and_dot(self):
        self.write("api/router.h", '#pragma once\n#include "common/result.h"\n')
        self.write("daemon/x.h", '#pragma once\n#include "api/router.h"\n')
        out, _ = self.assert_fails("--graph")
        self.assertEqual(out, "lsf_adapter -> common (1)\n"
                              "daemon -> api (1)  FORBIDDEN\n"
                              "api -> common (1)\n")
        code, out, err = self.run_checker("--dot")
        self.assertEqual(code, 1)
        self.assertTrue(out.startswith("digraph units {\n"), out)
        self.assertTrue(out.endswith("}\n"), out)
        self.assertIn('  "lsf_adapter" -> "common" [label="1"];\n', out)
        self.assertIn('  "daemon" -> "api" [label="1", color=red, fontcolor=red];\n', out)
        self.assertNotIn("check-layering:", out)
        self.assertIn("check-layering:", err)

    def test_dot_on_success_keeps_stdout_pure(self):
        code, out, err = self.run_checker("--dot")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("digraph units {\n"))
        self.assertIn(": OK", err)

    def test_line_numbers_count_every_line(self):
        self.write("daemon/x.cc", "\n" * 99 + '#include "api/router.h"\n')
        self.write("api/router.h", "#pragma once\n")
        _, err = self.assert_fails()
        self.assertIn("daemon/x.cc:100: daemon -> api", err)


if __name__ == "__main__":
    unittest.main()
