#!/usr/bin/env bash
# One version everywhere: CMake's project version (given as $2), the build's
# version.h and CMake package, mpix_info --version (the library's
# MPIX_Get_library_version) and the newest entry of CHANGELOG.md.
set -euo pipefail
build=$1 version=$2 source=$3
fail() { echo "version mismatch: $*"; exit 1; }
grep -q "#define MPIX_RMA_VERSION_STRING \"$version\"" "$build/include/mpix/version.h" ||
  fail "version.h does not say $version"
grep -q "set(PACKAGE_VERSION \"$version\")" "$build/mpixrmaConfigVersion.cmake" ||
  fail "the CMake package does not say $version"
reported=$("$build/mpix_info" --version)
[[ $reported == "mpix-rma $version "* ]] || fail "mpix_info --version says: $reported"
newest=$(grep -m1 -o '^## [0-9][0-9.]*' "$source/CHANGELOG.md" | cut -c4-)
[ "$newest" = "$version" ] || fail "CHANGELOG.md's newest entry is ${newest:-missing}, not $version"
echo "version $version: CMake, version.h, the package, mpix_info and CHANGELOG.md agree"
