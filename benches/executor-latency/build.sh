#!/bin/sh
# Build the release binary into target/release/.
#
# In the pinned image (docker/images/rust, which sets PERFGATE_CARGO_DEBIAN=1) crates come from
# Debian's packaged sources under /usr/share/cargo/registry, offline.  Debian's copies carry no
# crates.io checksums, so the crates.io Cargo.lock is set aside and cargo resolves against the
# packaged versions (tokio 1.43.1 in trixie, the version Cargo.lock pins too); the Dockerfile
# pins those packages.  Anywhere else: crates.io with the committed Cargo.lock.
set -eu
cd "$(dirname "$0")"
if [ "${PERFGATE_CARGO_DEBIAN:-0}" = 1 ]; then
  export CARGO_HOME="$PWD/target/cargo-home"
  mkdir -p "$CARGO_HOME"
  printf '%s\n' '[source.crates-io]' 'replace-with = "debian"' \
    '[source.debian]' 'directory = "/usr/share/cargo/registry"' > "$CARGO_HOME/config.toml"
  if [ -f Cargo.lock ]; then mv Cargo.lock target/Cargo.lock.crates-io; fi
  cargo build --release --offline
  cp Cargo.lock target/Cargo.lock.debian   # what was actually compiled, kept in the image
  exit 0
fi
exec cargo build --release --locked
