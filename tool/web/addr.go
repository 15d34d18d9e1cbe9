package web

import (
	"fmt"
	"net/netip"
)

// BlockedError is a connection refused because the address a host resolved
// to is not a public one, and no rule names the host.
type BlockedError struct {
	Host string     // as the URL names it
	Addr netip.Addr // what it resolved to
	Why  string     // the kind of address: "loopback", "private", …
}

func (e *BlockedError) Error() string {
	if e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is a %s address", e.Host, e.Why)
	}
	return fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.Addr, e.Why)
}

// metadata are the addresses of cloud providers' instance metadata services,
// which hand out credentials to whoever asks from inside the machine.
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
}

// reserved are the ranges netip's predicates do not cover that no public
// web server uses.
var reserved = []struct {
	p   netip.Prefix
	why string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `"this network"`},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// embedding are IPv6 ranges whose addresses carry an IPv4 address in their
// last 32 bits (NAT64, IPv4-compatible) or in bits 16–48 (6to4): a gateway
// may route them to that IPv4 address, so it is judged too.
var embedding = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("::/96"),
}

var sixToFour = netip.MustParsePrefix("2002::/16")

// NonPublic says what kind of address ip is when it is not a public unicast
// address (loopback, private, link-local, cloud metadata, multicast,
// reserved, …), and "" when it is public.
func NonPublic(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	for _, m := range metadata {
		if ip == m {
			return "cloud metadata"
		}
	}
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, r := range reserved {
		if r.p.Contains(ip) {
			return r.why
		}
	}
	if ip.Is6() {
		b := ip.As16()
		for _, p := range embedding {
			if p.Contains(ip) {
				return embedded(netip.AddrFrom4([4]byte(b[12:16])))
			}
		}
		if sixToFour.Contains(ip) {
			return embedded(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return ""
}

func embedded(v4 netip.Addr) string {
	if why := NonPublic(v4); why != "" {
		return why + " (embedded in IPv6)"
	}
	return ""
}
