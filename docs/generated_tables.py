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
  declares (with each family's, which it includes through the generated
  mpix/families.h: collectives/<family>/entry_points.h, one per row of
  collectives/families.def), under its Doxygen group's title, with its
  brief and its man page;
- `<!-- generated: families PATH -->`: a line per row of PATH
  (collectives/families.def), linking to the family's page
  (collectives/<family>/README.md, whose table is generated as above).
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
BLOCK = re.compile(r"(<!-- generated: (mpix_info --markdown|include|functions|families) (\S+) -->\n)(.*?)(<!-- end generated -->)",
                   re.S)


DEFGROUP = re.compile(r"\\defgroup\s+(\w+)\s+(.+)")
INGROUP = re.compile(r"\\ingroup\s+(\w+)")
DECLARED = re.compile(r"^(?:const\s+)?\w+\s*\*?\s*(\w+)\s*\(")
FAMILIES_INCLUDE = '#include "mpix/families.h"'


def family_folders(root):
    """Each family's folder (collectives/<family>), in the order of
    collectives/families.def."""
    with open(os.path.join(root, "collectives", "families.def")) as f:
        families = re.findall(r"^MPIX_FAMILY\((\w+),", f.read(), re.M)
    return [os.path.join("collectives", family) for family in families]


def family_list(root, page_dir):
    """A line per family of collectives/families.def: its page's title,
    linked."""
    lines = []
    for folder in family_folders(root):
        page = os.path.join(root, folder, "README.md")
        with open(page) as f:
            title = f.readline().lstrip("# ").strip()
        lines.append(f"- [{title}]({os.path.relpath(page, page_dir)})")
    return "\n".join(lines) + "\n"


def function_table(root, header, page_dir):
    """A Markdown table per Doxygen group of the header: each function it
    declares after a /** ... */ block (and each family's, where it includes
    mpix/families.h), with the block's brief (its first paragraph) and the
    man page man_pages.py makes for it; a block's \\ingroup puts its
    function in that group."""
    with open(os.path.join(root, header)) as f:
        text = f.read()
    before, found, after = text.partition(FAMILIES_INCLUDE)
    parts = [(header, before)]
    if found:
        for path in (os.path.join(folder, "entry_points.h") for folder in family_folders(root)):
            with open(os.path.join(root, path)) as f:
                parts.append((path, f.read()))
        parts.append((header, after))
    titles = {group: title.strip() for group, title in DEFGROUP.findall(text)}
    groups, group = {}, None
    for path, part in parts:
        seen = 0
        for declared in re.finditer(r"/\*\*(.*?)\*/\s*([^/#]*?;)", part, re.S):
            comment, declaration = declared.groups()
            lines = [re.sub(r"^\s*\*\s?", "", line) for line in comment.split("\n")]
            # The last group opened before this declaration, here or in an
            # earlier part.
            for _, opened in DEFGROUP.findall(part[seen:declared.end(1)]):
                group = opened.strip()
            seen = declared.end()
            member_of = INGROUP.search(comment)
            match = DECLARED.match(declaration.strip())
            brief = re.search(r"\\brief\s+(.*?)(?:\n\s*\n|\n\\|$)", "\n".join(lines), re.S)
            title = titles[member_of.group(1)] if member_of else group
            if not match or not brief or title is None:
                continue
            link = os.path.relpath(os.path.join(root, path), page_dir)
            groups.setdefault(title, []).append((match.group(1), " ".join(brief.group(1).split()), link))
        for _, opened in DEFGROUP.findall(part[seen:]):
            group = opened.strip()
    order = [title.strip() for _, title in DEFGROUP.findall(text)]
    md = []
    for title in sorted(groups, key=order.index):
        md += [f"**{title}**", "", "| function | what it does | man page |", "|---|---|---|"]
        md += [f"| [`{name}`]({link}) | {brief} | `man 3 {name}` |" for name, brief, link in groups[title]]
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
    paths = ([os.path.join(args.root, "README.md")] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md"))) +
             sorted(glob.glob(os.path.join(args.root, "collectives", "*", "README.md"))))
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
            elif kind == "families":
                fresh = family_list(args.root, os.path.dirname(path))
            elif kind == "functions":
                fresh = function_table(args.root, what, os.path.dirname(path))
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
