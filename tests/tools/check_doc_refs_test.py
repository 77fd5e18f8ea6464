#!/usr/bin/env python3
"""Tests of tools/check-doc-refs on small fake trees built in a temp dir.

Run: python3 tests/tools/check_doc_refs_test.py (the ctest check_doc_refs_test
does). Standard library only.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "check-doc-refs")

DESIGN = """\
    # How it works

    ## Refresh

    ### `GET /v1/jobs` and friends

    ## Site scale
    """


class CheckDocRefsTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="check-doc-refs-test-")
        self.root = self._tmp.name
        self.write("docs/design.md", DESIGN)

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

    def assert_ok(self):
        code, out, err = self.run_checker()
        self.assertEqual(code, 0, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertEqual(err, "")
        return out

    def assert_fails(self, *expected):
        code, out, err = self.run_checker()
        self.assertEqual(code, 1, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertIn(": FAILED", err)
        for text in expected:
            self.assertIn(text, err)
        return err

    # ------------------------------------------------------------ citations

    def test_existing_file_and_section_pass(self):
        self.write("daemon/tier.h", """\
            // One tier (docs/design.md "Refresh"): a timer.
            int x;
            """)
        out = self.assert_ok()
        self.assertEqual(out, "check-doc-refs: 1 files, 1 citations, 0 links: OK\n")

    def test_missing_file_fails_naming_file_and_line(self):
        self.write("daemon/tier.h", """\
            #pragma once

            // See docs/nope.md for the rest.
            """)
        self.assert_fails("daemon/tier.h:3: cites docs/nope.md, which is not a file of the repo")

    def test_missing_section_fails(self):
        self.write("daemon/tier.h", '// See docs/design.md "Refreshing".\n')
        self.assert_fails('daemon/tier.h:1: cites docs/design.md "Refreshing", '
                          "which is not a heading there")

    def test_section_matches_without_backticks_and_case(self):
        self.write("api/jobs.h", '// docs/design.md "get /v1/jobs and friends" says it.\n')
        self.assert_ok()

    def test_a_citation_may_wrap_over_comment_lines(self):
        self.write("api/jobs.h", """\
            // The routes (docs/design.md "GET /v1/jobs and
            // friends") and the others (docs/design.md
            // "Nowhere").
            """)
        err = self.assert_fails('api/jobs.h:2: cites docs/design.md "Nowhere"')
        self.assertNotIn("friends", err)

    def test_a_section_after_a_comma_counts(self):
        self.write("tests/x_test.cc", '// (docs/design.md, "Refreshed").\n')
        self.assert_fails('cites docs/design.md "Refreshed"')

    def test_a_bare_name_is_looked_up_beside_the_file_first(self):
        self.write("tests/fuzz/README.md", "# Fuzzing\n\n## Running\n")
        self.write("tests/fuzz/CMakeLists.txt", '# Fuzzing (see README.md "Running" here).\n')
        self.assert_ok()
        self.write("tests/fuzz/CMakeLists.txt", '# Fuzzing (see README.md "Layout" here).\n')
        self.assert_fails('cites tests/fuzz/README.md "Layout"')

    def test_readme_with_a_section_is_readme_md(self):
        self.write("README.md", "# bplace\n\n## Set-up\n")
        self.write("cli/main.cc", '// As README "Set-up" says.\n')
        self.assert_ok()
        self.write("cli/main.cc", '// As README "API" says.\n')
        self.assert_fails('cli/main.cc:1: cites README.md "API"')

    def test_documents_outside_the_repo_are_refused(self):
        self.write("daemon/a.h", """\
            // The tier (DESIGN §3.1).
            // See ../shared/lsf/FORMATS.md.
            // Found in issue 12.
            """)
        self.assert_fails("daemon/a.h:1: cites the design notes",
                          "daemon/a.h:2: cites a file outside the repo",
                          "daemon/a.h:2: cites ../shared/lsf/FORMATS.md, which is not a file",
                          "daemon/a.h:3: cites an issue")

    def test_an_issue_number_inside_a_quoted_section_title_is_fine(self):
        self.write("bench/README.md", "# Benchmarks\n\n## Site scale (issue 12): every row\n")
        self.write("bench/site.cc", '// bench/README.md "Site scale (issue 12): every row".\n')
        self.assert_ok()

    def test_string_literals_are_not_comments(self):
        self.write("cli/main.cc", """\
            const char* a = "see docs/nope.md // DESIGN §1";
            const char* b = R"x(docs/also-nope.md "x" // issue 3)x";
            char c = '"';  // docs/design.md "Refresh"
            """)
        out = self.assert_ok()
        self.assertIn("1 citations", out)

    def test_block_comments_are_read(self):
        self.write("common/a.h", """\
            /* The clock
             * (docs/missing.md). */
            int x;
            """)
        self.assert_fails("common/a.h:2: cites docs/missing.md")

    def test_hash_comments_of_shell_python_toml_and_cmake(self):
        self.write("tools/run.sh", """\
                #!/bin/sh
                echo "# docs/no1.md in a string" ${#x} $#
                echo hi  # docs/no2.md
                """)
        self.write("tools/tool", """\
                #!/usr/bin/env python3
                x = "# docs/no3.md in a string"  # docs/no4.md
                y = '''
                # docs/no5.md in a docstring
                '''
                """)
        self.write("config/a.toml", 'k = "#docs/no6.md" # docs/no7.md\n')
        self.write("CMakeLists.txt", 'set(X "#docs/no8.md") # docs/no9.md\n')
        err = self.assert_fails("tools/run.sh:3: cites docs/no2.md", "tools/tool:2: cites docs/no4.md",
                                "config/a.toml:1: cites docs/no7.md",
                                "CMakeLists.txt:1: cites docs/no9.md")
        for quoted in ("no1", "no3", "no5", "no6", "no8"):
            self.assertNotIn(quoted, err)

    def test_files_of_other_kinds_and_build_trees_are_not_read(self):
        self.write("tests/testdata/x.txt", "# docs/nope.md\n")
        self.write("build/test/CMakeCache.txt", "")
        self.write("build/test/gen.h", "// docs/nope.md\n")
        self.write(".git/hook.sh", "# docs/nope.md\n")
        self.assert_ok()

    # ------------------------------------------------------------ links

    def test_links_between_docs_resolve(self):
        self.write("README.md", """\
            # bplace

            See [design](docs/design.md), [refresh](docs/design.md#refresh),
            [jobs](docs/design.md#get-v1jobs-and-friends), ![pic](docs/pic.png),
            [here](#bplace) and [the web](https://example.org/x.md).
            """)
        self.write("docs/pic.png", "")
        out = self.assert_ok()
        self.assertIn("5 links", out)

    def test_a_link_to_a_missing_file_fails(self):
        self.write("docs/api.md", "# API\n\nSee [the door](lsf-front-door.md).\n")
        self.assert_fails("docs/api.md:3: links to lsf-front-door.md, which does not exist")

    def test_a_link_to_a_missing_anchor_fails(self):
        self.write("docs/api.md", "# API\n\nSee [it](design.md#refreshing).\n")
        self.assert_fails("docs/api.md:3: links to design.md#refreshing: "
                          "no heading of docs/design.md has that anchor")

    def test_links_in_code_are_not_links(self):
        self.write("docs/api.md", """\
            # API

            `[x](nope.md)` is code.

            ```
            [y](nope.md)
            ```
            """)
        self.assert_ok()

    def test_bad_root_is_a_usage_error(self):
        code, _, err = self.run_checker("--root", os.path.join(self.root, "missing"))
        self.assertEqual(code, 2)
        self.assertIn("is not a directory", err)


if __name__ == "__main__":
    unittest.main()
