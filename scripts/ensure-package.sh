#!/bin/sh
# usage: ensure-package.sh PKGCONFIG_NAME HEADER DEBIAN_PACKAGE
# Installs a C library's development files when they are missing: through apt-get when running as
# root, otherwise prints the command to run and fails.
set -eu
name=$1 header=$2 package=$3

if pkg-config --exists "$name" 2>/dev/null || [ -f "$header" ]; then
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing $package (needed for $header) ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "$package" pkg-config >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q "$package" pkg-config >/dev/null; }
  exit 0
fi

echo "error: $header is missing. Install it with:" >&2
echo "    sudo apt-get install -y $package pkg-config" >&2
exit 1
