#!/bin/bash
# make demo: lprojd on a copy of the example bundle, lprojctl tail following
# it, and a few edits a translator would make — a change, a broken save, its
# fix, a new localization — and a language selection.
set -euo pipefail
BIN=${1:-.build/debug}
DIR=$(mktemp -d /tmp/lprojd-demo-XXXXXX)
SOCK=$DIR/lprojd.sock
ROOT=$DIR/root
mkdir -p "$ROOT"
cp -r Examples/Demo/Resources "$ROOT/"
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "lprojd --root $ROOT --socket $SOCK (detaches once it serves)"
"$BIN/lprojd" --root "$ROOT" --socket "$SOCK" --state "$DIR/state" | tee "$DIR/started"
PID=$(sed -n 's/.*(pid \([0-9]*\))$/\1/p' "$DIR/started")

step "lprojctl list"
"$BIN/lprojctl" list --socket "$SOCK"

step "lprojctl tail (in the background) while we edit"
"$BIN/lprojctl" tail --socket "$SOCK" --count 6 2>"$DIR/tail.err" &
TAIL=$!
for _ in $(seq 100); do grep -q following "$DIR/tail.err" 2>/dev/null && break; sleep 0.05; done

R=$ROOT/Resources
echo '# sed -i: "Home" becomes "Start" in en'
sed -i 's/"tab_home" = "Home"/"tab_home" = "Start"/' "$R/en.lproj/Localizable.strings"
echo '# a broken save: a missing ";" (the last good table stays served)'
cp "$R/ja.lproj/Localizable.strings" "$DIR/ja.good"
printf '"home_title" = "ホーム"\n"login" = "ログイン";\n' >> "$R/ja.lproj/Localizable.strings"
echo '# the fix'
cp "$DIR/ja.good" "$R/ja.lproj/Localizable.strings"
echo '# a new localization copied in'
mkdir -p "$DIR/fr.lproj" && printf '"home_title" = "Accueil";\n"tab_home" = "Accueil";\n' > "$DIR/fr.lproj/Localizable.strings"
cp -r "$DIR/fr.lproj" "$R/"
echo '# lprojctl select --app com.example.lproj-demo zh-Hant'
"$BIN/lprojctl" select --app com.example.lproj-demo zh-Hant --socket "$SOCK"
wait $TAIL

step "lprojctl get home_title --live --language fr-CA"
"$BIN/lprojctl" get home_title --live --bundle "$R" --language fr-CA --socket "$SOCK"

step "lprojctl status"
"$BIN/lprojctl" status --socket "$SOCK"

step "lproj-demo: the app's screen, following lprojd"
if [ -t 0 ] && [ -t 1 ] && [ -z "${LPROJ_DEMO_SCRIPTED:-}" ]; then
  echo "Keys: 1-9 select a language, 0 follows the system, +/- change the count, q quits."
  echo "Edit $R/*.lproj/Localizable.strings in another terminal, or run"
  echo "  $BIN/lprojctl select --app com.example.lproj-demo ja --socket $SOCK"
  echo "and watch it redraw. Starting in 3 s..."
  sleep 3
  XDG_CONFIG_HOME="$DIR/config" "$BIN/lproj-demo" --bundle "$R" --socket "$SOCK"
else
  # No terminal: the plain view, driven by a script — a selection from outside, a save, a key.
  mkfifo "$DIR/keys"
  XDG_CONFIG_HOME="$DIR/config" "$BIN/lproj-demo" --plain --bundle "$R" --socket "$SOCK" <"$DIR/keys" >"$DIR/demo.out" &
  DEMO=$!
  exec 3>"$DIR/keys"
  wait_for() { for _ in $(seq 200); do grep -q "$1" "$DIR/demo.out" 2>/dev/null && return 0; sleep 0.05; done; echo "(not seen: $1)"; }
  wait_for "following lprojd"
  "$BIN/lprojctl" select --app com.example.lproj-demo ja --socket "$SOCK" >/dev/null
  wait_for "language: ja"
  sed -i 's/"home_title" = "ホーム"/"home_title" = "ホーム画面"/' "$R/ja.lproj/Localizable.strings"
  wait_for "ホーム画面"
  echo "+" >&3; echo "q" >&3; exec 3>&-
  wait $DEMO || true
  cat "$DIR/demo.out"
fi
