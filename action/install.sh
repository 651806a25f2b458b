#!/bin/sh
# Installs the clanka binary for this runner from a GitHub release and checks it against the
# release's SHA256SUMS before anything runs it; on Linux also installs bubblewrap when it is
# missing and sudo (or root) allows. Called by action.yml; testable anywhere with the same env:
#   INPUT_VERSION       release tag (default: the action's own ref when it is a v* tag, else latest)
#   INPUT_REPOSITORY    OWNER/NAME of the releases (default: the action's repository)
#   INPUT_DOWNLOAD_URL  where the assets are, instead of GitHub's release download URL
#   INPUT_INSTALL_BUBBLEWRAP  "false" to leave the system alone
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ACTION_PATH,
#   GITHUB_REPOSITORY
# Writes the binary's path to the step output `path` and puts its directory on the job's PATH.
set -eu

fail() {
  # A workflow command's message: %, CR and LF escaped as the runner reads them (an input may hold a
  # line of its own).
  echo "::error title=clanka action::$(printf '%s' "$1" | tr -d '\r' | sed 's/%/%25/g' | awk 'NR > 1 { printf "%%0A" } { printf "%s", $0 }')"
  exit 1
}

# A line of the log that holds inputs: on one line, so that no part of it is a workflow command.
say() {
  printf '%s\n' "$1" | awk '{ gsub(/\r/, "^M") } NR > 1 { printf "^J" } { printf "%s", $0 } END { print "" }'
}

case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) fail "no clanka binary for RUNNER_OS=${RUNNER_OS:-unset} (Linux, macOS and Windows have one)" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=x64 ;;
  ARM64) arch=arm64 ;;
  *) fail "no clanka binary for RUNNER_ARCH=${RUNNER_ARCH:-unset} (X64 and ARM64 have one)" ;;
esac
[ "$os-$arch" = windows-arm64 ] && fail "no clanka binary for Windows on ARM64 (windows-x64 only)"
asset="clanka-$os-$arch"
[ "$os" = windows ] && asset="$asset.exe"

# The action's own place, as the runner checks it out: .../_actions/OWNER/NAME/REF.
# shellcheck disable=SC1003 # tr's backslash, not a quote
action_path=$(printf '%s' "${GITHUB_ACTION_PATH:-}" | tr '\\' '/')
action_repo=
action_ref=
case "$action_path" in
  */_actions/*/*/*)
    rest=${action_path#*/_actions/}
    owner=${rest%%/*}; rest=${rest#*/}
    name=${rest%%/*}; rest=${rest#*/}
    action_repo="$owner/$name"
    action_ref=${rest%%/*}
    ;;
esac

version=${INPUT_VERSION:-}
if [ -z "$version" ]; then
  case "$action_ref" in
    v[0-9]*) version=$action_ref ;;
    *) version=latest ;;
  esac
fi
# It names the directory put on PATH, and a part of the download URL.
case "$version" in
  *[!A-Za-z0-9._+-]* | .*) fail "version \"$version\" is not a release tag (e.g. v0.2.0, or latest)" ;;
esac

base=${INPUT_DOWNLOAD_URL:-}
if [ -z "$base" ]; then
  repo=${INPUT_REPOSITORY:-${action_repo:-${GITHUB_REPOSITORY:-}}}
  [ -n "$repo" ] || fail "cannot tell which repository's releases to download clanka from: set the repository input"
  if [ "$version" = latest ]; then
    base="https://github.com/$repo/releases/latest/download"
  else
    base="https://github.com/$repo/releases/download/$version"
  fi
fi
base=${base%/}

dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/clanka-bin/$version"
mkdir -p "$dir"
bin="$dir/clanka"
[ "$os" = windows ] && bin="$bin.exe"

fetch() {
  # $1 URL, $2 file
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 --retry-delay 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed: cannot download clanka"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    openssl dgst -sha256 "$1" | sed 's/.*= *//'
  fi
}

say "Downloading $asset ($version) from $base"
# The download lands beside the binary and becomes it only once its digest matches.
partial="$dir/.download"
rm -f "$partial" "$dir/SHA256SUMS"
fetch "$base/SHA256SUMS" "$dir/SHA256SUMS" || fail "could not download $base/SHA256SUMS: refusing to run a binary that cannot be checked"
fetch "$base/$asset" "$partial" || fail "could not download $base/$asset"
expected=$(awk -v name="$asset" '$2 == name || $2 == "*" name { print $1; exit }' "$dir/SHA256SUMS" | tr 'A-F' 'a-f')
[ -n "$expected" ] || fail "SHA256SUMS of $version has no line for $asset: refusing to run an unchecked binary"
actual=$(sha256 "$partial")
if [ "$actual" != "$expected" ]; then
  rm -f "$partial"
  fail "checksum mismatch for $asset ($version): SHA256SUMS says $expected, the download is $actual; refusing to run it"
fi
chmod 755 "$partial"
mv -f "$partial" "$bin"
echo "clanka $version: $asset sha256 $actual (matches SHA256SUMS)"

if [ "$os" = linux ] && [ "${INPUT_INSTALL_BUBBLEWRAP:-true}" != false ] && ! command -v bwrap >/dev/null 2>&1; then
  # clanka's default sandbox needs bubblewrap or Landlock; where user namespaces are restricted
  # (Ubuntu 24.04) bubblewrap cannot start and clanka uses Landlock (--sandbox-backend auto).
  if [ "$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" = none ]; then
    echo "::notice title=clanka action::bubblewrap is not installed and there is no sudo to install it; clanka will use Landlock"
  else
    echo "Installing bubblewrap"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq bubblewrap >/dev/null 2>&1 ||
      { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq bubblewrap >/dev/null 2>&1; } ||
      echo "::notice title=clanka action::could not install bubblewrap with apt-get; clanka will use Landlock"
  fi
fi

"$bin" --version
[ -n "${GITHUB_OUTPUT:-}" ] && echo "path=$bin" >>"$GITHUB_OUTPUT"
[ -n "${GITHUB_PATH:-}" ] && echo "$dir" >>"$GITHUB_PATH"
exit 0
