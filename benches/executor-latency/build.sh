#!/bin/sh
# Build the release binary into target/release/.
#
# Crates come from crates.io, pinned with their checksums by the committed Cargo.lock (embassy is
# not packaged by Debian, so the rust image's offline Debian registry cannot serve this suite).
# `cargo fetch` downloads them once at image-build time (through the CA bundle the runner mounts
# for that step) into target/cargo-home, which stays in the image; the build itself is offline,
# and runs need no network.
set -eu
cd "$(dirname "$0")"
export CARGO_HOME="$PWD/target/cargo-home"
mkdir -p "$CARGO_HOME"
cargo fetch --locked
exec cargo build --release --locked --offline
