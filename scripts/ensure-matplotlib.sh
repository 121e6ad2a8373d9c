#!/bin/sh
# usage: ensure-matplotlib.sh
# Makes sure python3 can import matplotlib, which draws the benchmark report's charts. Python 3 itself
# is required (the report generator is a Python script): it is installed through apt-get when running
# as root, otherwise this prints the command and fails. matplotlib is optional: when it cannot be
# installed this only warns, and scripts/bench-report.py writes the report without charts and says so.
set -u

if ! command -v python3 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing python3 (for scripts/bench-report.py) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q python3 >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y -q python3 >/dev/null; } || exit 1
  else
    echo "error: python3 is missing. Install it with:" >&2
    echo "    sudo apt-get install -y python3" >&2
    exit 1
  fi
fi

python3 -c 'import matplotlib' 2>/dev/null && exit 0

echo "installing matplotlib (for the benchmark charts) ..."
# pip first: it works in virtual environments and pyenv; --user where the system site is not ours.
if [ "$(id -u)" = 0 ]; then user_flag=""; else user_flag="--user"; fi
python3 -m pip install --quiet $user_flag matplotlib >/dev/null 2>&1 && exit 0
# A Debian Python without pip, or one that refuses pip (externally managed): the distribution's own.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q python3-matplotlib >/dev/null 2>&1 && python3 -c 'import matplotlib' 2>/dev/null \
    && exit 0
fi

echo "warning: could not install matplotlib; the benchmark report will have no charts. Install it with:" >&2
echo "    python3 -m pip install ${user_flag:+$user_flag }matplotlib" >&2
echo "or: sudo apt-get install -y python3-matplotlib" >&2
exit 0
