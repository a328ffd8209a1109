"""Which provider addresses znt will send source text (and a key) to.

A provider URL can come from a config file that someone else wrote, or from an agent steered
by what it read. Three classes of host (docs/security.md, hostile provider):

* **refused always**: link-local addresses (169.254.0.0/16, fe80::/10), the cloud metadata
  services (169.254.169.254, fd00:ec2::254, 100.100.100.200, ``metadata.google.internal``...),
  unspecified, multicast and reserved addresses. Nothing legitimate serves embeddings there,
  and a request there can hand out cloud credentials.
* **private ranges** (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7): only with an explicit
  opt-in (``znt setup --allow-private-url``, kept in the config as
  ``embedding.allow_private_url: true``).
* **loopback** (127/8, ::1, ``localhost``) and public addresses: allowed (Ollama runs locally).

Numbers written the old ways (``http://2852039166/``, ``0xa9fea9fe``) are read as the
addresses they are, and a host name is checked again on what it resolves to when znt
connects (``check_resolved``), so a name cannot stand in for a refused address.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Literal

HostClass = Literal["loopback", "public", "private", "refused"]

METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.internal",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)
_SHARED = ipaddress.ip_network("100.64.0.0/10")


class RefusedURL(ValueError):
    """The reason, in words; the caller adds where the URL came from."""


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
        if host and all(c in "0123456789abcdefxABCDEFX." for c in host):
            try:  # the forms inet_aton accepts: 2852039166, 0xa9fea9fe, 169.254.43518
                ip = ipaddress.ip_address(socket.inet_aton(host))
            except OSError:
                return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def classify_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> HostClass:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if (
        ip in METADATA_ADDRESSES
        or ip.is_link_local
        or ip.is_unspecified
        or ip.is_multicast
        or ip.is_reserved
    ):
        return "refused"
    if ip.is_private or ip in _SHARED or not ip.is_global:
        return "private"
    return "public"


def classify_host(host: str) -> HostClass:
    """The class of a URL's host as written (no name lookup)."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "loopback"
    if name in METADATA_HOSTS:
        return "refused"
    ip = _literal(name)
    return classify_address(ip) if ip is not None else "public"


def _why(cls: HostClass, host: str) -> str:
    if cls == "refused":
        return f"{host} is a link-local or cloud metadata address; znt never sends requests there"
    return (
        f"{host} is in a private network range; pass --allow-private-url (or set "
        "embedding.allow_private_url: true) if the provider really runs there"
    )


def check_host(host: str, *, allow_private: bool = False) -> None:
    """Raise ``RefusedURL`` when znt must not talk to ``host``."""
    cls = classify_host(host)
    if cls == "refused" or (cls == "private" and not allow_private):
        raise RefusedURL(_why(cls, host))


def check_resolved(host: str, port: int | None, *, allow_private: bool = False) -> None:
    """``check_host`` on every address ``host`` resolves to (a name that cannot be resolved
    is left to the connection to report)."""
    check_host(host, allow_private=allow_private)
    if _literal(host.strip("[]")) is not None:
        return
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port or 80, proto=socket.IPPROTO_TCP)
    except OSError:
        return
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        cls = classify_address(ip)
        if cls == "refused" or (cls == "private" and not allow_private):
            raise RefusedURL(_why(cls, f"{host} ({ip})"))
