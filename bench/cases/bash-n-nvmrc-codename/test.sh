#!/bin/bash
# Interesting iff the candidate passes `bash -n` and, run as
#   n N_TEST_DISPLAY_LATEST_RESOLVED_VERSION auto
# (n's own hook for its tests: resolve a version and print it) from a project folder whose
# parent holds `.nvmrc` = `lts/iron  # ...`, exits 0 and prints exactly `20.18.1` on stdout.
# n must find the .nvmrc walking up from the working folder, strip its comment, map nvm's
# `lts/iron` to the codename, capitalise it, fetch the index with curl from the default mirror
# (https://nodejs.org/dist/index.tab), keep the versions built for this platform (uname: Linux
# x86_64, so `linux-x64`), match the codename in the lts field and print the first such version
# without its `v`. The stub index (index.tab beside this script) lists 20.18.2 (Iron, but only
# headers and source) above 20.18.1, so a candidate that skips the platform filter prints the
# wrong version, and 23.x, 22.x (Jod), 18.x (Hydrogen) so that any other match is wrong too.
#
# Sandbox: the run gets a fresh temp folder (its own HOME, N_PREFIX, working folder), `env -i`
# with PATH = a stub folder (curl: prints index.tab for exactly that URL, fails like `curl
# --fail` on any other; uname) then /usr/bin:/bin, no stdin, `timeout 5`, and when the test runs
# as root it runs as nobody (setpriv): a candidate can write only to its temp folder (owned by
# nobody for the run) and to world-writable folders, and can delete nothing of root's.
# Needs bash (Debian's 5.2), coreutils, grep, sed, awk and util-linux's setpriv.
here=$(cd "$(dirname "$0")" && pwd)
f="${1:-input.sh}"
bash -n "$f" > /dev/null 2>&1 || exit 1
d=$(mktemp -d /tmp/bench-bash-n-XXXXXX) || exit 2
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/stub" "$d/home" "$d/prefix" "$d/proj/app" || exit 2
cp "$f" "$d/n" && cp "$here/index.tab" "$d/index.tab" || exit 2
printf 'lts/iron  # the LTS line the CI image has\n' > "$d/proj/.nvmrc"
cat > "$d/stub/curl" <<STUB
#!/bin/bash
for url; do :; done
if [ "\$url" = https://nodejs.org/dist/index.tab ]; then exec cat "$d/index.tab"; fi
echo "curl: (22) The requested URL returned error: 404" >&2
exit 22
STUB
cat > "$d/stub/uname" <<'STUB'
#!/bin/bash
case "$1" in
  -s) echo Linux ;;
  -m) echo x86_64 ;;
  -a) echo "Linux bench 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22) x86_64 GNU/Linux" ;;
  *) echo Linux ;;
esac
STUB
chmod 755 "$d/stub/curl" "$d/stub/uname" && chmod 644 "$d/n" "$d/index.tab" || exit 2
drop=()
if [ "$(id -u)" = 0 ]; then
  chown -R 65534:65534 "$d" || exit 2
  drop=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
fi
out=$(cd "$d/proj/app" && "${drop[@]}" env -i HOME="$d/home" PATH="$d/stub:/usr/bin:/bin" LC_ALL=C \
  TMPDIR="$d" N_PREFIX="$d/prefix" timeout 5 bash "$d/n" N_TEST_DISPLAY_LATEST_RESOLVED_VERSION auto \
  2> /dev/null < /dev/null) || exit 1
[ "$out" = 20.18.1 ]
