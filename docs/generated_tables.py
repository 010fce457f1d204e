#!/usr/bin/env python3
"""The tables in README.md and docs/ that come from the code or from a
report are generated, never copied by hand. Each sits between a marker and
`<!-- end generated -->`:
- `<!-- generated: mpix_info --markdown TABLE -->`: what this build's
  mpix_info prints (variables from the typed configuration table,
  algorithms from the registry);
- `<!-- generated: include PATH -->`: the file PATH of the repository (a
  committed report's headline table);
- `<!-- generated: functions PATH -->`: every function the C header PATH
  declares, under its Doxygen group's title, with its brief and its man
  page.
--check (the docs.generated_tables test) fails, naming the file and the
table, where one differs, and where a time of day stands outside the
generated tables: a measurement quoted by hand belongs in a report.
--update rewrites the tables (scripts/update_docs.sh)."""
import argparse
import glob
import os
import re
import subprocess
import sys

TIME_OF_DAY = re.compile(r"\b[0-2]?[0-9]:[0-5][0-9]\b")
BLOCK = re.compile(r"(<!-- generated: (mpix_info --markdown|include|functions) (\S+) -->\n)(.*?)(<!-- end generated -->)",
                   re.S)


DEFGROUP = re.compile(r"\\defgroup\s+(\w+)\s+(.+)")
DECLARED = re.compile(r"^(?:const\s+)?\w+\s*\*?\s*(\w+)\s*\(")


def function_table(header_path, relative_header):
    """A Markdown table per Doxygen group of the header: each function it
    declares after a /** ... */ block, with the block's brief (its first
    paragraph) and the man page man_pages.py makes for it."""
    with open(header_path) as f:
        text = f.read()
    out, group = [], None
    for comment, declaration in re.findall(r"/\*\*(.*?)\*/\s*([^/#]*?;)", text, re.S):
        lines = [re.sub(r"^\s*\*\s?", "", line) for line in comment.split("\n")]
        found = DEFGROUP.search(comment)
        if found:
            group = found.group(2).strip()
        match = DECLARED.match(declaration.strip())
        brief = re.search(r"\\brief\s+(.*?)(?:\n\s*\n|\n\\|$)", "\n".join(lines), re.S)
        if not match or not brief or group is None:
            continue
        if not out or out[-1][0] != group:
            out.append((group, []))
        out[-1][1].append((match.group(1), " ".join(brief.group(1).split())))
    md = []
    for title, functions in out:
        md += [f"**{title}**", "", "| function | what it does | man page |", "|---|---|---|"]
        md += [f"| [`{name}`]({relative_header}) | {brief} | `man 3 {name}` |" for name, brief in functions]
        md.append("")
    return "\n".join(md)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mpix-info", required=True, help="the mpix_info of this build")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository (default: this script's)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true")
    action.add_argument("--update", action="store_true")
    args = parser.parse_args()
    stale, tables = [], 0
    paths = [os.path.join(args.root, "README.md")] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md")))
    for path in paths:
        with open(path) as f:
            text = f.read()

        def generated(match):
            nonlocal tables
            tables += 1
            kind, what = match.group(2), match.group(3)
            if kind == "include":
                with open(os.path.join(args.root, what)) as f:
                    fresh = f.read()
            elif kind == "functions":
                fresh = function_table(os.path.join(args.root, what),
                                       os.path.relpath(os.path.join(args.root, what), os.path.dirname(path)))
            else:
                fresh = subprocess.run([args.mpix_info, "--markdown", what], check=True, capture_output=True,
                                       text=True).stdout
            if fresh != match.group(4):
                stale.append(f"{os.path.relpath(path, args.root)}: {what}")
            return match.group(1) + fresh + match.group(5)

        updated = BLOCK.sub(generated, text)
        for line in BLOCK.sub("", text).split("\n"):
            if TIME_OF_DAY.search(line):
                stale.append(f"{os.path.relpath(path, args.root)}: a time of day, '{line.strip()}'")
        if args.update and updated != text:
            with open(path, "w") as f:
                f.write(updated)
    if tables == 0:
        sys.exit(f"generated_tables.py: no generated table in {args.root}")
    if stale and args.check:
        sys.exit("generated_tables.py: tables that differ from their source (run scripts/update_docs.sh):\n  " +
                 "\n  ".join(stale))
    print(f"generated_tables.py: {tables} tables, {len(stale)} {'updated' if args.update else 'stale'}")


if __name__ == "__main__":
    main()
