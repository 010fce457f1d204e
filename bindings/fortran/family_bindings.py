#!/usr/bin/env python3
"""Writes every family's Fortran binding from collectives/families.def.

    family_bindings.py <families.def> <output folder>

A row gives a family's C init: its name and its parameters before
(xcomm, info, request). Each parameter's C type says its Fortran form:

    C parameter          Fortran argument                  passed to C as
    const void *buf      type(*), dimension(..) (kept)     its address
    void *buf            type(*), dimension(..) (kept)     its address
    const int name[]     integer, intent(in) :: name(*)    the array
    int name             integer, intent(in)               integer(c_int)
    MPI_Datatype name    type(MPI_Datatype), intent(in)    its MPI_VAL

Four files come out: mpix.f90 includes family_public.f90 (the module's
public names), family_interfaces.f90 (the C shims' interfaces) and
family_procedures.f90 (the MPIX_<Name>_init subroutines); CMake compiles
family_shims.c (each shim: the C init with mpi_f08's datatype handles,
converted by the MPI's MPI_Type_f2c). A parameter type no row has
yet is refused here, with the table above to extend."""
import collections
import os
import re
import sys


def rows(text):
    """(folder, Name, [(C type, name, is_array)]) of each MPIX_FAMILY row."""
    text = re.sub(r"//[^\n]*", "", text)
    found = []
    for start in (m.end() for m in re.finditer(r"^MPIX_FAMILY\(", text, re.M)):
        depth, fields, current = 1, [], ""
        for position in range(start, len(text)):
            c = text[position]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    fields.append(current.strip())
                    break
            if c == "," and depth == 1:
                fields.append(current.strip())
                current = ""
            else:
                current += c
        folder, name, parameters = fields[0], fields[1], fields[3]
        found.append((folder, name, [parameter(p) for p in parameters.strip("()").split(",")]))
    return found


def parameter(declaration):
    """(C type, name, is_array) of one C parameter declaration."""
    declaration = " ".join(declaration.split())
    array = declaration.endswith("[]")
    declaration = declaration.removesuffix("[]").strip()
    match = re.fullmatch(r"(.*?)\s*\b(\w+)", declaration)
    ctype = re.sub(r"\s*\*", "*", match.group(1)).strip()
    return ctype, match.group(2), array


# The kind of each C parameter type (with whether it is an array).
KINDS = {
    ("const void*", False): "buffer",
    ("void*", False): "buffer",
    ("const int", True): "array",
    ("int", False): "integer",
    ("MPI_Datatype", False): "datatype",
}

# Each kind's Fortran form: its declaration in the shim's interface, the
# subroutine's dummy argument, and the value the subroutine passes to the
# shim ({name} is the parameter's name).
Form = collections.namedtuple("Form", "interface dummy value")
FORMS = {
    "buffer": Form("type(c_ptr), value :: {name}", "type(*), dimension(..), target, asynchronous :: {name}",
                   "{name}_address"),
    "array": Form("integer(c_int), dimension(*), intent(in) :: {name}", "integer, intent(in) :: {name}(*)",
                  "{name}"),
    "integer": Form("integer(c_int), value :: {name}", "integer, intent(in) :: {name}", "int({name}, c_int)"),
    "datatype": Form("integer(c_int), value :: {name}", "type(MPI_Datatype), intent(in) :: {name}",
                     "int({name}%MPI_VAL, c_int)"),
}


def kind(family, ctype, name, array):
    try:
        return KINDS[(ctype, array)]
    except KeyError:
        sys.exit(f"family_bindings.py: family {family}: no Fortran form for parameter '{ctype} {name}"
                 f"{'[]' if array else ''}': add its kind to KINDS (and a form to FORMS)")


def wrapped(prefix, names, suffix, indent):
    """A Fortran statement of prefix, names joined, suffix, continued with &
    before 100 columns."""
    lines, line = [], prefix
    for i, name in enumerate(names):
        piece = name + (", " if i + 1 < len(names) else "")
        if len(line) + len(piece) > 100:
            lines.append(line.rstrip() + " &")
            line = " " * indent
        line += piece
    lines.append(line + suffix)
    return "\n".join(lines)


def shim_name(folder):
    return f"mpix_fortran_{folder}_init"


