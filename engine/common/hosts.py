"""Which addresses are this machine's own: the one test of whether a server or a scheduler is reachable
from elsewhere."""

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, an IPv6 one maybe in brackets) is this machine only."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
