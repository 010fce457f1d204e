#!/usr/bin/env python3
"""One man page (section 3) per public C function of mpix.h, from Doxygen's
XML, laid out as MPICH's: NAME, SYNOPSIS, DESCRIPTION, PARAMETERS, RETURN
VALUE, COLLECTIVE OR LOCAL, THREAD SAFETY, SEE ALSO.

It is also the check that every public function is documented in full: a
function without a brief, with a parameter it does not describe, or without
its return, "Collective or local" or "Thread safety" paragraph fails the
build, naming it. Doxygen's own warnings cover the rest (docs.doxygen)."""
import argparse
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

REQUIRED_PARAGRAPHS = ("Collective or local", "Thread safety")


def roff_escape(text):
    text = text.replace("\\", "\\e")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def inline(element):
    """The text of a paragraph's inline content, in roff, leaving out the
    parameter lists and sections rendered on their own."""
    out = [element.text or ""]
    for child in element:
        if child.tag in ("parameterlist", "simplesect"):
            pass
        elif child.tag == "computeroutput":
            out.append("\\fB" + inline(child) + "\\fR")
        elif child.tag == "itemizedlist":
            for item in child.findall("listitem"):
                out.append("\n.IP \\(bu 2\n" + " ".join(inline(p).strip() for p in item.findall("para")) + "\n")
            out.append("\n.PP\n")
        else:
            out.append(inline(child))
        out.append(child.tail or "")
    return "".join(out)


def escaped_inline(element):
    """inline(), with the text (not the markup it adds) escaped."""
    return inline(_escaped_copy(element))


def _escaped_copy(element):
    copy = ET.Element(element.tag, element.attrib)
    copy.text = roff_escape(element.text) if element.text else element.text
    copy.tail = roff_escape(element.tail) if element.tail else element.tail
    for child in element:
        copy.append(_escaped_copy(child))
    return copy


def paragraphs(description):
    return [escaped_inline(p).strip() for p in description.findall("para") if inline(p).strip()]


def plain(element):
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


class Function:
    def __init__(self, member, group):
        self.name = member.findtext("name")
        self.group = group
        self.brief = plain(member.find("briefdescription"))
        self.declaration = (member.findtext("definition") + member.findtext("argsstring")).strip() + ";"
        self.params = [p.findtext("declname") for p in member.findall("param") if p.findtext("declname")]
        detail = member.find("detaileddescription")
        self.description = paragraphs(detail)
        self.param_docs = {}
        for item in detail.iter("parameteritem"):
            name = item.find("parameternamelist/parametername")
            direction = name.get("direction", "")
            text = " ".join(escaped_inline(p).strip() for p in item.findall("parameterdescription/para"))
            self.param_docs[name.text] = (direction, text)
        self.returns = ""
        self.sections = {}
        for sect in detail.iter("simplesect"):
            text = " ".join(escaped_inline(p).strip() for p in sect.findall("para"))
            if sect.get("kind") == "return":
                self.returns = text
            elif sect.get("kind") == "par":
                self.sections[plain(sect.find("title"))] = text

    def problems(self):
        found = []
        if not self.brief:
            found.append("no brief description")
        found += [f"parameter {p} not documented" for p in self.params if p not in self.param_docs]
        found += [f"documents {p}, which it does not take" for p in self.param_docs if p not in self.params]
        if not self.returns:
            found.append("no \\return")
        found += [f"no \"{title}\" paragraph" for title in REQUIRED_PARAGRAPHS if title not in self.sections]
        return found

    def page(self, version, see_also):
        lines = [f'.TH {self.name} 3 "" "mpix-rma {version}" "mpix-rma"',
                 ".SH NAME", f"{self.name} \\- {roff_escape(self.brief)}",
                 ".SH SYNOPSIS", ".nf", "#include <mpix/mpix.h>", "", roff_escape(self.declaration), ".fi"]
        if self.description:
            lines += [".SH DESCRIPTION"] + "\n.PP\n".join(self.description).split("\n")
        if self.params:
            lines.append(".SH PARAMETERS")
            for p in self.params:
                direction, text = self.param_docs[p]
                lines += [".TP", f"\\fB{p}\\fR [{direction}]", text]
        lines += [".SH RETURN VALUE", self.returns]
        if "before MPI_Init" not in self.sections["Collective or local"]:
            lines += [".PP", "On failure the error is raised on the error handler of the communicator involved "
                      "(MPI_COMM_SELF where there is none) before it is returned; MPIX_Error_string gives its "
                      "message."]
        for title in REQUIRED_PARAGRAPHS:
            lines += [f".SH {title.upper()}", self.sections[title]]
        if see_also:
            lines += [".SH SEE ALSO", ", ".join(f"\\fB{n}\\fR(3)" for n in see_also)]
        return "\n".join(lines) + "\n"


def public_functions(xml_dir):
    """Every function mpix.h declares (itself, or through mpix/families.h:
    mpix/families/<family>.h), once, with the group it is in."""
    functions = {}
    for path in sorted(glob.glob(os.path.join(xml_dir, "*.xml"))):
        root = ET.parse(path).getroot()
        for compound in root.findall("compounddef"):
            group = compound.get("id") if compound.get("kind") == "group" else None
            for member in compound.iter("memberdef"):
                location = member.find("location")
                if member.get("kind") != "function" or location is None:
                    continue
                if not re.search(r"mpix/(mpix|families/\w+)\.h$", location.get("file", "")):
                    continue
                name = member.findtext("name")
                if name not in functions or group:
                    functions[name] = Function(member, group)
    return functions


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--xml", required=True, help="Doxygen's XML output")
    parser.add_argument("--output", required=True, help="where the .3 pages go")
    parser.add_argument("--version", required=True)
    args = parser.parse_args()
    functions = public_functions(args.xml)
    if not functions:
        sys.exit(f"man_pages.py: no function of mpix.h in {args.xml}")
    problems = [f"{f.name}: {p}" for f in functions.values() for p in f.problems()]
    if problems:
        sys.exit("man_pages.py: incomplete documentation in mpix.h:\n  " + "\n  ".join(problems))
    os.makedirs(args.output, exist_ok=True)
    for f in functions.values():
        see_also = sorted(g.name for g in functions.values() if g.group == f.group and g is not f)
        with open(os.path.join(args.output, f.name + ".3"), "w") as out:
            out.write(f.page(args.version, see_also))
    print(f"man_pages.py: {len(functions)} pages in {args.output}")


if __name__ == "__main__":
    main()
