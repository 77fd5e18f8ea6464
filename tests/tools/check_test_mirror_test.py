#!/usr/bin/env python3
"""Tests of tools/check-test-mirror on small fake trees built in a temp dir.

Run: python3 tests/tools/check_test_mirror_test.py (the ctest
check_test_mirror_test does). Standard library only.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "check-test-mirror")

README_HEAD = """\
    # Tests

    Tests mirror the sources file by file.

    ## Sources tested elsewhere

    | source | tested in |
    |---|---|
    """

README_TAIL = """\

    ## Afterwards

    | folder | what |
    |---|---|
    | `api/other.cc` | a table of another section, never read |
    """


class CheckTestMirrorTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="check-test-mirror-test-")
        self.root = self._tmp.name
        # A tree that passes: one source and its mirror test.
        self.write("common/text.cc", "int x;\n")
        self.write("tests/common/text_test.cc", "int t;\n")

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, relpath, text=""):
        path = os.path.join(self.root, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))

    def table(self, *rows):
        """tests/README.md with `rows` ("| `a.cc` | `tests/b_test.cc` |") in the table."""
        body = "".join(f"    {row}\n" for row in rows)
        self.write("tests/README.md", README_HEAD + body + README_TAIL)

    def run_checker(self, *args):
        done = subprocess.run([sys.executable, CHECKER, "--root", self.root, *args],
                              capture_output=True, text=True, timeout=30)
        return done.returncode, done.stdout, done.stderr

    def assert_ok(self):
        code, out, err = self.run_checker()
        self.assertEqual(code, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertEqual(err, "")
        return out

    def assert_fails(self, *expected):
        code, out, err = self.run_checker()
        self.assertEqual(code, 1, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertEqual(out, "")
        self.assertIn(": FAILED", err)
        for text in expected:
            self.assertIn(text, err)
        return err

    # ------------------------------------------------------------ mirrors

    def test_a_source_with_its_mirror_test_passes(self):
        out = self.assert_ok()
        self.assertEqual(out, "check-test-mirror: 1 sources, 1 with a mirror test, "
                              "0 tested elsewhere: OK\n")

    def test_a_nested_source_mirrors_its_whole_path(self):
        self.write("daemon/placement/placement.cc")
        self.write("tests/placement/placement_test.cc")  # the wrong folder
        self.assert_fails("daemon/placement/placement.cc: no test: neither "
                          "tests/daemon/placement/placement_test.cc nor a row in "
                          'tests/README.md "Sources tested elsewhere"')
        self.write("tests/daemon/placement/placement_test.cc")
        self.assert_ok()

    def test_a_source_without_mirror_or_row_fails_naming_it(self):
        self.write("api/auth.cc")
        self.table()
        err = self.assert_fails("api/auth.cc: no test: neither tests/api/auth_test.cc")
        self.assertIn("check-test-mirror: 1 problem(s) in 2 sources: FAILED", err)

    def test_without_the_readme_or_its_section_every_unmirrored_source_fails(self):
        self.write("api/auth.cc")
        self.write("api/idempotency.cc")
        self.assert_fails("api/auth.cc: no test", "api/idempotency.cc: no test")
        self.write("tests/README.md", "# Tests\n\n| source | tested in |\n|---|---|\n"
                                      "| `api/auth.cc` | `tests/common/text_test.cc` |\n")
        self.assert_fails("api/auth.cc: no test", "api/idempotency.cc: no test")

    def test_main_cc_is_a_source_like_any_other(self):
        self.write("cli/main.cc", "int main() {}\n")
        self.table()
        self.assert_fails("cli/main.cc: no test: neither tests/cli/main_test.cc")
        self.write("tests/cli/cli_integration_test.cc")
        self.table("| `cli/main.cc` | `tests/cli/cli_integration_test.cc` |")
        self.assertIn("1 tested elsewhere", self.assert_ok())
        self.write("tests/cli/main_test.cc")
        self.assert_fails("tests/README.md:9: cli/main.cc has its mirror test "
                          "tests/cli/main_test.cc now: delete its row (stale)")

    def test_tests_bench_build_trees_and_hidden_folders_hold_no_sources(self):
        self.write("tests/fakes/fake_runner.cc")
        self.write("tests/lsfsim/main.cc")
        self.write("bench/placement_bench.cc")
        self.write("build/demo/generated.cc")
        self.write("out/CMakeCache.txt")
        self.write("out/CMakeFiles/feature_tests.cc")
        self.write(".git/x.cc")
        self.write("tools/node/lib/binding.cc")
        self.write("node_modules/x/y.cc")
        self.assertIn("1 sources", self.assert_ok())

    # ------------------------------------------------------------ the table

    def test_a_row_with_existing_test_files_passes(self):
        self.write("api/routes_lsf_bsub.cc")
        self.write("tests/frontdoor/front_door_integration_test.cc")
        self.write("tests/frontdoor/openlava_integration_test.cc")
        self.table("| `api/routes_lsf_bsub.cc` | `tests/frontdoor/front_door_integration_test.cc`, "
                   "`tests/frontdoor/openlava_integration_test.cc` |")
        out = self.assert_ok()
        self.assertEqual(out, "check-test-mirror: 2 sources, 1 with a mirror test, "
                              "1 tested elsewhere: OK\n")

    def test_a_row_naming_a_missing_test_file_fails(self):
        self.write("api/auth.cc")
        self.write("tests/api/authenticator_test.cc")
        self.table("| `api/auth.cc` | `tests/api/authenticator_test.cc`, "
                   "`tests/api/auth_tests.cc` |")
        err = self.assert_fails("tests/README.md:9: api/auth.cc: tests/api/auth_tests.cc "
                                "does not exist")
        self.assertNotIn("authenticator_test.cc does not exist", err)

    def test_a_row_naming_a_file_outside_tests_fails(self):
        self.write("api/auth.cc")
        self.write("api/token_store.cc")
        self.write("tests/api/token_store_test.cc")
        self.table("| `api/auth.cc` | `api/token_store.cc` |")
        self.assert_fails("tests/README.md:9: api/auth.cc: api/token_store.cc is not a path "
                          "under tests/")

    def test_a_row_naming_a_missing_source_fails(self):
        self.table("| `api/gone.cc` | `tests/common/text_test.cc` |")
        self.assert_fails("tests/README.md:9: api/gone.cc does not exist: delete or fix its row")

    def test_a_row_naming_a_file_that_is_not_a_source_fails(self):
        self.write("bench/placement_bench.cc")
        self.write("api/auth.h")
        self.table("| `api/auth.h` | `tests/common/text_test.cc` |",
                   "| `bench/placement_bench.cc` | `tests/common/text_test.cc` |")
        self.assert_fails("tests/README.md:9: api/auth.h is not a .cc source file",
                          "tests/README.md:10: bench/placement_bench.cc is not a source "
                          "checked here")

    def test_a_stale_row_fails(self):
        self.table("| `common/text.cc` | `tests/common/text_test.cc` |")
        self.assert_fails("tests/README.md:9: common/text.cc has its mirror test "
                          "tests/common/text_test.cc now: delete its row (stale)")

    def test_none_yet_passes_with_a_warning(self):
        self.write("common/sys_error.cc")
        self.write("config/value_text.cc")
        self.table("| `common/sys_error.cc` | none yet |",
                   "| `config/value_text.cc` | `none yet` |")
        code, out, err = self.run_checker()
        self.assertEqual(code, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertEqual(err, "tests/README.md:9: warning: common/sys_error.cc is tested "
                              "nowhere yet (none yet)\n"
                              "tests/README.md:10: warning: config/value_text.cc is tested "
                              "nowhere yet (none yet)\n")
        self.assertIn("2 tested elsewhere: OK", out)

    def test_none_yet_for_a_missing_source_still_fails(self):
        self.table("| `common/gone.cc` | none yet |")
        err = self.assert_fails("common/gone.cc does not exist")
        self.assertNotIn("warning", err)

    def test_a_row_naming_no_test_file_fails(self):
        self.write("api/auth.cc")
        self.table("| `api/auth.cc` | the route tests |")
        self.assert_fails("tests/README.md:9: api/auth.cc: the tested-in cell must be test "
                          "paths in backticks")
        self.table("| `api/auth.cc` | `tests/common/text_test.cc` and more |")
        self.assert_fails("tests/README.md:9: api/auth.cc: the tested-in cell must be")

    def test_malformed_rows_fail(self):
        self.table("| api/auth.cc | `tests/common/text_test.cc` |",
                   "| `api/x.cc` | `tests/common/text_test.cc` | extra |")
        self.assert_fails("tests/README.md:9: the source cell must be one path in backticks",
                          "tests/README.md:10: a row has two cells (source, tested in); "
                          "this one has 3")

    def test_a_wrong_header_fails(self):
        self.write("tests/README.md", "## Sources tested elsewhere\n\n"
                                      "| file | test |\n|---|---|\n")
        self.assert_fails("tests/README.md:3: the table's header must be | source | tested in |")

    def test_rows_are_sorted_and_one_per_source(self):
        self.write("api/a.cc")
        self.write("api/b.cc")
        self.write("tests/t_test.cc")
        self.table("| `api/b.cc` | `tests/t_test.cc` |",
                   "| `api/a.cc` | `tests/t_test.cc` |",
                   "| `api/b.cc` | `tests/t_test.cc` |")
        self.assert_fails("tests/README.md:10: api/a.cc is out of order",
                          "tests/README.md:11: api/b.cc has a row already (line 9)")

    def test_tables_of_other_sections_are_not_read(self):
        # README_TAIL's table names api/other.cc, which does not exist.
        self.table()
        self.assert_ok()

    def test_bad_root_is_a_usage_error(self):
        code, _, err = self.run_checker("--root", os.path.join(self.root, "missing"))
        self.assertEqual(code, 2)
        self.assertIn("is not a directory", err)


if __name__ == "__main__":
    unittest.main()
