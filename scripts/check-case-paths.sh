#!/bin/sh
# usage: check-case-paths.sh [DIR]
# Fails when two paths of the tree differ only by case: a case-insensitive file system (a Mac's
# default disk) would merge them, and SwiftPM would see one folder where there are two.
set -eu
cd "${1:-.}"
clashes=$(find . \( -name .build -o -name .git -o -name .swiftpm \) -prune -o -print \
  | sed 's|^\./||' | sort -f | uniq -di)
if [ -n "$clashes" ]; then
  echo "error: these paths differ from others only by case (rename one of each):" >&2
  find . \( -name .build -o -name .git -o -name .swiftpm \) -prune -o -print | sed 's|^\./||' \
    | grep -i -x -F "$clashes" | sort >&2
  exit 1
fi
