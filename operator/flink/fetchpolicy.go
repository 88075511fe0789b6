package flink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrFetchRefused is returned for a jar URL (or a redirect, or an address a host name resolved
// to) that the fetch policy does not allow.
var ErrFetchRefused = errors.New("refused by the jar fetch policy")

// maxRedirects bounds how many redirects one jar fetch follows.
const maxRedirects = 5

// maxJarResponseHeader bounds the status line and headers of a jar server's answer.
const maxJarResponseHeader = 64 << 10

// FetchPolicy says which http(s) jar URLs the operator may fetch. A jar URL is tenant input
// and the operator's network position is privileged (cluster Services, the cloud metadata
// address, its own metrics port), so addresses that are not public are refused unless an
// administrator allows them; the rules hold for every redirect and for every address a host
// name resolves to at dial time.
type FetchPolicy struct {
	// AllowedHosts, when not empty, are the only host names jars are fetched from: an exact
	// name, or "*.example.com" for any name below example.com.
	AllowedHosts []string
	// AllowedCIDRs are address ranges that may be dialled although they are loopback,
	// private, link-local or otherwise not public (e.g. an in-cluster artifact server).
	AllowedCIDRs []netip.Prefix
	// Resolver resolves host names before a request (default net.DefaultResolver); every
	// address must pass CheckAddr. The transport checks the dialled address again, so a name
	// that resolves differently the second time is still caught.
	Resolver Resolver
}

// Resolver resolves a host name to its addresses (net.Resolver is one).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckHost resolves a URL's host and checks every address it has (an IP literal is checked
// as it is).
func (p FetchPolicy) CheckHost(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(ip)
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if err := p.CheckAddr(a); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}

// CheckURL checks a jar URL before it is requested: http or https, no credentials, an allowed
// host, and, for an IP literal, an allowed address.
func (p FetchPolicy) CheckURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q (http and https only)", ErrFetchRefused, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in the URL", ErrFetchRefused)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: no host", ErrFetchRefused)
	}
	if !p.hostAllowed(host) {
		return fmt.Errorf("%w: host %q is not in the allowed hosts", ErrFetchRefused, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(ip)
	}
	return nil
}

func (p FetchPolicy) hostAllowed(host string) bool {
	if len(p.AllowedHosts) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range p.AllowedHosts {
		h = strings.ToLower(h)
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == h {
			return true
		}
	}
	return false
}

// CheckAddr checks an address about to be dialled: public unicast addresses are allowed;
// loopback, private, link-local, shared, reserved, unspecified and multicast addresses (also
// in IPv4-mapped, NAT64, IPv4-compatible and 6to4 forms) only inside AllowedCIDRs.
func (p FetchPolicy) CheckAddr(ip netip.Addr) error {
	ip = ip.WithZone("").Unmap()
	for _, c := range p.AllowedCIDRs {
		if c.Contains(ip) {
			return nil
		}
	}
	if !public(ip) {
		return fmt.Errorf("%w: address %s is not public (allow it with --jar-allowed-cidrs)", ErrFetchRefused, ip)
	}
	return nil
}

// Transport returns an HTTP transport that dials only addresses the policy allows (checked
// after name resolution, so a name resolving to a refused address fails) and uses no proxy.
func (p FetchPolicy) Transport() *http.Transport {
	dialer := &net.Dialer{
		Timeout: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrFetchRefused, err)
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrFetchRefused, err)
			}
			return p.CheckAddr(ip)
		},
	}
	return &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, past the address check
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		// A jar server's status line and headers are a few KB at most; Go's default
		// allows 10 MB of them, all of it the server's to fill.
		MaxResponseHeaderBytes: maxJarResponseHeader,
		MaxIdleConns:           10,
		IdleConnTimeout:        90 * time.Second,
	}
}

// checkRedirect applies the policy to every redirect: at most maxRedirects, never from https
// to http, and each target passes CheckURL.
func (p FetchPolicy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrFetchRefused, maxRedirects)
	}
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect from https to %s", ErrFetchRefused, req.URL.Scheme)
	}
	if req.URL.Host != via[0].URL.Host {
		// Go keeps Authorization for a subdomain or another port; credentials are the
		// original host's only.
		req.Header.Del("Authorization")
	}
	if err := p.CheckURL(req.URL); err != nil {
		return err
	}
	return p.CheckHost(req.Context(), req.URL)
}
