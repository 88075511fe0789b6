package main

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/flinkop/flinkop/operator/act"
	"github.com/flinkop/flinkop/operator/flink"
)

// maxJarBytes bounds --jar-max-bytes (16 GiB).
const maxJarBytes = 16 << 30

// maxJarFetchSlots bounds --jar-fetch-slots: each fetch may stage --jar-max-bytes in
// --jar-temp-dir, and holds a reconcile worker.
const maxJarFetchSlots = 64

// jarOptions are the flags of session job jar fetching. They are the operator
// administrator's: a resource's flinkConfiguration cannot change them.
type jarOptions struct {
	fileRoot, hosts, cidrs, tempDir string
	maxBytes                        int64
	credentials                     bool
	fetchSlots, fetchSlotsPerNS     int
}

func jarFlags(fs *flag.FlagSet) *jarOptions {
	o := &jarOptions{}
	fs.StringVar(&o.fileRoot, "jar-file-root", "", "the only directory file:// session job jars are read from (default: file:// jars refused)")
	fs.StringVar(&o.hosts, "jar-allowed-hosts", "", "comma-separated hosts http(s) jars may come from, exact or *.domain (default: any host with a public address)")
	fs.StringVar(&o.cidrs, "jar-allowed-cidrs", "", "comma-separated CIDRs jars may be fetched from although not public (loopback, private, link-local)")
	fs.StringVar(&o.tempDir, "jar-temp-dir", "", "directory jars are staged in while uploaded (default: $TMPDIR or /tmp)")
	fs.BoolVar(&o.credentials, "jar-credentials", false, "let session jobs name a labelled Secret with their https jar's credentials (annotation flinkop.io/jar-credentials-secret; needs config/jar-credentials)")
	fs.Int64Var(&o.maxBytes, "jar-max-bytes", flink.DefaultJarMaxBytes, "largest session job jar fetched, in bytes")
	fs.IntVar(&o.fetchSlots, "jar-fetch-slots", act.DefaultJarFetchSlots, "how many session job jars are fetched at once in all (each may stage --jar-max-bytes in --jar-temp-dir)")
	fs.IntVar(&o.fetchSlotsPerNS, "jar-fetch-slots-per-namespace", act.DefaultJarFetchSlotsPerNamespace, "how many of the --jar-fetch-slots one namespace's session jobs may hold")
	return o
}

// slots checks the fetch slot flags.
func (o *jarOptions) slots() error {
	if o.fetchSlots < 1 || o.fetchSlots > maxJarFetchSlots {
		return fmt.Errorf("--jar-fetch-slots: %d is not between 1 and %d", o.fetchSlots, maxJarFetchSlots)
	}
	if o.fetchSlotsPerNS < 1 || o.fetchSlotsPerNS > o.fetchSlots {
		return fmt.Errorf("--jar-fetch-slots-per-namespace: %d is not between 1 and --jar-fetch-slots (%d)", o.fetchSlotsPerNS, o.fetchSlots)
	}
	return nil
}

func (o *jarOptions) fetcher() (*flink.JarFetcher, error) {
	if o.maxBytes <= 0 || o.maxBytes > maxJarBytes {
		return nil, fmt.Errorf("--jar-max-bytes: %d is not between 1 and %d", o.maxBytes, int64(maxJarBytes))
	}
	if err := o.slots(); err != nil {
		return nil, err
	}
	f := &flink.JarFetcher{FileRoot: o.fileRoot, TempDir: o.tempDir, MaxBytes: o.maxBytes}
	f.Policy.AllowedHosts = split(o.hosts)
	for _, c := range split(o.cidrs) {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return nil, fmt.Errorf("--jar-allowed-cidrs: %w", err)
		}
		f.Policy.AllowedCIDRs = append(f.Policy.AllowedCIDRs, p)
	}
	return f, nil
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
