#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of generated.py, how the generators write their files: whole
files and no .tmp left behind, standard output without a file, and the
header comment made of docstring paragraphs.

usage: python3 tools/models/generated_test.py"""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generated  # noqa: E402


class Generated(unittest.TestCase):
    def test_write_replaces_whole(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'out.yml')
            generated.write(path, 'old\n')
            generated.output(path, 'new\n')
            with open(path) as f:
                self.assertEqual(f.read(), 'new\n')
            self.assertEqual(os.listdir(d), ['out.yml'])

    def test_stdout_without_a_file(self):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            generated.output(None, 'text\n')
        self.assertEqual(buf.getvalue(), 'text\n')

    def test_comment(self):
        self.assertEqual(generated.comment(['usage: x', 'a\n\nb']),
                         '# usage: x\n#\n# a\n#\n# b\n#\n')


if __name__ == '__main__':
    unittest.main()
