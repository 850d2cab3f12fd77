#!/bin/sh
# Build build/swift-runtime with the image's swiftc (Debian trixie's swiftlang 6.0.3).
# Swift 5 language mode: the driver blocks the main thread on a semaphore while detached tasks
# run, which Swift 6's strict checking of top-level code would refuse.
set -eu
cd "$(dirname "$0")"
mkdir -p build
swiftc -O -swift-version 5 -o build/swift-runtime Sources/main.swift
