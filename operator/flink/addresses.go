package flink

import "net/netip"

// notPublicRanges are the ranges, besides what netip's predicates name (loopback, private,
// link-local, multicast, unspecified), that no public jar server has: reserved, shared,
// benchmarking, documentation and IETF ranges, and IPv6's deprecated site-local range.
var notPublicRanges = prefixes(
	"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
	"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
	"fec0::/10", "2001:db8::/32", "100::/64",
)

// embedsIPv4 are IPv6 ranges whose addresses carry an IPv4 address that the network may
// reach (NAT64, IPv4-compatible, IPv4-translated, 6to4): that IPv4 address must be public too.
var embedsIPv4 = map[netip.Prefix]int{ // prefix → byte offset of the IPv4 address
	netip.MustParsePrefix("64:ff9b::/96"):    12,
	netip.MustParsePrefix("64:ff9b:1::/48"):  12,
	netip.MustParsePrefix("::/96"):           12,
	netip.MustParsePrefix("::ffff:0:0:0/96"): 12,
	netip.MustParsePrefix("2002::/16"):       2,
}

func prefixes(ps ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ps))
	for i, p := range ps {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// public reports whether ip is a global unicast address outside every non-public range,
// looking through IPv4-mapped and IPv4-embedding IPv6 forms.
func public(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return false
	}
	for _, r := range notPublicRanges {
		if r.Contains(ip) {
			return false
		}
	}
	if ip.Is6() {
		b := ip.As16()
		for p, off := range embedsIPv4 {
			if p.Contains(ip) {
				return public(netip.AddrFrom4([4]byte(b[off : off+4])))
			}
		}
	}
	return true
}