def public(families):
    return "".join(f"  public :: MPIX_{name}_init\n" for _, name, _ in families)


def interfaces(families):
    out = []
    for folder, name, parameters in families:
        names = [p[1] for p in parameters] + ["xcomm", "info", "request"]
        out.append(wrapped(f"    integer(c_int) function c_{folder}_init(", names,
                           f") bind(C, name=\"{shim_name(folder)}\")", 8))
        out.append("      import :: c_int, c_ptr")
        for ctype, pname, array in parameters:
            out.append("      " + FORMS[kind(folder, ctype, pname, array)].interface.format(name=pname))
        out.append("      type(c_ptr), value :: xcomm, info")
        out.append("      type(c_ptr), intent(out) :: request")
        out.append("    end function")
    return "\n".join(out) + "\n"


def procedures(families):
    out = []
    for folder, name, parameters in families:
        names = [p[1] for p in parameters] + ["xcomm", "info", "request", "ierror"]
        out.append(f"  !> MPIX_{name}_init: a persistent MPI_{name} (man MPIX_{name}_init). Collective.")
        out.append(wrapped(f"  subroutine MPIX_{name}_init(", names, ")", 4))
        buffers, values = [], []
        for ctype, pname, array in parameters:
            this = kind(folder, ctype, pname, array)
            out.append("    " + FORMS[this].dummy.format(name=pname))
            values.append(FORMS[this].value.format(name=pname))
            if this == "buffer":
                buffers.append(pname)
        out.append("    type(MPIX_Comm), intent(in) :: xcomm")
        out.append("    type(MPIX_Info), intent(in) :: info")
        out.append("    type(MPIX_Request), intent(out) :: request")
        out.append("    integer, optional, intent(out) :: ierror")
        if buffers:
            out.append("    type(c_ptr) :: " + ", ".join(f"{b}_address" for b in buffers))
        for b in buffers:
            out.append(f"    {b}_address = kept_address({b})")
            out.append(f"    if (.not. buffer_usable({b}_address, size({b}), ierror)) return")
        out.append(wrapped(f"    call set_error(c_{folder}_init(", values + ["xcomm%handle", "info%handle",
                                                                         "request%handle"], "), ierror)", 8))
        out.append(f"  end subroutine\n")
    return "\n".join(out)


def shims(families):
    out = ["/* Every family's C shim for the Fortran module, generated from",
           " * collectives/families.def by bindings/fortran/family_bindings.py: the",
           " * family's C init with mpi_f08's datatype handles (MPI_Fint), converted",
           " * by the MPI's own MPI_Type_f2c. */",
           "#include <mpi.h>", "#include <mpix/mpix.h>", ""]
    for folder, name, parameters in families:
        declared, passed = [], []
        for ctype, pname, array in parameters:
            if kind(folder, ctype, pname, array) == "datatype":
                declared.append(f"MPI_Fint {pname}")
                passed.append(f"MPI_Type_f2c({pname})")
            else:
                declared.append(f"{ctype} {pname}{'[]' if array else ''}")
                passed.append(pname)
        declared += ["MPIX_Comm *xcomm", "MPIX_Info *info", "MPIX_Request **request"]
        passed += ["xcomm", "info", "request"]
        out.append(f"int {shim_name(folder)}({', '.join(declared)}) {{")
        out.append(f"    return MPIX_{name}_init({', '.join(passed)});")
        out.append("}")
        out.append("")
    return "\n".join(out)


def main():
    definitions, folder = sys.argv[1], sys.argv[2]
    with open(definitions) as table:
        families = rows(table.read())
    if not families:
        sys.exit(f"family_bindings.py: no MPIX_FAMILY row in {definitions}")
    os.makedirs(folder, exist_ok=True)
    header = "! Generated from collectives/families.def by bindings/fortran/family_bindings.py.\n"
    for name, text in (("family_public.f90", header + public(families)),
                       ("family_interfaces.f90", header + interfaces(families)),
                       ("family_procedures.f90", header + procedures(families)),
                       ("family_shims.c", shims(families))):
        path = os.path.join(folder, name)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:  # unchanged files keep their times: nothing rebuilds
            with open(path, "w") as out:
                out.write(text)


if __name__ == "__main__":
    main()
