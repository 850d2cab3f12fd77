"""The testbed of a containerised run: the host facts plus the image and the cpuset.

``image_digest`` is the content key of the toolchain image's *definition* (the base lock, the
bootstrap script and ``docker/images/<image>/``), not Docker's image id: the id changes with every
rebuild (``docker import`` stamps the time), so on fresh CI machines it would split one history
into many.  Docker's id is kept as ``image_id`` for forensics.  Two different image definitions
never share a testbed name; the suite's own code is deliberately *not* part of it, because the
code under test changes from commit to commit within one series.
"""

from __future__ import annotations

from typing import Any

from perfgate.containers.images import Built, harness_versions
from perfgate.fingerprint import host_fingerprint, testbed_name
from perfgate.model import Testbed


def container_fingerprint(image: str, toolchain: Built, cpuset: str, memory: str,
                          harness: dict[str, str] | None = None) -> dict[str, Any]:
    fp = host_fingerprint()
    fp.update({
        "image": image,
        "image_tag": toolchain.tag,
        "image_digest": f"sha256:{toolchain.key}",
        "image_id": toolchain.image_id,
        "cpuset": cpuset,
        "memory": memory,
        "harness": harness if harness is not None else harness_versions(toolchain.tag),
    })
    return fp


def container_testbed(image: str, toolchain: Built, cpuset: str, memory: str,
                      harness: dict[str, str] | None = None) -> Testbed:
    fp = container_fingerprint(image, toolchain, cpuset, memory, harness)
    return Testbed(testbed_name(fp, prefix=f"docker-{image}"), fp)
