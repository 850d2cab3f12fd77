#!/bin/sh
# Build the release binary into target/release/.
#
# In the pinned image (docker/images/rust) crates come from Debian's packaged sources under
# /usr/share/cargo/registry, offline: the Dockerfile points cargo there with PERFGATE_CARGO_DEBIAN=1.
# Debian's copies carry no crates.io checksums, so the crates.io Cargo.lock is set aside and cargo
# resolves against the packaged versions (tokio 1.43.1 in trixie, the version Cargo.lock pins);
# the Debian package lock under docker/ is what pins them there.  Elsewhere: crates.io, --locked.
set -eu
cd "$(dirname "$0")"
if [ "${PERFGATE_CARGO_DEBIAN:-0}" = 1 ]; then
  mkdir -p target
  [ -f Cargo.lock ] && mv Cargo.lock target/Cargo.lock.crates-io
  exec cargo build --release --offline
fi
exec cargo build --release --locked
